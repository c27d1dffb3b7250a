//===- handoff_bench.cpp - Handing reduced data to another core -----------===//
//
// Why shared-memory collectives streamed their relayed writes (issue 19,
// docs/performance.md "Streaming stores"): two threads on two cores run a
// 2-rank two-shot all-reduce over shared buffers, as two ranks over shm do
// after mapping each other's buffers. Each reduces its half (own input +
// the other's input), they meet at a barrier, then each copies the other's
// reduced half. The reduced half is written either with plain stores (it
// stays modified in the writer's cache, and the reader pulls every line
// across cores) or with the runtime's streaming stores (reduce/Nontemporal.h:
// the reader gets it from memory). Also a cache-line ping-pong, the floor
// of any handoff. Prints median microseconds per all-reduce and the ratio.
// Then the floor of a 2-rank all-gather of the same sizes (hccl-test's size:
// the whole output, a block from each): each thread pulls, copying its own
// block and the other's into its output (two memcpy), or pushes, writing
// its block into both outputs in one pass (the runtime's copyTee, the
// other's copy streamed: docs/runtime.md, "The push").
//
// Google Benchmark's threaded mode synchronises threads per batch, not per
// iteration; the barrier between the halves needs a harness of its own.
//
//   handoff-bench [-b 16K] [-e 64M] [-n 30]
//===----------------------------------------------------------------------===//
#include "reduce/Nontemporal.h"
#include "reduce/Reduce.h"
#include "size_arg.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using hccl::sched::DataType;
using hccl::sched::ReduceOp;

bool pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s) == 0;
}

/// Two-party sense-free barrier on a generation counter.
struct Barrier {
  alignas(64) std::atomic<long> arrived{0};
  void wait(long gen) {
    arrived.fetch_add(1, std::memory_order_acq_rel);
    while (arrived.load(std::memory_order_acquire) < 2 * gen)
      std::this_thread::yield();
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Two threads, pinned to cores 0 and 1, run `step(me, bar, gen)` `iters`
/// times, each time between two barriers (a step may meet at more, with
/// `bar.wait(++gen)`); the median of thread 0's times, in microseconds.
template <class Step> double timedPair(int iters, Step step) {
  Barrier bar;
  std::vector<double> us;
  auto body = [&](int me) {
    pin(me);
    long gen = 0;
    for (int it = 0; it < iters; ++it) {
      bar.wait(++gen);
      auto t0 = Clock::now();
      step(me, bar, gen);
      bar.wait(++gen);
      if (me == 0)
        us.push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - t0)
                .count());
    }
  };
  std::thread t(body, 1);
  body(0);
  t.join();
  return median(us);
}

/// Each thread reduces its half of the two inputs into its output, they
/// meet, and each copies the other's reduced half.
double allReduceUs(size_t bytes, bool streamed, int iters) {
  std::vector<std::vector<float>> in(2, std::vector<float>(bytes / 4, 1.0f));
  std::vector<std::vector<float>> out(2, std::vector<float>(bytes / 4, 0.0f));
  const size_t h = bytes / sizeof(float) / 2;
  return timedPair(iters, [&](int me, Barrier &bar, long &gen) {
    const size_t mine = static_cast<size_t>(me) * h,
                 other = static_cast<size_t>(1 - me) * h;
    const void *srcs[2] = {in[0].data() + mine, in[1].data() + mine};
    if (streamed)
      hccl::rt::reduceManyNontemporal(out[me].data() + mine, srcs, 2, h,
                                      DataType::Fp32, ReduceOp::Sum);
    else
      hccl::rt::reduceMany(out[me].data() + mine, srcs, 2, h, DataType::Fp32,
                           ReduceOp::Sum);
    bar.wait(++gen);
    std::memcpy(out[me].data() + other, out[1 - me].data() + other,
                h * sizeof(float));
  });
}

/// Page-aligned bytes, as HcclMemAlloc's and hccl-test's buffers are (a
/// heap block lies 16 bytes into a page, and streaming stores from there
/// straddle cache lines).
struct PageBuf {
  explicit PageBuf(size_t bytes, char fill)
      : p(static_cast<char *>(
              std::aligned_alloc(4096, (bytes + 4095) & ~size_t(4095))),
          std::free) {
    if (!p)
      throw std::bad_alloc();
    std::memset(p.get(), fill, bytes);
  }
  char *data() const { return p.get(); }
  std::unique_ptr<char, void (*)(void *)> p;
};

