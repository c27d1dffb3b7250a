//===- Config.cpp - Loading and validating HCCL_* variables ---------------===//
//
// One table row per variable: its name and a parser that either stores the
// value in the Config or returns what was expected. Ranges and defaults are
// HCCL's; docs/env-vars.md lists them and must list the same.
//
//===----------------------------------------------------------------------===//
#include "config/Config.h"
#include "EnvParse.h"
#include "config/ReadFile.h"

#include <cctype>
#include <cstring>
#include <sstream>

namespace hccl::rt {
namespace {

using Parser = std::string (*)(std::string_view value, Config &c);

/// Parses an unsigned integer in [lo, hi] into *out; else returns
/// "expected <what>".
template <typename T>
std::string intInRange(std::string_view v, uint64_t lo, uint64_t hi, T *out,
                       const std::string &what) {
  std::optional<uint64_t> n = env::parseUnsigned(v);
  if (!n || *n < lo || *n > hi)
    return "expected " + what;
  *out = static_cast<T>(*n);
  return "";
}

// HCCL_BUFFSIZE has no upper bound in HCCL; ours keeps 2 x size in bytes far
// from overflow and is beyond any host (1 TiB per buffer).
constexpr uint64_t kMaxBuffSizeMB = 1u << 20;

std::string parseBuffSize(std::string_view v, Config &c) {
  std::optional<uint64_t> n = env::parseUnsigned(v);
  if (!n || *n < 1)
    return "expected an integer >= 1 (MB), default 200";
  if (*n > kMaxBuffSizeMB)
    return "expected an integer >= 1 (MB) and at most " +
           std::to_string(kMaxBuffSizeMB) + ", default 200";
  c.buffSizeMB = *n;
  return "";
}

std::string parseAlgo(std::string_view v, Config &c) {
  return setHcclAlgo(v, "HCCL_ALGO", c);
}

// A table is a few entries per collective and size band; anything near
// this is not one.
constexpr size_t kMaxAlgoTableBytes = 16u << 20;

std::string parseAlgoTableFile(std::string_view v, Config &c) {
  if (v.empty() || v.size() > 4096)
    return "expected a file path (1..4096 characters)";
  std::string path(v);
  // Bounded, and never blocks on a FIFO or device (as HCCL_WHITELIST_FILE).
  StatusOr<std::string> read = readPrivateFile(path, kMaxAlgoTableBytes,
                                               /*requirePrivate=*/false);
  if (!read.isOk())
    return read.status().message();
  const std::string &text = *read;
  auto table = sched::parseAlgoTable(text);
  if (!table)
    return table.message();
  c.algoTableFile = path;
  c.algoTable = std::make_shared<const sched::AlgoTable>(std::move(*table));
  std::ostringstream digest;
  digest << std::hex << std::hash<std::string>{}(text) << "/" << text.size();
  c.algoTableDigest = digest.str();
  return "";
}

std::string parseConnectTimeout(std::string_view v, Config &c) {
  uint64_t s = 0;
  std::string err =
      intInRange(v, 120, 7200, &s, "an integer in 120..7200 (s), default 120");
  if (err.empty())
    c.connectTimeoutMs = s * 1000;
  return err;
}

std::string parseConnectTimeoutMs(std::string_view v, Config &c) {
  return intInRange(v, 1, 7200000, &c.connectTimeoutMs,
                    "an integer in 1..7200000 (ms)");
}

// HCCL_EXEC_TIMEOUT: whole seconds in 0..2^31-1 (0 = never), and on A3 /
// A2 in AIV mode with ten-millisecond precision ("0.05"). The executor
// counts whole seconds, so a fraction is rounded up, with a warning.
std::string parseExecTimeout(std::string_view v, Config &c) {
  const std::string want =
      "expected seconds in 0..2147483647 (0 = never, decimals allowed), "
      "default 1836";
  size_t dot = v.find('.');
  std::optional<uint64_t> whole = env::parseUnsigned(
      v.substr(0, dot == std::string_view::npos ? v.size() : dot));
  if (!whole || *whole > 2147483647u)
    return want;
  uint64_t s = *whole;
  if (dot != std::string_view::npos) {
    std::string_view frac = v.substr(dot + 1);
    std::optional<uint64_t> f = env::parseUnsigned(frac);
    if (!f || frac.size() > 9)
      return want;
    if (*f != 0) {
      if (s == 2147483647u)
        return want;
      ++s;
      c.warnings.push_back("HCCL_EXEC_TIMEOUT=" + std::string(v) +
                           ": the host runtime counts whole seconds; using " +
                           std::to_string(s) + " s");
    }
  }
  c.execTimeoutSec = s;
  return "";
}

std::string parseDeterministic(std::string_view v, Config &c) {
  std::string l = env::lower(v);
  if (l == "false")
    c.deterministic = Deterministic::False;
  else if (l == "true")
    c.deterministic = Deterministic::True;
  else if (l == "strict")
    c.deterministic = Deterministic::Strict;
  else
    return "expected false, true or strict, default false";
  return "";
}

std::string parseSocketIfname(std::string_view v, Config &c) {
  std::string why = env::checkIfnameSpec(v);
  if (!why.empty())
    return why + " (expected e.g. eth,enp | ^docker,lo | =eth0 | ^=eth0)";
  c.socketIfname = std::string(v);
  return "";
}

std::string parseIfIp(std::string_view v, Config &c) {
  if (!env::isIpLiteral(v))
    return "expected an IPv4 or IPv6 address";
  c.ifIp = std::string(v);
  return "";
}

std::string parseBasePort(std::string_view v, Config &c) {
  return intInRange(v, 1024, 65520, &c.ifBasePort,
                    "an integer in 1024..65520, default 60000");
}

/// A 0/1 switch; `expected` is the message for anything else.
std::string zeroOrOne(std::string_view v, bool *out, const char *expected) {
  if (v != "0" && v != "1")
    return expected;
  *out = v == "1";
  return "";
}

std::string parseWhitelistDisable(std::string_view v, Config &c) {
  return zeroOrOne(v, &c.whitelistDisable, "expected 0 or 1, default 1");
}

std::string parseWhitelistFile(std::string_view v, Config &c) {
  if (v.size() > 4096)
    return "expected a file path (at most 4096 characters)";
  c.whitelistFile = std::string(v);
  return "";
}

std::string parseRdmaTc(std::string_view v, Config &c) {
  uint32_t tc = 0;
  std::string err =
      intInRange(v, 0, 255, &tc, "a multiple of 4 in 0..255, default 132");
  if (err.empty() && tc % 4 != 0)
    return "expected a multiple of 4 in 0..255, default 132";
  if (err.empty())
    c.rdmaTrafficClass = tc;
  return err;
}

std::string parseRdmaSl(std::string_view v, Config &c) {
  return intInRange(v, 0, 7, &c.rdmaServiceLevel,
                    "an integer in 0..7, default 4");
}

std::string parseRdmaTimeout(std::string_view v, Config &c) {
  // HCCL's widest range (Atlas training / inference series); A2 and A3
  // stop at 20. Verbs takes any exponent up to 31.
  return intInRange(v, 5, 24, &c.rdmaTimeout,
                    "an integer in 5..24, default 20");
}

std::string parseRdmaRetryCnt(std::string_view v, Config &c) {
  return intInRange(v, 1, 7, &c.rdmaRetryCnt, "an integer in 1..7, default 7");
}

std::string parseRdmaQps(std::string_view v, Config &c) {
  return intInRange(v, 1, 32, &c.rdmaQpsPerConnection,
                    "an integer in 1..32, default 1");
}

std::string parseGidIndex(std::string_view v, Config &c) {
  uint32_t g = 0;
  std::string err =
      intInRange(v, 0, 255, &g, "an integer in 0..255 (default: automatic)");
  if (err.empty())
    c.rdmaGidIndex = g;
  return err;
}

std::string parseIbLib(std::string_view v, Config &c) {
  c.ibLib = std::string(v);
  return "";
}

// Device names as rdma-core reports them, with an optional ":port".
std::string parseIbHca(std::string_view v, Config &c) {
  const std::string want =
      " (expected e.g. mlx5_0:1,mlx5_1 | ^mlx5_2 | =mlx5_0)";
  std::string_view s = v;
  if (!s.empty() && s[0] == '^')
    s.remove_prefix(1);
  if (!s.empty() && s[0] == '=')
    s.remove_prefix(1);
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    std::string_view item =
        s.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                        : comma - start);
    size_t colon = item.find(':');
    std::string_view name = item.substr(0, colon);
    if (name.empty() || name.size() > 63)
      return "empty or over-long device name" + want;
    for (char ch : name)
      if (!(isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' ||
            ch == '.'))
        return "'" + std::string(name) + "' is not a device name" + want;
    if (colon != std::string_view::npos) {
      std::optional<uint64_t> port = env::parseUnsigned(item.substr(colon + 1));
      if (!port || *port < 1 || *port > 255)
        return "'" + std::string(item) + "': the port must be 1..255" + want;
    }
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  c.ibHca = std::string(v);
  return "";
}

std::string parseLogLevel(std::string_view v, Config &c) {
  std::string l = env::lower(v);
  if (l == "error")
    c.logLevel = LogLevel::Error;
  else if (l == "warn" || l == "warning")
    c.logLevel = LogLevel::Warn;
  else if (l == "info")
    c.logLevel = LogLevel::Info;
  else if (l == "debug")
    c.logLevel = LogLevel::Debug;
  else
    return "expected error, warn, info or debug, default warn";
  return "";
}

std::string parsePlanTrusted(std::string_view v, Config &c) {
  return zeroOrOne(
      v, &c.planTrusted,
      "expected 0 or 1 (1: load plans without proving them), default 0");
}

std::string parseTransport(std::string_view v, Config &c) {
  std::string l = env::lower(v);
  if (l == "auto")
    c.transport = TransportKind::Auto;
  else if (l == "shm")
    c.transport = TransportKind::Shm;
  else if (l == "tcp")
    c.transport = TransportKind::Tcp;
  else if (l == "verbs")
    c.transport = TransportKind::Verbs;
  else
    return "expected auto, shm, tcp or verbs, default auto";
  return "";
}

struct Variable {
  const char *name;
  Parser parse;
};

const Variable kVariables[] = {
    {"HCCL_BUFFSIZE", parseBuffSize},
    {"HCCL_ALGO", parseAlgo},
    {"HCCL_ALGO_TABLE", parseAlgoTableFile},
    {"HCCL_CONNECT_TIMEOUT", parseConnectTimeout},
    {"HCCL_CONNECT_TIMEOUT_MS", parseConnectTimeoutMs},
    {"HCCL_EXEC_TIMEOUT", parseExecTimeout},
    {"HCCL_DETERMINISTIC", parseDeterministic},
    {"HCCL_SOCKET_IFNAME", parseSocketIfname},
    {"HCCL_IF_IP", parseIfIp},
    {"HCCL_IF_BASE_PORT", parseBasePort},
    {"HCCL_WHITELIST_DISABLE", parseWhitelistDisable},
    {"HCCL_WHITELIST_FILE", parseWhitelistFile},
    {"HCCL_RDMA_TC", parseRdmaTc},
    {"HCCL_RDMA_SL", parseRdmaSl},
    {"HCCL_RDMA_TIMEOUT", parseRdmaTimeout},
    {"HCCL_RDMA_RETRY_CNT", parseRdmaRetryCnt},
    {"HCCL_RDMA_QPS_PER_CONNECTION", parseRdmaQps},
    {"HCCL_RDMA_GID_INDEX", parseGidIndex},
    {"HCCL_IB_LIB", parseIbLib},
    {"HCCL_IB_HCA", parseIbHca},
    {"HCCL_LOG_LEVEL", parseLogLevel},
    {"HCCL_TRANSPORT", parseTransport},
    {"HCCL_PLAN_TRUSTED", parsePlanTrusted},
};

/// The value as shown in an error: control characters escaped, long values
/// cut in the middle (a path keeps its file name), so the message stays one
/// readable line.
std::string shown(std::string_view v) {
  static const char *hex = "0123456789abcdef";
  auto escaped = [](std::string_view part) {
    std::string out;
    for (char ch : part) {
      unsigned char u = static_cast<unsigned char>(ch);
      if (u < 0x20 || u == 0x7f) {
        out += "\\x";
        out += hex[u >> 4];
        out += hex[u & 15];
      } else {
        out += ch;
      }
    }
    return out;
  };
  constexpr size_t kHead = 40, kTail = 24;
  if (v.size() <= kHead + kTail)
    return escaped(v);
  return escaped(v.substr(0, kHead)) + "..." +
         escaped(v.substr(v.size() - kTail));
}

} // namespace

