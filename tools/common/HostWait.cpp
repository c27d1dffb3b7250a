//===- HostWait.cpp - Waiting for a point in time, on time ----------------===//
#include "HostWait.h"

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

bool requestSchedulerSlice(std::chrono::microseconds slice) {
#if defined(__linux__) && defined(SYS_sched_setattr)
  // glibc 2.36 has no sched_setattr wrapper; the layout is the kernel's
  // struct sched_attr up to sched_period (SCHED_ATTR_SIZE_VER0, 48 bytes).
  struct {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
  } attr{};
  attr.size = sizeof(attr);
  attr.policy = 0; // SCHED_OTHER
  // Keep the thread's nice value (a 0 here would reset it; on Linux
  // PRIO_PROCESS 0 is the calling thread). 0 us: the kernel's own slice.
  attr.nice = getpriority(PRIO_PROCESS, 0);
  attr.runtime = static_cast<uint64_t>(slice.count()) * 1000;
  return syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
#else
  (void)slice;
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
