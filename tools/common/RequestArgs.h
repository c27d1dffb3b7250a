//===- RequestArgs.h - Command lines that name a collective -----*- C++ -*-===//
//
// The `--key value` parser and the collective request (collective, algo,
// ranks, count, dtype, topology, ...) of hccl-plan, shared with hccl-sim so
// both tools read a collective and a topology the same way. Bad input is
// thrown as BadInput (a one-line message); the tool's main() catches it and
// exits 2. MLIR-free: links lib/schedule only.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMON_REQUESTARGS_H
#define HCCL_TOOLS_COMMON_REQUESTARGS_H

#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Select.h"
#include "hccl-mlir/schedule/Topology.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hccl::tools {

struct BadInput {
  std::string msg;
};
[[noreturn]] void bad(const std::string &msg);
/// Newlines of a multi-line message replaced by spaces.
std::string oneLine(std::string s);

/// --key value (or --key=value) options, flags and positional arguments.
struct Args {
  std::map<std::string, std::string> opts;
  std::set<std::string> flags;
  std::vector<std::string> positional;

  bool has(const std::string &k) const { return opts.count(k) != 0; }
  std::string get(const std::string &k, const std::string &def = "") const;
  std::string need(const std::string &k) const;
};
/// Parses argv[first..]; `-o` is `--output`. Unknown options, missing
/// values and repeated options are bad input.
Args parseArgs(int argc, char **argv, int first,
               const std::set<std::string> &valued,
               const std::set<std::string> &flagNames);

/// An integer option (K/M/G suffixes accepted) within lo..hi, or `def`.
int64_t intArg(const Args &a, const std::string &key, int64_t def, int64_t lo,
               int64_t hi);
/// A positive real option (e.g. 0.25), or `def`.
double realArg(const Args &a, const std::string &key, double def, double lo,
               double hi);
std::string readFile(const std::string &path);

sched::Collective collectiveArg(const Args &a);
sched::Algorithm algorithmArg(const std::string &key, const std::string &s);
std::string algoLabel(sched::Algorithm a, sched::Algorithm l0,
                      sched::Algorithm l1);

/// The topology of --topology / --rank-table / --link-params, or (neither
/// given) enough 910B servers for p ranks.
sched::Topology topologyArg(const Args &a, int64_t p, bool *given = nullptr);

/// A collective as hccl-plan generate / cost read it.
struct Request {
  sched::GenerateRequest gen;
  sched::Topology topo;
  std::string topoLabel; ///< what a report calls the topology
  bool topoGiven = false;
  std::optional<sched::HcclAlgoSpec> spec;
};
/// Options: collective ranks count dtype op root slices chunks
/// ranks-per-server level0 level1 hccl-algo topology rank-table link-params,
/// targets (permute: T0,T1,... one per rank, -1 for none; default the shift
/// r -> r+1 mod p), input-outer output-outer (block layouts)
/// (the algorithm itself is the caller's: see resolveAlgorithm).
Request requestArgs(const Args &a);
/// The lib/schedule selection for the request (bad input on failure).
sched::Selection selectFor(const Request &q);
/// Sets q.gen's algorithm from --algo (a name, or `auto` = selectFor);
/// --hccl-algo alone means auto.
void resolveAlgorithm(const Args &a, Request &q);

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMON_REQUESTARGS_H
