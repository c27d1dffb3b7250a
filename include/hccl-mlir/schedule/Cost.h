//===- Cost.h - Alpha-beta-gamma cost model ---------------------*- C++ -*-===//
//
// Prices a program on a topology, step by step: on each rank, transfers are
// grouped by link class (the peer's global rank decides it) and direction; a
// class with `ports` ports carries that many transfers at once and more
// share them (contention, longest-first onto the least loaded port). A step
// costs max over ranks of (max over classes of alpha + bytes*beta on the
// busiest port) + gamma * bytes reduced; with k slices, transfer and
// reduction pipeline: k*alpha + max(X, G) + min(X, G)/k. Program = sum,
// plus a fixed per-collective overhead (Topology::collectiveOverheadUs).
//
// Closed forms give the same figures without generating a program (for
// selection and bucket sizing); tests hold both to the textbook costs of
// docs/design.md.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_COST_H
#define HCCL_MLIR_SCHEDULE_COST_H

#include "hccl-mlir/schedule/Program.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Topology.h"
#include "hccl-mlir/schedule/Types.h"

#include <cstdint>
#include <vector>

namespace hccl::sched {

struct CostOptions {
  /// Group-local rank -> global rank in the topology; empty = identity.
  std::vector<int64_t> groupRanks;
  /// Price only these ranks (empty = all); the step time is the max over
  /// them. Useful for very large p. On a link where the receiver copies a
  /// rank that only sends costs nothing: sample receivers too.
  std::vector<int64_t> ranks;
  /// Work budget in rank-steps evaluated; beyond it predictCost fails
  /// (price fewer `ranks`, or use closedFormCost).
  int64_t maxRankSteps = 200'000'000;
};

struct ProgramCost {
  /// The steps plus, for p > 1, the topology's per-collective overhead.
  double seconds = 0;
  std::vector<double> stepSeconds;
  int64_t steps = 0;
  int64_t rounds = 0; ///< steps that move data between ranks
};

/// Predicted time of a program; errors if it does not expand or a peer
/// maps outside the topology.
Result<ProgramCost> predictCost(const Program &prog, const Topology &topo,
                                const CostOptions &opts = {});

/// Cost of one step on one rank (seconds) from its op instances: the
/// building block of predictCost, exposed for the simulator.
double stepCost(const std::vector<ConcreteOp> &ops, int64_t globalRank,
                const std::vector<int64_t> &peerGlobal, size_t elemBytes,
                int64_t slices, const Topology &topo);

struct ClosedFormRequest {
  Collective collective = Collective::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  double bytes = 0; ///< as HCCL counts: per-rank buffer of n elements
  int64_t p = 1;
  /// Hierarchical: ranks per server (0 = topology's) and the levels.
  int64_t ranksPerServer = 0;
  Algorithm level0 = Algorithm::Ring;
  Algorithm level1 = Algorithm::Ring;
  int64_t slices = 1;
  /// Element size (for the pipeline chunk count of ring broadcast/reduce,
  /// which the generator derives from the element count).
  double elemBytes = 4;
  int64_t chunks = 0; ///< as GenerateRequest::chunks
  /// Pieces per block (the rows of a block layout: GenerateRequest's
  /// inputOuter / outputOuter, the larger for all-to-all): every message
  /// of the leading layout goes as this many, each paying the latency;
  /// hierarchical algorithms cannot serve pieces > 1.
  int64_t pieces = 1;
  /// Super pods the group spans (Placement); 0: as many as its servers
  /// span counted from server 0. One pod: servers talk over the scale-up
  /// bus.
  int64_t pods = 0;
  /// Hierarchical split at the super pod (ranksPerServer = ranks per pod):
  /// level 0 inside a pod over its bus, level 1 between pods.
  bool podSplit = false;
};

/// Textbook alpha-beta-gamma time for the request, or an error when the
/// algorithm cannot serve it. For a flat algorithm on several servers the
/// slowest link class it crosses is used. For p > 1 it includes the
/// topology's per-collective overhead (as predictCost does) and its caches'
/// knee (Topology::pastCacheScale on the part that grows with bytes;
/// predictCost, which prices each step's messages, has no knee).
Result<double> closedFormCost(const ClosedFormRequest &req,
                              const Topology &topo);

/// The message size nccl-tests reports for a collective whose HCCL count
/// is n elements: n*e for all-reduce, broadcast and reduce, p*n*e for
/// all-gather (output), reduce-scatter (input) and all-to-all.
double ncclTestBytes(Collective c, double countBytes, int64_t p);
/// algbw = bytes / time (bytes as ncclTestBytes); busbw as nccl-tests
/// defines it (all-reduce: algbw * 2(p-1)/p; all-gather, reduce-scatter,
/// all-to-all: algbw * (p-1)/p; broadcast, reduce: algbw). GB/s = 1e9 B/s.
double algBandwidthGBps(double bytes, double seconds);
double busBandwidthGBps(Collective c, double bytes, double seconds, int64_t p);

/// The time of one step from its figures, the formula predictCost uses:
/// with k slices, k*msgs*alpha + max(X, G) + min(X, G)/k, where X =
/// bytes*beta on the busiest port and G = gamma*reducedBytes.
double stepTime(int64_t msgs, double portBytes, double reducedBytes,
                const LinkParams &link, double gamma, int64_t slices);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_COST_H
