//===- HostLoad.cpp - Whether this host has a core to spare now -----------===//
#include "common/HostLoad.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace hccl::rt {

int runnableThreadsOf(const std::string &loadavg) {
  // "0.52 0.58 0.59 3/1172 12345": three averages, running/total, last pid.
  size_t pos = 0;
  for (int field = 0; field < 3; ++field) {
    pos = loadavg.find(' ', pos);
    if (pos == std::string::npos)
      return -1;
    ++pos;
  }
  size_t slash = loadavg.find('/', pos);
  if (slash == std::string::npos || slash == pos || slash - pos > 9)
    return -1;
  int n = 0;
  for (size_t i = pos; i < slash; ++i) {
    if (loadavg[i] < '0' || loadavg[i] > '9')
      return -1;
    n = n * 10 + (loadavg[i] - '0');
  }
  return n;
}

int runnableThreads() {
  FILE *f = std::fopen("/proc/loadavg", "re");
  if (!f)
    return -1;
  char buf[128] = {0};
  size_t got = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  return runnableThreadsOf(std::string(buf, got));
}

namespace {
std::atomic<int> jobThreads{0};
} // namespace

void noteJobThreads(int n) {
  int cur = jobThreads.load(std::memory_order_relaxed);
  while (n > cur &&
         !jobThreads.compare_exchange_weak(cur, n, std::memory_order_relaxed))
    ;
}

bool busyWith(int runnable, int cores, int job) {
  return runnable > cores + job;
}

int hostCores() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

bool hostBusy() {
  using Clock = std::chrono::steady_clock;
  static std::atomic<int64_t> lastNs{INT64_MIN / 2};
  static std::atomic<bool> busy{false};
  int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    Clock::now().time_since_epoch())
                    .count();
  int64_t last = lastNs.load(std::memory_order_relaxed);
  if (now - last >= 5'000'000 &&
      lastNs.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
    int cores = hostCores();
    int running = runnableThreads();
    busy.store(running >= 0 &&
                   busyWith(running, cores,
                            jobThreads.load(std::memory_order_relaxed)),
               std::memory_order_relaxed);
  }
  return busy.load(std::memory_order_relaxed);
}

} // namespace hccl::rt
