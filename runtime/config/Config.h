//===- Config.h - HCCL_* environment variables of the runtime ---*- C++ -*-===//
//
// Every environment variable the runtime reads is parsed and validated here,
// once, into a Config. Meanings, ranges and defaults follow HCCL where HCCL
// defines the variable (docs/env-vars.md is the user-facing list). An invalid
// value is an error naming the variable, the value and what is accepted; the
// C API turns it into HCCL_E_PARA at init. A set-but-empty variable counts as
// unset (as `VAR= cmd` conventionally means).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CONFIG_CONFIG_H
#define HCCL_RUNTIME_CONFIG_CONFIG_H

#include "common/Log.h"
#include "hccl-mlir/schedule/AlgoTable.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Select.h"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hccl::rt {

/// HCCL_DETERMINISTIC: false | true | strict, as HCCL defines them: true
/// makes reductions bit-identical on every rank and from run to run; strict
/// ("order-preserving") also fixes the order in which contributions are
/// combined, whatever the algorithm. The executor implements both.
enum class Deterministic : int { False = 0, True = 1, Strict = 2 };

/// HCCL_TRANSPORT (ours): force one transport for every link, for tests.
enum class TransportKind : int { Auto = 0, Shm = 1, Tcp = 2, Verbs = 3 };

struct Config {
  /// HCCL_BUFFSIZE: MB per communication buffer (a communicator holds two).
  uint64_t buffSizeMB = 200;
  /// HCCL_ALGO as given ("" = automatic selection).
  std::string algo;
  /// HCCL_ALGO parsed by lib/schedule (set when `algo` is non-empty).
  std::optional<sched::HcclAlgoSpec> algoSpec;
  /// HCCL_CONNECT_TIMEOUT (s, 120..7200) or HCCL_CONNECT_TIMEOUT_MS (ours,
  /// for tests), as milliseconds.
  uint64_t connectTimeoutMs = 120 * 1000;
  /// HCCL_EXEC_TIMEOUT: seconds a collective may wait on a peer; 0 = never.
  uint64_t execTimeoutSec = 1836;
  Deterministic deterministic = Deterministic::False;
  /// HCCL_SOCKET_IFNAME, validated ("" = any interface); matched by
  /// common/Socket.h's ifnameMatches.
  std::string socketIfname;
  /// HCCL_IF_IP: an IPv4 or IPv6 literal ("" = choose from interfaces).
  std::string ifIp;
  /// HCCL_IF_BASE_PORT: first port of the range this process listens on.
  uint32_t ifBasePort = 60000;
  /// HCCL_WHITELIST_DISABLE: 1 (default) = no whitelist; 0 = listeners
  /// accept connections only from the host_ip addresses of
  /// HCCL_WHITELIST_FILE (runtime/bootstrap/Whitelist.h).
  bool whitelistDisable = true;
  /// HCCL_WHITELIST_FILE: the whitelist's path (read when enabled).
  std::string whitelistFile;
  /// RoCE settings (verbs transport): traffic class, service level, ack
  /// timeout exponent, retry count, queue pairs per connection.
  uint32_t rdmaTrafficClass = 132;
  uint32_t rdmaServiceLevel = 4;
  uint32_t rdmaTimeout = 20;
  uint32_t rdmaRetryCnt = 7;
  uint32_t rdmaQpsPerConnection = 1;
  /// HCCL_RDMA_GID_INDEX: GID table index; nullopt = choose automatically.
  std::optional<uint32_t> rdmaGidIndex;
  /// HCCL_IB_LIB: libibverbs to dlopen ("" = "libibverbs.so.1").
  std::string ibLib;
  /// HCCL_IB_HCA: RDMA devices/ports the verbs transport may use, e.g.
  /// "mlx5_0:1,mlx5_1", "^mlx5_2", "=mlx5_0" ("" = any).
  std::string ibHca;
  /// HCCL_LOG_LEVEL (ours): error | warn | info | debug.
  LogLevel logLevel = LogLevel::Warn;
  /// HCCL_TRANSPORT (ours): auto | shm | tcp | verbs.
  TransportKind transport = TransportKind::Auto;
  /// HCCL_ALGO_TABLE (ours): an algorithm table (docs/plan-format.md,
  /// "Algorithm tables"), e.g. measured on this host by
  /// tools/tune/measure_table.py; read and checked when the variable is.
  std::string algoTableFile;
  std::shared_ptr<const sched::AlgoTable> algoTable;
  /// A digest of the table's bytes: ranks compare it at init.
  std::string algoTableDigest;
  /// HCCL_PLAN_TRUSTED (ours): 1 = HcclPlanLoad skips the proof of the
  /// plan's programs (for plans proven before, e.g. by hccl-plan verify).
  bool planTrusted = false;

  /// Accepted values the runtime cannot honour or maps, one line each
  /// (HCCL_ALGO parts, fractional HCCL_EXEC_TIMEOUT, ...); the C API logs
  /// each once per process at init.
  std::vector<std::string> warnings;

  uint64_t buffSizeBytes() const { return buffSizeMB << 20; }
};

/// Reads and validates every variable through `getenv`. On any invalid
/// value, the error lists each offending variable ("HCCL_BUFFSIZE=abc:
/// expected an integer >= 1 (MB), default 200"), joined by "; ".
sched::Result<Config>
loadConfig(const std::function<const char *(const char *)> &getenv = ::getenv);

/// Parses an HCCL_ALGO value as HCCL accepts it (HcclAlgo.cpp) into
/// c.algo / c.algoSpec: parts without an equivalent here are dropped with a
/// line in c.warnings naming `source`; "" or what was expected.
std::string setHcclAlgo(std::string_view value, const std::string &source,
                        Config &c);

/// One line "HCCL_BUFFSIZE=200 HCCL_ALGO=... ..." with every effective value,
/// for debug logs and tools.
std::string formatConfig(const Config &c);

const char *deterministicName(Deterministic d);
const char *transportKindName(TransportKind t);
const char *logLevelName(LogLevel l);

/// Names of every variable loadConfig reads.
const std::vector<std::string> &configVariableNames();

/// The HCCL_* entries of `envp` ("NAME=value" strings, like environ) that
/// this runtime does not read, e.g. typos such as HCCL_BUFSIZE or HCCL
/// variables for NPUs. Callers log them as warnings.
std::vector<std::string> unknownHcclVariables(const char *const *envp);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CONFIG_CONFIG_H
