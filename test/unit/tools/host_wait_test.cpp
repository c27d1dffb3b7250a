//===- host_wait_test.cpp - hccl-run's and hccl-test's on-time wait -------===//
#include "HostWait.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {

using hccl::tools::HostClock;
using namespace std::chrono;

TEST(HostWait, NeverReturnsEarly) {
  for (microseconds spin :
       {microseconds(0), microseconds(100), microseconds(5000)}) {
    HostClock::time_point t = HostClock::now() + milliseconds(3);
    hccl::tools::waitUntil(t, spin);
    EXPECT_GE(HostClock::now(), t) << "spin " << spin.count() << " us";
  }
  // A point already past returns at once.
  HostClock::time_point past = HostClock::now() - milliseconds(1);
  HostClock::time_point before = HostClock::now();
  hccl::tools::waitUntil(past, microseconds(100));
  EXPECT_LT(HostClock::now() - before, milliseconds(500));
}

#if defined(__linux__) && defined(SYS_sched_getattr)
struct Attr {
  uint32_t size, policy;
  uint64_t flags;
  int32_t nice;
  uint32_t priority;
  uint64_t runtime, deadline, period;
};

Attr readAttr() {
  Attr a{};
  EXPECT_EQ(syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0), 0);
  return a;
}

// The slice is the thread's own, the nice value stays, and 0 gives the
// kernel's slice back. Kernels before 6.12 accept the request and ignore
// the slice (sched_getattr then reports 0): nothing to read back there.
TEST(HostWait, SchedulerSliceIsSetAndRestored) {
  std::thread([] {
    // One step nicer than now (raising nice needs no privilege), so that a
    // reset to 0 would show.
    int nice = std::min(getpriority(PRIO_PROCESS, 0) + 1, 19);
    ASSERT_EQ(setpriority(PRIO_PROCESS, 0, nice), 0);
    if (!hccl::tools::requestSchedulerSlice(microseconds(250))) {
      if (errno == ENOSYS || errno == EPERM)
        GTEST_SKIP() << "sched_setattr is not available here: "
                     << std::strerror(errno);
      FAIL() << "sched_setattr refused: " << std::strerror(errno);
    }
    Attr a = readAttr();
    EXPECT_EQ(a.nice, nice) << "the request must keep the thread's nice value";
    EXPECT_EQ(a.policy, 0u);
    if (a.runtime == 0)
      GTEST_SKIP() << "this kernel ignores a SCHED_OTHER thread's slice "
                      "(custom slices came with Linux 6.12's EEVDF)";
    EXPECT_EQ(a.runtime, 250000u);
    ASSERT_TRUE(hccl::tools::requestSchedulerSlice(microseconds(0)));
    Attr b = readAttr();
    EXPECT_NE(b.runtime, 250000u) << "0 must give the kernel's slice back";
    EXPECT_EQ(b.nice, nice);
  }).join();
}
#endif

} // namespace
