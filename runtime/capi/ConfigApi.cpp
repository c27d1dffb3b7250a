//===- ConfigApi.cpp - C API: HcclCommConfig and process-wide settings ----===//
//
// HcclCommConfig is read by HCCL's protocol: the first 24 bytes say the
// caller's struct size, a magic word and a version; the library copies
// min(size, its own size) bytes and reads only the fields that version has
// (v1 buffer size and determinism, v2 name, v3 udi, v4 expansion mode, v5
// traffic class and service level, v6 world rank and job id, v7 graph zero
// copy, v8 exec timeout, algorithm and retry, v9 buffer name, v10 QoS and
// symmetric-memory size). Older callers get defaults for the rest, newer
// callers' extra fields are ignored with a warning. A field the caller's
// size does not cover counts as not set.
//
// Every field HCCL accepts is accepted: those with a host meaning are used
// (buffer size, determinism, name, traffic class / service level for RoCE,
// exec timeout, algorithm), the others are reported once as warnings.
//
//===----------------------------------------------------------------------===//
#include "capi/ApiSupport.h"
#include "common/Log.h"

#include <atomic>
#include <cstring>

using namespace hccl::rt;
using namespace hccl::rt::capi;

namespace {

/// HcclSetConfig(HCCL_DETERMINISTIC): -1 = not set.
std::atomic<int32_t> gDeterministic{-1};

/// Bytes of the caller's struct that hold `field` entirely.
template <typename T> bool covers(size_t size, size_t offset) {
  return size >= offset + sizeof(T);
}

std::string cString(const char *p, size_t max) {
  return std::string(p, strnlen(p, max));
}

} // namespace

