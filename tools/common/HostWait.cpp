//===- HostWait.cpp - Waiting for a point in time, on time ----------------===//
#include "HostWait.h"

#include <thread>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace hccl::tools {

void tightenTimerSlack() {
#if defined(__linux__)
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

void waitUntil(HostClock::time_point t, std::chrono::microseconds spin) {
  if (HostClock::now() + spin < t)
    std::this_thread::sleep_until(t - spin);
  while (HostClock::now() < t)
    std::this_thread::yield();
}

} // namespace hccl::tools
