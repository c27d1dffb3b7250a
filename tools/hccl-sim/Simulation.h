//===- Simulation.h - A plan run on a simulated cluster ---------*- C++ -*-===//
//
// One SimGrid simulation of a plan (a schedule of compute items, collective
// starts and waits; or programs only, run one after another): an actor per
// rank of the schedule walks its items (compute = a delay of the plan's
// predicted cost), a start queues the collective on one of the rank's
// communication streams (actors that run theirs one after another, as
// hccl-run's host streams do; StepExecutor) and the matching wait waits
// for it to finish. Figures as hccl-run's: per collective the slowest
// member's time from when it began running (left its stream's queue) to
// its end, per iteration the slowest rank's time, compute, communication
// (union of its collectives' spans from their starts) and exposed
// communication (iteration - compute).
//
// SimGrid's engine is a process-wide singleton: simulate() once per process.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_SIM_SIMULATION_H
#define HCCL_SIM_SIMULATION_H

#include "ChromeTrace.h"
#include "Faults.h"
#include "Platform.h"

#include "hccl-mlir/schedule/Plan.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Topology.h"

#include <string>
#include <vector>

namespace hccl::sim {

/// Stack size (KiB) of actors that run without guard pages: beyond the
/// process's mapping limit (simulate()).
constexpr int kUnguardedStackKiB = 64;

struct SimOptions {
  FabricOptions fabric;
  std::vector<LinkFault> faults;
  /// HCCL's rail borrowing for the one failed NIC (Platform.h).
  bool borrowNic = false;
  /// Communication streams per rank (hccl-run --streams): started
  /// collectives go round-robin onto them and each runs its own one after
  /// another; 0: every started collective runs at once.
  int streams = 1;
  /// --streams group: one stream per communicator (the program's groups),
  /// as the compiler's timeline and overlap scheduling assume.
  bool streamPerGroup = false;
  std::vector<Jitter> jitters;
  uint64_t seed = 1;        ///< of the jitter draws
  std::string platformPath; ///< --write-platform: keep the platform file
  bool trace = false;       ///< collect trace events
  /// Mappings the process may hold (0: the kernel's vm.max_map_count).
  int64_t maxMapCount = 0;
};

struct CollectiveResult {
  int64_t id = 0;
  const sched::PlanProgram *program = nullptr;
  double seconds = 0;  ///< slowest member, from leaving its stream's queue
                       ///< to its end
  double modelSeconds; ///< lib/schedule's predictCost (NaN: not priced)
};

struct SimResult {
  std::vector<CollectiveResult> collectives;
  bool scheduled = false; ///< the plan had schedule items
  /// Actors alive at once when that was beyond the kernel's mapping limit
  /// with guarded stacks (they then ran without guard pages); 0 otherwise.
  int64_t unguardedStacks = 0;
  /// Unguarded because of --borrow-nic's watcher actors.
  bool unguardedForBorrowing = false;
  /// Slowest rank's figures of the iteration (us).
  double iterationUs = 0, computeUs = 0, commUs = 0, exposedUs = 0;
  int64_t ranks = 0, transfers = 0, steps = 0;
  std::string platformSummary;
  std::vector<std::vector<tools::TraceEvent>> trace; ///< per global rank
};

/// Simulates `plan` on `topo`. Errors (bad plan for this topology, a
/// platform option, a failed link the plan crosses) name the cause.
sched::Result<SimResult> simulate(const sched::Plan &plan,
                                  const sched::Topology &topo,
                                  const SimOptions &opts);

} // namespace hccl::sim

#endif // HCCL_SIM_SIMULATION_H
