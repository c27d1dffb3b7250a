//===- HostWait.cpp - Waiting for a point in time, on time ----------------===//
#include "HostWait.h"

#include <cerrno>
#include <thread>

#if defined(__linux__)
#include <cstdint>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace hccl::tools {

void tightenTimerSlack() {
#if defined(__linux__)
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

void tightenTimerSlackOnce() {
  static thread_local bool done = false;
  if (!done) {
    tightenTimerSlack();
    done = true;
  }
}

bool requestSchedulerSlice(std::chrono::microseconds slice) {
#if defined(__linux__) && defined(SYS_sched_setattr) &&                        \
    defined(SYS_sched_getattr)
  // glibc 2.36 wraps neither call; the layout is the kernel's struct
  // sched_attr up to sched_period (SCHED_ATTR_SIZE_VER0, 48 bytes).
  struct {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
  } attr{};
  // Change the slice alone: the policy, nice value and reset-on-fork flag
  // stay as they are (sched_getattr reports them for the calling thread).
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) != 0)
    return false;
  constexpr uint32_t kOther = 0, kBatch = 3;
  constexpr uint64_t kResetOnFork = 0x01;
  if (attr.policy != kOther && attr.policy != kBatch) {
    errno = EINVAL; // a real-time or idle thread has no fair slice
    return false;
  }
  attr.size = sizeof(attr);
  attr.flags &= kResetOnFork;
  attr.runtime = static_cast<uint64_t>(slice.count()) * 1000;
  return syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
#else
  (void)slice;
  errno = ENOSYS;
  return false;
#endif
}

void waitUntil(HostClock::time_point t, std::chrono::microseconds spin) {
  if (HostClock::now() + spin < t)
    std::this_thread::sleep_until(t - spin);
  while (HostClock::now() < t)
    std::this_thread::yield();
}

} // namespace hccl::tools
