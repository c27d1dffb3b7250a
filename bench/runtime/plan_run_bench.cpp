//===- plan_run_bench.cpp - A plan's program against HcclAllReduce --------===//
//
// What running a compiler plan costs next to the built-in collective of the
// same count, side by side in one job: per size, a plan holding one fp32 sum
// all-reduce program of the given algorithm (lib/schedule's generator, as
// the compiler exports it) runs through HcclRunPlanCollective, and the same
// count through HcclAllReduce twice: with the runtime's own choice of
// algorithm, and on a second communicator created under
// HCCL_ALGO=level0:<algorithm> (the same program the plan holds). Buffers
// are plain heap memory used in place, as the torch backend passes tensors.
// Each rank checks one result of each path against the exact sum first.
//
//   plan-run-bench [-p 2] [-b 64K] [-e 16M] [-f 4] [-n 20] [-w 3] [-r 3]
//                  [-a ring] [--out-of-place]
//
// Rows: size, the slowest rank's average time per call (us) for the plan,
// the auto-chosen all-reduce and the same-algorithm all-reduce, and the
// ratios plan / all-reduce (medians over -r rounds; the three paths run in
// turn in each round, in rotating order).
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Types.h"
#include "hccl/hccl.h"
#include "hccl/hccl_ext.h"
#include "rt_plans.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace sched = hccl::sched;

namespace {

constexpr int kMaxRanks = 16;
constexpr int kPaths = 3; // plan, auto all-reduce, same-algorithm all-reduce
constexpr int kMaxRows = 64;
constexpr int kMaxRounds = 32;

struct Shared {
  std::atomic<int> rootReady[2];
  HcclRootInfo root[2];
  /// Per rank, row, round and path: microseconds per call.
  double us[kMaxRanks][kMaxRows][kMaxRounds][kPaths];
  char error[kMaxRanks][512];
};

struct Options {
  int p = 2;
  uint64_t begin = 64 << 10, end = 16 << 20, factor = 4;
  int iters = 20, warmup = 3, rounds = 3;
  sched::Algorithm algo = sched::Algorithm::Ring;
  bool inPlace = true;
};

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "plan-run-bench: %s\nusage: plan-run-bench [-p RANKS] [-b "
               "SIZE] [-e SIZE] [-f FACTOR] [-n ITERS] [-w WARMUP] [-r "
               "ROUNDS] [-a ALGORITHM] [--out-of-place]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  auto value = [&](int &i) -> std::string {
    if (i + 1 >= argc)
      usage((std::string(argv[i]) + " needs a value").c_str());
    return argv[++i];
  };
  auto number = [&](int &i, long lo, long hi) {
    std::string opt = argv[i];
    std::string v = value(i);
    char *e = nullptr;
    long x = std::strtol(v.c_str(), &e, 10);
    if (v.empty() || *e || x < lo || x > hi)
      usage((opt + " " + v + ": expected an integer in " + std::to_string(lo) +
             ".." + std::to_string(hi))
                .c_str());
    return static_cast<int>(x);
  };
  auto size = [&](int &i) {
    std::string opt = argv[i];
    std::string v = value(i);
    auto s = sched::parseByteSize(v);
    if (!s || *s < 4)
      usage((opt + " " + v + ": expected a size of at least 4 bytes").c_str());
    return *s;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-p")
      o.p = number(i, 2, kMaxRanks);
    else if (a == "-b")
      o.begin = size(i);
    else if (a == "-e")
      o.end = size(i);
    else if (a == "-f")
      o.factor = static_cast<uint64_t>(number(i, 2, 1024));
    else if (a == "-n")
      o.iters = number(i, 1, 100000);
    else if (a == "-w")
      o.warmup = number(i, 0, 100000);
    else if (a == "-r")
      o.rounds = number(i, 1, kMaxRounds);
    else if (a == "-a") {
      std::string v = value(i);
      auto al = sched::parseAlgorithm(v);
      if (!al || *al == sched::Algorithm::Hierarchical)
        usage(("-a " + v + ": expected one of " + sched::algorithmNameList() +
               " (not hierarchical)")
                  .c_str());
      o.algo = *al;
    } else if (a == "--out-of-place")
      o.inPlace = false;
    else
      usage(("unknown option " + a).c_str());
  }
  if (o.end < o.begin)
    usage("-e is below -b");
  return o;
}

std::vector<uint64_t> counts(const Options &o) {
  std::vector<uint64_t> c;
  for (uint64_t s = o.begin; s <= o.end && c.size() < kMaxRows; s *= o.factor)
    c.push_back(s / 4);
  return c;
}

