//===- WaitPolicy.h - How the executor waits for a step ---------*- C++ -*-===//
//
// With a core per rank a peer is usually microseconds away and a futex
// wake-up costs far more (tens to hundreds of microseconds on a VM), so the
// executor spins for a while: up to a millisecond when its pairs need its
// own progress calls (tcp), 120 us otherwise. When the host has no core to
// spare (more local ranks than cores, or more runnable threads than cores
// right now: common/HostLoad.h) spinning steals the core the peer needs,
// and a yield hands a whole time slice to whatever else runs: the executor
// spins 20 us at most (0 when its own ranks oversubscribe the host) and
// then sleeps on the communicator's doorbell, where the kernel's wake-up
// preemption brings it back fastest. There is no yield phase: on an idle
// host a yield returns at once (a spin), on a busy one it cost 3-43 ms a
// call (docs/performance.md, "Waiting on a busy host").
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_WAITPOLICY_H
#define HCCL_RUNTIME_CORE_WAITPOLICY_H

#include "common/Futex.h"

#include <algorithm>
#include <cstdint>
#include <thread>

namespace hccl::rt {

class WaitPolicy {
public:
  enum class Action { Spin, Sleep };

  /// More ranks of the communicator on this host than it has cores.
  static bool oversubscribed(int localRanks) {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(localRanks) > hw;
  }

  /// `callerMoves`: a pair of the step moves data only in progress() calls
  /// (tcp: the waiting executor does its socket I/O itself). `hostBusy`:
  /// more runnable threads than cores now (hostBusy() in common/HostLoad.h).
  WaitPolicy(bool oversubscribed, bool callerMoves, bool hostBusy)
      : spinUs_(spinBudgetUs(oversubscribed, callerMoves, hostBusy)) {}

  static int64_t spinBudgetUs(bool oversubscribed, bool callerMoves,
                              bool hostBusy) {
    if (oversubscribed)
      return 0;
    if (hostBusy)
      return 20;
    return callerMoves ? 1000 : 120;
  }

  /// What to do after `idleUs` microseconds without progress.
  Action next(int64_t idleUs) const {
    return idleUs < spinUs_ ? Action::Spin : Action::Sleep;
  }

  /// One round of spinning: a few pause instructions.
  static void spin() {
    for (int i = 0; i < 16; ++i)
      cpuRelax();
  }

private:
  int64_t spinUs_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_WAITPOLICY_H
