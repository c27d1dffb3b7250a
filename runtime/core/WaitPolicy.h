//===- WaitPolicy.h - How the executor waits for a step ---------*- C++ -*-===//
//
// With a core per rank a peer is usually microseconds away and a futex
// wake-up costs far more (tens to hundreds of microseconds on a VM, and two
// sleeping ranks keep waking each other late), so the executor spins for up
// to a millisecond when its pairs need its own progress calls (20 us
// otherwise), yielding now and then, yields a while longer and then sleeps
// on the communicator's doorbell. On an oversubscribed host (more local
// ranks than cores) spinning only steals a peer's core: it yields briefly
// and sleeps.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_WAITPOLICY_H
#define HCCL_RUNTIME_CORE_WAITPOLICY_H

#include "common/Futex.h"

#include <algorithm>
#include <cstdint>
#include <sched.h>
#include <thread>

namespace hccl::rt {

class WaitPolicy {
public:
  enum class Action { Spin, Yield, Sleep };

  /// More ranks of the communicator on this host than it has cores.
  static bool oversubscribed(int localRanks) {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(localRanks) > hw;
  }

  /// `callerMoves`: a pair of the step moves data only in progress() calls
  /// (tcp: the waiting executor does its socket I/O itself).
  WaitPolicy(bool oversubscribed, bool callerMoves)
      : spinUs_(oversubscribed ? 0 : (callerMoves ? 1000 : 20)),
        yieldUs_(oversubscribed ? 200 : 100) {}

  /// What to do after `idleUs` microseconds without progress.
  Action next(int64_t idleUs) const {
    if (idleUs < spinUs_)
      return Action::Spin;
    if (idleUs < spinUs_ + yieldUs_)
      return Action::Yield;
    return Action::Sleep;
  }

  /// One round of spinning: a few pause instructions, and now and then a
  /// yield to let another runnable thread in, if there is one.
  void spin() {
    for (int i = 0; i < 16; ++i)
      cpuRelax();
    if ((++spins_ & 63) == 0)
      sched_yield();
  }

private:
  int64_t spinUs_, yieldUs_;
  uint32_t spins_ = 0;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_WAITPOLICY_H