std::string rankMain(const Options &o, Shared *sh, int rank) {
  auto fail = [](const char *what, HcclResult rc) {
    return std::string(what) + ": " + HcclGetErrorString(rc) + ": " +
           HcclGetLastErrorMessage();
  };
  HcclComm comm[2];
  for (int c = 0; c < 2; ++c) {
    if (c == 1)
      setenv("HCCL_ALGO",
             (std::string("level0:") + sched::algorithmName(o.algo)).c_str(),
             1);
    if (rank == 0) {
      if (HcclResult rc = HcclGetRootInfo(&sh->root[c]))
        return fail("HcclGetRootInfo", rc);
      sh->rootReady[c].store(1);
    }
    while (sh->rootReady[c].load() == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (HcclResult rc =
            HcclCommInitRootInfo(static_cast<uint32_t>(o.p), &sh->root[c],
                                 static_cast<uint32_t>(rank), &comm[c]))
      return fail("HcclCommInitRootInfo", rc);
    unsetenv("HCCL_ALGO");
  }
  std::vector<uint64_t> ns = counts(o);
  for (size_t row = 0; row < ns.size(); ++row) {
    uint64_t n = ns[row];
    std::string err;
    std::string text = rtest::planText(
        sched::Collective::AllReduce, o.algo, o.p, static_cast<int64_t>(n),
        sched::ProgramForm::Compact, {}, sched::DataType::Fp32, &err);
    if (text.empty())
      return "generating the " + std::string(sched::algorithmName(o.algo)) +
             " program for " + std::to_string(n) + " elements: " + err;
    HcclPlan plan;
    if (HcclResult rc = HcclPlanLoadFromString(text.data(), text.size(), &plan))
      return fail("HcclPlanLoadFromString", rc);
    std::vector<float> a(n), b(o.inPlace ? 0 : n);
    float *out = o.inPlace ? a.data() : b.data();
    auto call = [&](int path) {
      if (path == 0)
        return HcclRunPlanCollective(comm[0], plan, "main", a.data(), out,
                                     nullptr);
      return HcclAllReduce(a.data(), out, n, HCCL_DATA_TYPE_FP32,
                           HCCL_REDUCE_SUM, comm[path - 1], nullptr);
    };
    // One checked call per path: small integers add exactly in fp32.
    for (int path = 0; path < kPaths; ++path) {
      for (uint64_t i = 0; i < n; ++i)
        a[i] = static_cast<float>((i + static_cast<uint64_t>(rank)) % 1000);
      if (HcclResult rc = call(path))
        return fail(path ? "HcclAllReduce" : "HcclRunPlanCollective", rc);
      for (uint64_t i = 0; i < n; ++i) {
        float want = 0;
        for (int r = 0; r < o.p; ++r)
          want += static_cast<float>((i + static_cast<uint64_t>(r)) % 1000);
        if (out[i] != want)
          return "path " + std::to_string(path) + ", " + std::to_string(n) +
                 " elements: element " + std::to_string(i) + " is " +
                 std::to_string(out[i]) + ", expected " + std::to_string(want);
      }
    }
    std::fill(a.begin(), a.end(), 1e-30f); // in place stays finite
    for (int round = 0; round < o.rounds; ++round) {
      for (int k = 0; k < kPaths; ++k) {
        int path = (k + round) % kPaths;
        for (int i = 0; i < o.warmup; ++i)
          if (HcclResult rc = call(path))
            return fail("warm-up", rc);
        if (HcclResult rc = HcclBarrier(comm[0], nullptr))
          return fail("HcclBarrier", rc);
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < o.iters; ++i)
          if (HcclResult rc = call(path))
            return fail("timed call", rc);
        auto t1 = std::chrono::steady_clock::now();
        sh->us[rank][row][round][path] =
            std::chrono::duration<double, std::micro>(t1 - t0).count() /
            o.iters;
      }
    }
    HcclPlanFree(plan);
  }
  for (auto &c : comm)
    HcclCommDestroy(c);
  return "";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  void *mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("plan-run-bench: mmap");
    return 1;
  }
  auto *sh = new (mem) Shared();
  std::vector<pid_t> pids;
  for (int r = 0; r < o.p; ++r) {
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("plan-run-bench: fork");
      return 1;
    }
    if (pid == 0) {
      std::string err = rankMain(o, sh, r);
      std::strncpy(sh->error[r], err.c_str(), sizeof(sh->error[r]) - 1);
      _exit(err.empty() ? 0 : 1);
    }
    pids.push_back(pid);
  }
  int bad = 0;
  for (int r = 0; r < o.p; ++r) {
    int st = 0;
    waitpid(pids[static_cast<size_t>(r)], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      std::fprintf(stderr, "plan-run-bench: rank %d: %s\n", r,
                   sh->error[r][0] ? sh->error[r] : "died");
      bad = 1;
    }
  }
  if (bad)
    return 1;
  std::printf("# %d ranks, fp32 sum, %s, plan program: %s; us per call, "
              "slowest rank, median of %d rounds of %d calls\n",
              o.p, o.inPlace ? "in place" : "out of place",
              sched::algorithmName(o.algo), o.rounds, o.iters);
  std::printf("%12s %12s %12s %12s %12s %12s\n", "bytes", "plan", "allreduce",
              "allreduce@a", "plan/auto", "plan/same");
  std::vector<uint64_t> ns = counts(o);
  for (size_t row = 0; row < ns.size(); ++row) {
    double t[kPaths];
    for (int path = 0; path < kPaths; ++path) {
      std::vector<double> per;
      for (int round = 0; round < o.rounds; ++round) {
        double slowest = 0;
        for (int r = 0; r < o.p; ++r)
          slowest = std::max(slowest, sh->us[r][row][round][path]);
        per.push_back(slowest);
      }
      t[path] = median(per);
    }
    std::printf("%12llu %12.1f %12.1f %12.1f %12.2f %12.2f\n",
                static_cast<unsigned long long>(ns[row] * 4), t[0], t[1], t[2],
                t[0] / t[1], t[0] / t[2]);
  }
  return 0;
}
