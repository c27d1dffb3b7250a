//===- ApiSupport.cpp - Shared plumbing of the C API ----------------------===//
#include "capi/ApiSupport.h"
#include "common/Log.h"

#include <cstring>
#include <mutex>
#include <set>
#include <string>

extern char **environ;

namespace hccl::rt::capi {

namespace {
thread_local std::string tlsLastError;

struct Registry {
  std::mutex mu;
  std::set<Communicator *> comms;
  std::set<HostStream *> streams;
};
Registry &registry() {
  static Registry *r = new Registry(); // never destroyed: usable at exit
  return *r;
}
} // namespace

const char *lastErrorMessage() { return tlsLastError.c_str(); }

HcclResult report(const char *fn, const Status &st) {
  if (st.isOk())
    return HCCL_SUCCESS;
  tlsLastError = std::string(fn) + ": " + st.message();
  HCCL_LOG(Error, tlsLastError);
  return st.code();
}

HcclResult guarded(const char *fn, const std::function<HcclResult()> &body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return report(fn, Status(HCCL_E_MEMORY, "out of memory"));
  } catch (const std::exception &e) {
    return report(fn, Status(HCCL_E_INTERNAL,
                             std::string("internal error: ") + e.what()));
  } catch (...) {
    return report(fn, Status(HCCL_E_INTERNAL, "internal error"));
  }
}

void registerComm(Communicator *c) {
  std::lock_guard<std::mutex> g(registry().mu);
  registry().comms.insert(c);
}

bool unregisterComm(Communicator *c) {
  std::lock_guard<std::mutex> g(registry().mu);
  return registry().comms.erase(c) == 1;
}

Status resolveComm(HcclComm comm, Communicator **out) {
  if (comm == nullptr)
    return Status(HCCL_E_PTR, "comm is NULL");
  auto *c = static_cast<Communicator *>(comm);
  std::lock_guard<std::mutex> g(registry().mu);
  if (!registry().comms.count(c))
    return errPara("comm is not a live communicator (destroyed, or not from "
                   "HcclCommInit*)");
  *out = c;
  return Status::ok();
}

void registerStream(HostStream *s) {
  std::lock_guard<std::mutex> g(registry().mu);
  registry().streams.insert(s);
}

bool unregisterStream(HostStream *s) {
  std::lock_guard<std::mutex> g(registry().mu);
  return registry().streams.erase(s) == 1;
}

Status resolveStream(aclrtStream stream, HostStream **out) {
  *out = nullptr;
  if (stream == nullptr)
    return Status::ok();
  auto *s = static_cast<HostStream *>(stream);
  std::lock_guard<std::mutex> g(registry().mu);
  if (!registry().streams.count(s))
    return errPara(
        "stream is not a live host stream (create it with HcclStreamCreate)");
  *out = s;
  return Status::ok();
}

StatusOr<Config> loadEnvConfig() {
  auto c = loadConfig();
  if (!c)
    return errPara(c.message());
  static std::once_flag warnOnce;
  Config cfg = c.take();
  setLogLevel(cfg.logLevel);
  std::call_once(warnOnce, [] {
    for (const auto &v : unknownHcclVariables(environ))
      HCCL_LOG(Warn, "ignoring " + v + ": not a variable this runtime reads");
  });
  return cfg;
}

StatusOr<Config> applyCommConfig(Config base, const HcclCommConfig *cfg) {
  if (cfg == nullptr)
    return base;
  struct Info {
    size_t size;
    uint32_t magic;
    uint32_t version;
  };
  Info info;
  std::memcpy(&info, cfg, sizeof(info));
  if (info.magic != HCCL_COMM_CONFIG_MAGIC_WORD)
    return errPara(
        "config was not initialised with HcclCommConfigInit (bad magic word)");
  if (info.size < offsetof(HcclCommConfig, hcclCommName))
    return errPara("config size " + std::to_string(info.size) +
                   " is too small");
  if (cfg->hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET) {
    if (cfg->hcclBufferSize < 1)
      return errPara(
          "config.hcclBufferSize=" + std::to_string(cfg->hcclBufferSize) +
          ": expected an integer >= 1 (MB)");
    base.buffSizeMB = cfg->hcclBufferSize;
  }
  if (cfg->hcclDeterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET) {
    if (cfg->hcclDeterministic > 2)
      return errPara(
          "config.hcclDeterministic=" + std::to_string(cfg->hcclDeterministic) +
          ": expected 0 (false), 1 (true) or 2 (strict)");
    base.deterministic = static_cast<Deterministic>(cfg->hcclDeterministic);
  }
  if (info.size >= offsetof(HcclCommConfig, hcclUdi) &&
      std::memchr(cfg->hcclCommName, '\0', sizeof(cfg->hcclCommName)) ==
          nullptr)
    return errPara("config.hcclCommName is not NUL-terminated");
  return base;
}

Status checkDataType(HcclDataType t) {
  int v = static_cast<int>(t);
  if (v >= 0 && v <= 11)
    return Status::ok();
  if (v == HCCL_DATA_TYPE_INT128 ||
      (v >= HCCL_DATA_TYPE_HIF8 && v <= HCCL_DATA_TYPE_FP8E8M0))
    return Status(HCCL_E_NOT_SUPPORT,
                  "data type " + std::to_string(v) +
                      " is not supported by the host runtime (supported: " +
                      sched::dataTypeNameList() + ")");
  return errPara("unknown data type " + std::to_string(v) +
                 " (supported: " + sched::dataTypeNameList() + ")");
}

Status checkReduceOp(HcclReduceOp op) {
  int v = static_cast<int>(op);
  if (v >= 0 && v <= 3)
    return Status::ok();
  return errPara("unknown reduction operator " + std::to_string(v) +
                 " (expected HCCL_REDUCE_SUM, _PROD, _MAX or _MIN)");
}

Status checkBytes(uint64_t count, HcclDataType t, uint64_t factor,
                  const char *what) {
  uint64_t es = sched::dataTypeSize(static_cast<sched::DataType>(t));
  const uint64_t limit = uint64_t(1) << 62;
  if (count > sched::kMaxCount || (factor && count > limit / es / factor))
    return errPara(std::string(what) + " " + std::to_string(count) + " of " +
                   sched::dataTypeName(static_cast<sched::DataType>(t)) +
                   " overflows the addressable size");
  return Status::ok();
}

bool overlaps(const void *a, uint64_t aBytes, const void *b, uint64_t bBytes) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  if (aBytes == 0 || bBytes == 0)
    return false;
  return x < y + bBytes && y < x + aBytes;
}

HcclResult dispatch(const char *fn, Communicator *c, HostStream *s,
                    std::function<Status()> work) {
  if (s == nullptr) {
    Status st;
    {
      Turn turn(c);
      st = work();
    }
    return report(fn, st);
  }
  uint64_t ticket = c->takeTicket();
  std::string name = fn;
  s->enqueue([c, ticket, name, work = std::move(work)]() -> Status {
    c->waitTurn(ticket);
    Status st;
    try {
      st = work();
    } catch (const std::exception &e) {
      st = Status(HCCL_E_INTERNAL, std::string("internal error: ") + e.what());
    }
    c->endTurn();
    if (!st.isOk()) {
      HCCL_LOG(Error, name + " (stream): " + st.message());
      return Status(st.code(), name + ": " + st.message());
    }
    return st;
  });
  return HCCL_SUCCESS;
}

} // namespace hccl::rt::capi