sched::Result<Config>
loadConfig(const std::function<const char *(const char *)> &getenv) {
  Config c;
  std::string errors;
  for (const Variable &var : kVariables) {
    const char *raw = getenv(var.name);
    if (!raw || !*raw)
      continue;
    std::string err = var.parse(raw, c);
    if (!err.empty()) {
      if (!errors.empty())
        errors += "; ";
      errors += std::string(var.name) + "=" + shown(raw) + ": " + err;
    }
  }
  const char *s = getenv("HCCL_CONNECT_TIMEOUT");
  const char *ms = getenv("HCCL_CONNECT_TIMEOUT_MS");
  if (s && *s && ms && *ms) {
    if (!errors.empty())
      errors += "; ";
    errors += "HCCL_CONNECT_TIMEOUT and HCCL_CONNECT_TIMEOUT_MS are both "
              "set: set only one";
  }
  if (!errors.empty())
    return sched::Result<Config>::error(errors);
  if (!c.whitelistDisable && c.whitelistFile.empty())
    return sched::Result<Config>::error(
        "HCCL_WHITELIST_DISABLE=0 enables the whitelist: set "
        "HCCL_WHITELIST_FILE to the file that lists the allowed host_ip "
        "addresses");
  return c;
}

const char *deterministicName(Deterministic d) {
  switch (d) {
  case Deterministic::False:
    return "false";
  case Deterministic::True:
    return "true";
  case Deterministic::Strict:
    return "strict";
  }
  return "invalid";
}