namespace hccl::rt::capi {

void applyProcessSettings(Config &cfg) {
  int32_t d = gDeterministic.load();
  if (d >= 0)
    cfg.deterministic = static_cast<Deterministic>(d);
}

StatusOr<CommSettings> readCommConfig(Config base, const HcclCommConfig *user) {
  CommSettings out;
  out.cfg = std::move(base);
  if (user == nullptr)
    return out;
  struct Info {
    size_t size;
    uint32_t magic;
    uint32_t version;
  } info;
  std::memcpy(&info, user, sizeof(info));
  if (info.magic != HCCL_COMM_CONFIG_MAGIC_WORD)
    return errPara("config was not initialised with HcclCommConfigInit (bad "
                   "magic word 0x" +
                   [&] {
                     char b[16];
                     std::snprintf(b, sizeof(b), "%x", info.magic);
                     return std::string(b);
                   }() +
                   ")");
  if (info.size < HCCL_COMM_CONFIG_INFO_BYTES)
    return errPara("config size " + std::to_string(info.size) +
                   " is smaller than its 24-byte header");
  HcclCommConfig c;
  std::memset(&c, 0, sizeof(c));
  size_t n = std::min(info.size, sizeof(HcclCommConfig));
  std::memcpy(&c, user, n);
  const uint32_t v = info.version;
  std::vector<std::string> &warn = out.cfg.warnings;
  if (v > HCCL_COMM_CONFIG_VERSION || info.size > sizeof(HcclCommConfig))
    warn.push_back("HcclCommConfig version " + std::to_string(v) + " (" +
                   std::to_string(info.size) +
                   " bytes) is newer than this library's (" +
                   std::to_string(HCCL_COMM_CONFIG_VERSION) +
                   "): its newer fields are ignored");
  auto has = [&](uint32_t since, size_t offset, size_t bytes) {
    return v >= since && n >= offset + bytes;
  };
#define HAS(since, field)                                                      \
  has(since, offsetof(HcclCommConfig, field), sizeof(c.field))
  Config &cfg = out.cfg;
  if (HAS(1, hcclBufferSize) &&
      c.hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET) {
    if (c.hcclBufferSize < 1)
      return errPara(
          "config.hcclBufferSize=" + std::to_string(c.hcclBufferSize) +
          ": expected an integer >= 1 (MB)");
    cfg.buffSizeMB = c.hcclBufferSize;
  }
  if (HAS(1, hcclDeterministic) &&
      c.hcclDeterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET) {
    if (c.hcclDeterministic > 2)
      return errPara(
          "config.hcclDeterministic=" + std::to_string(c.hcclDeterministic) +
          ": expected 0 (false), 1 (true) or 2 (strict)");
    cfg.deterministic = static_cast<Deterministic>(c.hcclDeterministic);
  }
  if (HAS(2, hcclCommName))
    out.name = cString(c.hcclCommName, sizeof(c.hcclCommName));
  if (HAS(3, hcclUdi))
    out.udi = cString(c.hcclUdi, sizeof(c.hcclUdi));
  if (HAS(4, hcclOpExpansionMode) && c.hcclOpExpansionMode != 0 &&
      c.hcclOpExpansionMode != 1)
    warn.push_back(
        "config.hcclOpExpansionMode=" + std::to_string(c.hcclOpExpansionMode) +
        ": the host runtime always expands on the host CPU (mode "
        "1); the setting has no effect");
  if (HAS(5, hcclRdmaTrafficClass) &&
      c.hcclRdmaTrafficClass != HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET) {
    if (c.hcclRdmaTrafficClass <= 255 && c.hcclRdmaTrafficClass % 4 == 0)
      cfg.rdmaTrafficClass = c.hcclRdmaTrafficClass;
    else
      warn.push_back("config.hcclRdmaTrafficClass=" +
                     std::to_string(c.hcclRdmaTrafficClass) +
                     ": not a multiple of 4 in 0..255; HCCL_RDMA_TC (" +
                     std::to_string(cfg.rdmaTrafficClass) + ") applies");
  }
  if (HAS(5, hcclRdmaServiceLevel) &&
      c.hcclRdmaServiceLevel != HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET) {
    if (c.hcclRdmaServiceLevel <= 7)
      cfg.rdmaServiceLevel = c.hcclRdmaServiceLevel;
    else
      warn.push_back("config.hcclRdmaServiceLevel=" +
                     std::to_string(c.hcclRdmaServiceLevel) +
                     ": outside 0..7; HCCL_RDMA_SL (" +
                     std::to_string(cfg.rdmaServiceLevel) + ") applies");
  }
  if (HAS(6, hcclWorldRankID) && HAS(6, hcclJobID) &&
      (c.hcclWorldRankID != 0 || c.hcclJobID != 0))
    warn.push_back(
        "config.hcclWorldRankID=" + std::to_string(c.hcclWorldRankID) +
        ", hcclJobID=" + std::to_string(c.hcclJobID) +
        ": NSLB-DP network load-balancing hints, no effect on the "
        "host runtime");
  if (HAS(7, aclGraphZeroCopyEnable)) {
    if (c.aclGraphZeroCopyEnable > 1)
      return errPara("config.aclGraphZeroCopyEnable=" +
                     std::to_string(c.aclGraphZeroCopyEnable) +
                     ": expected 0 or 1");
    if (c.aclGraphZeroCopyEnable == 1)
      warn.push_back("config.aclGraphZeroCopyEnable=1: there is no ACL "
                     "graph capture on the host runtime; no effect");
  }
  if (HAS(8, hcclExecTimeOut) &&
      c.hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET) {
    if (c.hcclExecTimeOut >= 0)
      cfg.execTimeoutSec = static_cast<uint64_t>(c.hcclExecTimeOut);
    else // HCCL warns and keeps the environment's value
      warn.push_back(
          "config.hcclExecTimeOut=" + std::to_string(c.hcclExecTimeOut) +
          ": expected 0..2147483647 s; HCCL_EXEC_TIMEOUT (" +
          std::to_string(cfg.execTimeoutSec) + " s) applies");
  }
  if (HAS(8, hcclAlgo) && c.hcclAlgo[0] != '\0') {
    std::string algo = cString(c.hcclAlgo, sizeof(c.hcclAlgo));
    std::string err = setHcclAlgo(algo, "config.hcclAlgo", cfg);
    if (!err.empty())
      return errPara("config.hcclAlgo=" + algo + ": " + err);
  }
  if (HAS(8, hcclRetryEnable) && c.hcclRetryEnable[0] != '\0')
    warn.push_back("config.hcclRetryEnable=" +
                   cString(c.hcclRetryEnable, sizeof(c.hcclRetryEnable)) +
                   ": operator retry is not implemented; a failed collective "
                   "fails the communicator");
  if (HAS(8, hcclRetryParams) && c.hcclRetryParams[0] != '\0')
    warn.push_back("config.hcclRetryParams: operator retry is not "
                   "implemented; ignored");
  if (HAS(9, hcclBufferName) && c.hcclBufferName[0] != '\0')
    warn.push_back("config.hcclBufferName=" +
                   cString(c.hcclBufferName, sizeof(c.hcclBufferName)) +
                   ": communicators do not share CCL buffers here; ignored");
  if (HAS(10, hcclQos) && c.hcclQos != HCCL_COMM_QOS_CONFIG_NOT_SET)
    warn.push_back("config.hcclQos=" + std::to_string(c.hcclQos) +
                   ": AI CPU SDMA QoS has no meaning on the host; ignored");
  if (HAS(10, hcclSymWinMaxMemSizePerRank) &&
      c.hcclSymWinMaxMemSizePerRank != HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE)
    warn.push_back("config.hcclSymWinMaxMemSizePerRank: symmetric memory "
                   "windows are not supported here; ignored");
#undef HAS
  return out;
}

StatusOr<Config> applyCommConfig(Config base, const HcclCommConfig *cfg) {
  auto s = readCommConfig(std::move(base), cfg);
  if (!s)
    return s.status();
  warnOnce(s->cfg.warnings);
  return s->cfg;
}

} // namespace hccl::rt::capi

