//===- HostWait.h - Waiting for a point in time, on time --------*- C++ -*-===//
//
// How hccl-run waits for its device clock and hccl-test --gap-us for the
// end of a simulated step: sleep, then yield for the last `spin`, since a
// sleep on this kind of host wakes 50-130 us late (a late rank delays
// every peer of the next collective). MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMON_HOSTWAIT_H
#define HCCL_TOOLS_COMMON_HOSTWAIT_H

#include <chrono>

namespace hccl::tools {

using HostClock = std::chrono::steady_clock;

/// Drops the calling thread's timer slack to 1 ns (Linux; the default 50 us
/// adds to every sleep's overshoot). Harmless where unsupported.
void tightenTimerSlack();
/// tightenTimerSlack() the first time a thread calls it, nothing after: for
/// threads the caller does not create (a stream's, running a task that
/// waits on time).
void tightenTimerSlackOnce();

/// Asks the scheduler for a time slice of `slice` for the calling thread
/// (Linux 6.12+ EEVDF: sched_attr.sched_runtime of a SCHED_OTHER or
/// SCHED_BATCH thread; 0 gives the kernel's default back, which is
/// 0.75 ms x (1 + log2 of the CPUs, at most 8): 1.5 ms on 2 cores). A thread
/// with a short slice gets an early deadline, so when it wakes on a host
/// whose cores are all busy it can preempt a running thread sooner instead
/// of waiting for that thread's slice to end. For threads that wake often
/// and run briefly, like a host thread issuing work. Keeps the policy, nice
/// value and reset-on-fork flag. Returns false (errno set) where the call
/// failed or the thread is real-time or idle; kernels before 6.12 accept
/// the slice and ignore it. Threads the caller creates inherit it.
bool requestSchedulerSlice(std::chrono::microseconds slice);

/// Returns at `t` or just after: sleeps until `t - spin`, then yields.
void waitUntil(HostClock::time_point t, std::chrono::microseconds spin);

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMON_HOSTWAIT_H