/// Each thread gathers its block and the other's into its output: two
/// copies (pull), or its block into both outputs in one pass (push).
double allGatherUs(size_t bytes, bool push, int iters) {
  const size_t b = bytes / 2;
  PageBuf in0(b, 1), in1(b, 2), out0(bytes, 0), out1(bytes, 0);
  char *in[2] = {in0.data(), in1.data()}, *out[2] = {out0.data(), out1.data()};
  return timedPair(iters, [&](int me, Barrier &, long &) {
    const size_t mine = static_cast<size_t>(me) * b,
                 other = static_cast<size_t>(1 - me) * b;
    if (push) {
      hccl::rt::copyTee(out[me] + mine, out[1 - me] + mine, in[me], b);
    } else {
      std::memcpy(out[me] + mine, in[me], b);
      std::memcpy(out[me] + other, in[1 - me], b);
    }
  });
}

double pingPongNs() {
  alignas(64) static std::atomic<long> a{0};
  alignas(64) static std::atomic<long> b{0};
  const long n = 100000;
  std::thread t([&] {
    pin(1);
    for (long i = 1; i <= n; ++i) {
      while (a.load(std::memory_order_acquire) != i) {
      }
      b.store(i, std::memory_order_release);
    }
  });
  pin(0);
  auto t0 = Clock::now();
  for (long i = 1; i <= n; ++i) {
    a.store(i, std::memory_order_release);
    while (b.load(std::memory_order_acquire) != i) {
    }
  }
  double ns =
      std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  t.join();
  return ns / static_cast<double>(n);
}

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr,
               "handoff-bench: %s\nusage: handoff-bench [-b 16K] [-e 64M] "
               "[-n 30]\n",
               why.c_str());
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  uint64_t minb = 16 << 10, maxb = 64 << 20;
  int iters = 30;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc)
      usage("option " + a + " needs a value");
    std::string v = argv[++i];
    if (a == "-b" || a == "-e") {
      uint64_t s = 0;
      if (!parseSize(v.c_str(), &s) || s < 64)
        usage(a + " " + v + ": expected a size of at least 64 bytes");
      (a == "-b" ? minb : maxb) = s;
    } else if (a == "-n") {
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < 1 || n > 100000)
        usage("-n " + v + ": expected 1..100000 iterations");
      iters = static_cast<int>(n);
    } else {
      usage("unknown option '" + a + "'");
    }
  }
  if (minb > maxb)
    usage("-b is larger than -e");
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 ||
      !CPU_ISSET(0, &allowed) || !CPU_ISSET(1, &allowed)) {
    std::printf("handoff-bench: skipped, needs two cores to pin to\n");
    return 0;
  }
  std::printf("# cache-line round trip between cores 0 and 1: %.0f ns\n",
              pingPongNs());
  std::printf("# 2-thread two-shot fp32 all-reduce, median of %d, "
              "streaming stores: %s\n",
              iters,
              hccl::rt::nontemporalStoresAvailable() ? "yes" : "no (not x86)");
  std::printf("%10s %12s %12s %8s\n", "bytes", "plain_us", "streamed_us",
              "ratio");
  for (uint64_t s = minb; s <= maxb; s *= 4) {
    uint64_t bytes = s / 8 * 8; // two halves of whole floats
    double plain = allReduceUs(bytes, false, iters);
    double streamed = allReduceUs(bytes, true, iters);
    std::printf("%10llu %12.1f %12.1f %8.2f\n",
                static_cast<unsigned long long>(bytes), plain, streamed,
                plain / streamed);
  }
  std::printf("# 2-thread all-gather (size: the whole output), median of %d\n",
              iters);
  std::printf("%10s %12s %12s\n", "bytes", "pull_us", "push_us");
  for (uint64_t s = minb; s <= maxb; s *= 4) {
    uint64_t bytes = s / 128 * 128; // two blocks of whole cache lines
    std::printf(
        "%10llu %12.2f %12.2f\n", static_cast<unsigned long long>(bytes),
        allGatherUs(bytes, false, iters), allGatherUs(bytes, true, iters));
  }
  return 0;
}