extern "C" {

HcclResult HcclSetConfig(HcclConfig config, union HcclConfigValue configValue) {
  const char *fn = "HcclSetConfig";
  return guarded(fn, [&]() -> HcclResult {
    if (config != HCCL_DETERMINISTIC)
      return report(fn, errPara("config " + std::to_string(config) +
                                " is not a setting (HCCL_DETERMINISTIC is "
                                "the only one)"));
    if (configValue.value < 0 || configValue.value > 2)
      return report(fn, errPara("HCCL_DETERMINISTIC value " +
                                std::to_string(configValue.value) +
                                ": expected 0 (off), 1 (on) or 2 (strict)"));
    gDeterministic.store(configValue.value);
    return HCCL_SUCCESS;
  });
}

HcclResult HcclGetConfig(HcclConfig config,
                         union HcclConfigValue *configValue) {
  const char *fn = "HcclGetConfig";
  return guarded(fn, [&]() -> HcclResult {
    if (configValue == nullptr)
      return report(fn, Status(HCCL_E_PTR, "configValue is NULL"));
    if (config != HCCL_DETERMINISTIC)
      return report(fn, errPara("config " + std::to_string(config) +
                                " is not a setting (HCCL_DETERMINISTIC is "
                                "the only one)"));
    auto env = loadEnvConfig(); // includes HcclSetConfig's value
    if (!env)
      return report(fn, env.status());
    configValue->value = static_cast<int32_t>(env->deterministic);
    return HCCL_SUCCESS;
  });
}

uint32_t HcclGetCommConfigCapability(void) {
  // Every field up to the buffer name is read (readCommConfig); greater than
  // each supported capability, as HCCL defines the answer.
  return HCCL_COMM_CONFIG_RESERVED;
}

HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType,
                             uint32_t infoLen, void *info) {
  const char *fn = "HcclConfigGetInfo";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    if (info == nullptr)
      return report(fn, Status(HCCL_E_PTR, "info is NULL"));
    if (cfgType != HCCL_CONFIG_TYPE_OP_EXPANSION_MODE)
      return report(fn, errPara("config type " + std::to_string(cfgType) +
                                " is unknown (HCCL_CONFIG_TYPE_OP_EXPANSION_"
                                "MODE is the only one)"));
    if (infoLen < sizeof(HcclConfigTypeOpExpansionMode))
      return report(fn, errPara("infoLen " + std::to_string(infoLen) +
                                " is smaller than an HcclOpExpansionMode"));
    HcclConfigTypeOpExpansionMode mode = HCCL_OP_EXPANSION_MODE_HOST;
    std::memcpy(info, &mode, sizeof(mode));
    return HCCL_SUCCESS;
  });
}

} // extern "C"
