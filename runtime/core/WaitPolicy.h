//===- WaitPolicy.h - How the executor waits for a step ---------*- C++ -*-===//
//
// With a core per rank a peer is usually microseconds away and a futex
// wake-up costs far more (tens to hundreds of microseconds on a VM, and two
// sleeping ranks keep waking each other late), so the executor spins for up
// to a millisecond when its pairs need its own progress calls (20 us
// otherwise), yielding now and then, yields a while longer and then sleeps
// on the communicator's doorbell. The yields matter on an idle host: a
// rank's executor and its caller's synchronize poll share cores, and a
// yield hands the core to the other one at once (a 2-rank 4 KB all-reduce
// took 4-5 us with them, 7-55 us without). On an oversubscribed host (more
// local ranks than cores) spinning only steals a peer's core: it yields
// briefly and sleeps. On a busy host (more runnable threads than the cores
// and the job's own threads: common/HostLoad.h) a yield hands a whole time
// slice to another job, so the executor spins 20 us without yielding and
// sleeps, where the kernel's wake-up preemption brings it back fastest
// (docs/performance.md, "Waiting on a busy host"). Whatever the policy says,
// a waiter whose shared-memory peer last ran on the waiter's own CPU steps
// off to another CPU if it is the higher rank of the two (stepsOff), and
// otherwise sleeps at once (Communicator::waitFor): there, spinning only
// delays that peer. Not when oversubscribed: there every step finds a peer
// on the waiter's CPU, and the yields above hand it over without a wake-up
// (colocatedSleeps).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_WAITPOLICY_H
#define HCCL_RUNTIME_CORE_WAITPOLICY_H

#include "common/Futex.h"
#include "common/HostLoad.h"

#include <algorithm>
#include <cstdint>
#include <sched.h>

namespace hccl::rt {

class WaitPolicy {
public:
  enum class Action { Spin, Yield, Sleep };

  /// More ranks of the communicator on this host than it has cores.
  static bool oversubscribed(int localRanks) {
    return localRanks > hostCores();
  }

  /// `callerMoves`: a pair of the step moves data only in progress() calls
  /// (tcp: the waiting executor does its socket I/O itself). `hostBusy`:
  /// other jobs hold the cores now (hostBusy() in common/HostLoad.h).
  WaitPolicy(bool oversubscribed, bool callerMoves, bool hostBusy)
      : spinUs_(spinBudgetUs(oversubscribed, callerMoves, hostBusy)),
        yieldUs_(yieldBudgetUs(oversubscribed, hostBusy)), yields_(!hostBusy) {}

  static int64_t spinBudgetUs(bool oversubscribed, bool callerMoves,
                              bool hostBusy) {
    if (oversubscribed)
      return 0;
    if (hostBusy)
      return 20;
    return callerMoves ? 1000 : 20;
  }
  static int64_t yieldBudgetUs(bool oversubscribed, bool hostBusy) {
    if (hostBusy)
      return 0;
    return oversubscribed ? 200 : 100;
  }

  /// Whether this rank steps off a CPU it shares with `sharer` (the lowest
  /// peer found there, -1: none): of two, only the higher does. When both
  /// did, they often met again on the other CPU, step after step.
  static bool stepsOff(int rank, int sharer, bool oversubscribed) {
    return !oversubscribed && sharer >= 0 && sharer < rank;
  }

  /// Whether a waiter that found a peer it waits for on its own CPU (and did
  /// not step off) sleeps at once: yes with a core per rank, where spinning
  /// only delays that peer; no with more ranks than cores, where every step
  /// meets one and the policy's yields hand the CPU over without a wake-up.
  static bool colocatedSleeps(bool colocated, bool oversubscribed) {
    return colocated && !oversubscribed;
  }

  /// What to do after `idleUs` microseconds without progress.
  Action next(int64_t idleUs) const {
    if (idleUs < spinUs_)
      return Action::Spin;
    if (idleUs < spinUs_ + yieldUs_)
      return Action::Yield;
    return Action::Sleep;
  }

  /// One round of spinning: a few pause instructions, and now and then
  /// (not on a busy host) a yield to let another runnable thread in.
  void spin() {
    for (int i = 0; i < kPausesPerSpin; ++i)
      cpuRelax();
    if (yields_ && (++spins_ & (kSpinsPerYield - 1)) == 0)
      sched_yield();
  }

private:
  /// The executor's idle round (a look at every pair, the clock, this
  /// spin) took 120-135 ns on the 2-core VM with one pause (11 ns there).
  /// Sixteen added 176 ns to every look at the peers' flags, which a 1-2 us
  /// call waits out twice or more: one pause made 2-rank 4 KB calls 8-27%
  /// faster there (docs/performance.md, "Looking more often"). A yield
  /// every 128 rounds keeps about the old cadence (every 15-20 us there).
  /// Both figures are this VM's: a pause costs more on other CPUs (about
  /// 140 cycles on Skylake-SP and later), and a tighter poll was not
  /// measured beside a peer on a sibling hyperthread.
  static constexpr int kPausesPerSpin = 1;
  static constexpr uint32_t kSpinsPerYield = 128;
  static_assert((kSpinsPerYield & (kSpinsPerYield - 1)) == 0, "a power of two");
  int64_t spinUs_, yieldUs_;
  bool yields_;
  uint32_t spins_ = 0;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_WAITPOLICY_H