const char *transportKindName(TransportKind t) {
  switch (t) {
  case TransportKind::Auto:
    return "auto";
  case TransportKind::Shm:
    return "shm";
  case TransportKind::Tcp:
    return "tcp";
  case TransportKind::Verbs:
    return "verbs";
  }
  return "invalid";
}

const char *logLevelName(LogLevel l) {
  switch (l) {
  case LogLevel::Error:
    return "error";
  case LogLevel::Warn:
    return "warn";
  case LogLevel::Info:
    return "info";
  case LogLevel::Debug:
    return "debug";
  }
  return "invalid";
}

std::string formatConfig(const Config &c) {
  std::ostringstream os;
  os << "HCCL_BUFFSIZE=" << c.buffSizeMB
     << " HCCL_ALGO=" << (c.algo.empty() ? "auto" : c.algo)
     << " HCCL_ALGO_TABLE="
     << (c.algoTableFile.empty() ? "none" : c.algoTableFile)
     << " HCCL_CONNECT_TIMEOUT_MS=" << c.connectTimeoutMs
     << " HCCL_EXEC_TIMEOUT=" << c.execTimeoutSec
     << " HCCL_DETERMINISTIC=" << deterministicName(c.deterministic)
     << " HCCL_SOCKET_IFNAME="
     << (c.socketIfname.empty() ? "any" : c.socketIfname)
     << " HCCL_IF_IP=" << (c.ifIp.empty() ? "auto" : c.ifIp)
     << " HCCL_IF_BASE_PORT=" << c.ifBasePort
     << " HCCL_WHITELIST_DISABLE=" << (c.whitelistDisable ? 1 : 0)
     << " HCCL_WHITELIST_FILE="
     << (c.whitelistFile.empty() ? "none" : c.whitelistFile)
     << " HCCL_RDMA_TC=" << c.rdmaTrafficClass
     << " HCCL_RDMA_SL=" << c.rdmaServiceLevel
     << " HCCL_RDMA_TIMEOUT=" << c.rdmaTimeout
     << " HCCL_RDMA_RETRY_CNT=" << c.rdmaRetryCnt
     << " HCCL_RDMA_QPS_PER_CONNECTION=" << c.rdmaQpsPerConnection
     << " HCCL_RDMA_GID_INDEX="
     << (c.rdmaGidIndex ? std::to_string(*c.rdmaGidIndex) : "auto")
     << " HCCL_IB_LIB=" << (c.ibLib.empty() ? "libibverbs.so.1" : c.ibLib)
     << " HCCL_IB_HCA=" << (c.ibHca.empty() ? "any" : c.ibHca)
     << " HCCL_LOG_LEVEL=" << logLevelName(c.logLevel)
     << " HCCL_TRANSPORT=" << transportKindName(c.transport)
     << " HCCL_PLAN_TRUSTED=" << (c.planTrusted ? 1 : 0);
  return os.str();
}

const std::vector<std::string> &configVariableNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Variable &var : kVariables)
      v.emplace_back(var.name);
    return v;
  }();
  return names;
}

std::vector<std::string> unknownHcclVariables(const char *const *envp) {
  // Variables the runtime reads elsewhere (bootstrap) are known too.
  static const char *const kOther[] = {"HCCL_ROOT_INFO_FILE",
                                       "HCCL_FAKE_HOST_ID", "HCCL_JOB_SECRET",
                                       "HCCL_JOB_SECRET_FILE"};
  std::vector<std::string> unknown;
  for (; envp && *envp; ++envp) {
    std::string_view entry(*envp);
    if (entry.substr(0, 5) != "HCCL_")
      continue;
    std::string name(entry.substr(0, entry.find('=')));
    bool known = false;
    for (const Variable &var : kVariables)
      known = known || name == var.name;
    for (const char *o : kOther)
      known = known || name == o;
    if (!known)
      unknown.push_back(name);
  }
  return unknown;
}

} // namespace hccl::rt
