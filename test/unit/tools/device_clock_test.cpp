//===- device_clock_test.cpp - hccl-run --issue ahead's device clock ------===//
#include "DeviceClock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace {

using hccl::tools::DeviceClock;
using hccl::tools::HostClock;
using namespace std::chrono;

double usAfter(HostClock::time_point t0, HostClock::time_point t) {
  return duration<double, std::micro>(t - t0).count();
}

TEST(DeviceClock, ComputeAdvancesTheClock) {
  DeviceClock c({{10, -1}, {2.5, -1}, {0, -1}, {7, -1}}, 0);
  HostClock::time_point t0 = HostClock::now();
  c.start(t0);
  // Out of order: a later point first, then the earlier ones.
  EXPECT_NEAR(usAfter(t0, c.reach(4)), 19.5, 1e-3);
  EXPECT_NEAR(usAfter(t0, c.reach(0)), 0, 1e-3);
  EXPECT_NEAR(usAfter(t0, c.reach(2)), 12.5, 1e-3);
  EXPECT_NEAR(usAfter(t0, c.reach(3)), 12.5, 1e-3);
  // Past the end: the end.
  EXPECT_NEAR(usAfter(t0, c.reach(99)), 19.5, 1e-3);
}

TEST(DeviceClock, AWaitHoldsTheDeviceUntilItsCollectiveEnded) {
  // compute 10, wait for collective 1, compute 5, wait for 0, compute 1
  DeviceClock c({{10, -1}, {0, 1}, {5, -1}, {0, 0}, {1, -1}}, 2);
  HostClock::time_point t0 = HostClock::now();
  c.start(t0);
  c.ended(1, t0 + microseconds(50)); // after the device reached the wait
  c.ended(0, t0 + microseconds(3));  // long before it reached its wait
  EXPECT_NEAR(usAfter(t0, c.reach(1)), 10, 1e-3);
  EXPECT_NEAR(usAfter(t0, c.reach(2)), 50, 1e-3);
  EXPECT_NEAR(usAfter(t0, c.reach(4)), 55, 1e-3);
  EXPECT_NEAR(usAfter(t0, c.reach(5)), 56, 1e-3);

  // A new iteration forgets the ends: collective 1 now ends at once.
  HostClock::time_point t1 = t0 + milliseconds(1);
  c.arm();
  c.start(t1);
  c.ended(0, t1);
  c.ended(1, t1);
  EXPECT_NEAR(usAfter(t1, c.reach(5)), 16, 1e-3);
}

TEST(DeviceClock, ReachBlocksUntilTheEndsBeforeItAreKnown) {
  DeviceClock c({{1, -1}, {0, 0}, {2, -1}}, 1);
  HostClock::time_point t0 = HostClock::now();
  c.start(t0);
  // Before the wait: known at once, with nothing ended.
  EXPECT_NEAR(usAfter(t0, c.reach(1)), 1, 1e-3);
  std::atomic<bool> reported{false};
  HostClock::time_point got;
  std::thread reader([&] {
    got = c.reach(3);
    EXPECT_TRUE(reported.load()) << "reach returned before the end was known";
  });
  std::this_thread::sleep_for(milliseconds(20));
  reported = true;
  c.ended(0, t0 + microseconds(400));
  reader.join();
  EXPECT_NEAR(usAfter(t0, got), 402, 1e-3);
}

TEST(DeviceClock, ReadersWaitForTheStart) {
  // Gates are queued before the device's time begins: a reader of an armed
  // clock waits for start(), then counts from its t0, not the last one's.
  DeviceClock c({{5, -1}}, 0);
  c.start(HostClock::now() - seconds(1)); // a previous iteration
  EXPECT_GT(duration<double>(HostClock::now() - c.reach(1)).count(), 0.5);
  c.arm();
  std::atomic<bool> started{false};
  HostClock::time_point t0, got;
  std::thread reader([&] {
    got = c.reach(1);
    EXPECT_TRUE(started.load()) << "reach returned before start()";
  });
  std::this_thread::sleep_for(milliseconds(20));
  t0 = HostClock::now();
  started = true;
  c.start(t0);
  reader.join();
  EXPECT_NEAR(usAfter(t0, got), 5, 1e-3);
}

TEST(DeviceClock, CancelReleasesReaders) {
  DeviceClock c({{1, -1}, {0, 0}, {2, -1}}, 1);
  HostClock::time_point t0 = HostClock::now();
  c.start(t0);
  std::thread reader([&] {
    // Released at the wait: the time as far as it is known.
    EXPECT_NEAR(usAfter(t0, c.reach(3)), 1, 1e-3);
  });
  std::this_thread::sleep_for(milliseconds(10));
  c.cancel();
  reader.join();
  // arm() undoes the cancel: the wait holds again.
  c.arm();
  c.start(t0);
  c.ended(0, t0 + microseconds(10));
  EXPECT_NEAR(usAfter(t0, c.reach(3)), 12, 1e-3);
}

TEST(DeviceClock, ManyReadersAgree) {
  // Readers on several threads move the same cursor: each gets its point.
  const int n = 200;
  std::vector<DeviceClock::Step> steps;
  for (int i = 0; i < n; ++i) {
    steps.push_back({1, -1});
    steps.push_back({0, i});
  }
  DeviceClock c(steps, n);
  HostClock::time_point t0 = HostClock::now();
  c.start(t0);
  std::vector<double> at(2 * n + 1, -1);
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r)
    readers.emplace_back([&, r] {
      for (int k = r; k <= 2 * n; k += 4)
        at[k] = usAfter(t0, c.reach(k));
    });
  // Collective i ends 3 us after the device reached its wait (i + 1 us of
  // compute and the 3 us each earlier one added).
  for (int i = 0; i < n; ++i)
    c.ended(i, t0 + duration_cast<HostClock::duration>(
                        duration<double, std::micro>(4.0 * (i + 1))));
  for (std::thread &t : readers)
    t.join();
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(at[2 * i + 1], 4.0 * i + 1, 1e-3) << "before wait " << i;
    EXPECT_NEAR(at[2 * i + 2], 4.0 * (i + 1), 1e-3) << "after wait " << i;
  }
}

TEST(DeviceClock, AStepNamingNoSlotIsRefused) {
  EXPECT_THROW(DeviceClock({{0, 2}}, 2), std::out_of_range);
  EXPECT_NO_THROW(DeviceClock({{0, 1}}, 2));
}

} // namespace
