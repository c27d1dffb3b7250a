//===- rt_harness.h - Multi-process runtime test harness --------*- C++ -*-===//
//
// Runs a body in p forked rank processes and collects what each reports.
// Children share an anonymous MAP_SHARED block with the parent: root infos
// (rank 0 publishes one per communicator it creates; the others wait for
// it, sleeping, never spinning), per-rank result slots, and error texts.
// A child reports failure by returning a non-empty string; a crash, a
// non-zero exit or a hang (killed at the deadline) is reported too.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_RUNTIME_RT_HARNESS_H
#define HCCL_TEST_RUNTIME_RT_HARNESS_H

#include "hccl/hccl.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <sys/mman.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace rtest {

inline constexpr int kMaxRanks = 16;
inline constexpr int kRootSlots = 64;
inline constexpr int kValueSlots = 256;

struct Shared {
  std::atomic<uint32_t> rootGen[kRootSlots];
  HcclRootInfo root[kRootSlots];
  std::atomic<uint64_t> values[kMaxRanks][kValueSlots];
  std::atomic<uint32_t> arrived[kValueSlots]; ///< bit per rank
  std::atomic<uint32_t> exited; ///< bit per rank whose body returned
  char errors[kMaxRanks][2048];
};

/// What a rank's body sees.
struct RankCtx {
  int rank = 0;
  int size = 1;
  Shared *sh = nullptr;
  int nextRoot = 0;

  /// Creates the next communicator of the test (all ranks call in step).
  HcclResult initComm(HcclComm *comm, int nRanks = -1, int myRank = -1) {
    int n = nRanks < 0 ? size : nRanks;
    int r = myRank < 0 ? rank : myRank;
    int slot = nextRoot++ % kRootSlots;
    uint32_t gen = static_cast<uint32_t>(nextRoot);
    if (r == 0) {
      HcclResult rc = HcclGetRootInfo(&sh->root[slot]);
      if (rc != HCCL_SUCCESS)
        return rc;
      sh->rootGen[slot].store(gen);
    } else {
      while (sh->rootGen[slot].load() != gen)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return HcclCommInitRootInfo(static_cast<uint32_t>(n), &sh->root[slot],
                                static_cast<uint32_t>(r), comm);
  }
  void publish(int slot, uint64_t v) { sh->values[rank][slot].store(v); }
  uint64_t peek(int r, int slot) const { return sh->values[r][slot].load(); }
  /// A barrier through shared memory (independent of the runtime). Ranks
  /// that already left the body count as arrived, so a failed rank does not
  /// turn into hangs elsewhere.
  void sync(int slot) {
    const uint32_t all = (1u << size) - 1;
    sh->arrived[slot].fetch_or(1u << rank);
    while ((sh->arrived[slot].load() | sh->exited.load()) != all)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
};

using Body = std::function<std::string(RankCtx &)>;

struct RunOptions {
  int timeoutSec = 120;
  /// Environment set in every child before the body runs.
  std::vector<std::pair<std::string, std::string>> env;
  /// Ranks whose death by SIGKILL is expected (fault tests).
  std::vector<int> mayDie;
  /// Called in the parent after the ranks ended, to read published values.
  std::function<void(const Shared &)> after;
};

/// Returns "" when every rank succeeded, else one line per failed rank.
inline std::string runRanks(int p, const Body &body,
                            const RunOptions &opt = {}) {
  if (p < 1 || p > kMaxRanks)
    return "bad rank count";
  void *mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return "mmap failed";
  auto *sh = new (mem) Shared();
  std::vector<pid_t> pids;
  pid_t parent = getpid();
  for (int r = 0; r < p; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent)
        _exit(3);
      for (auto &kv : opt.env)
        setenv(kv.first.c_str(), kv.second.c_str(), 1);
      RankCtx ctx;
      ctx.rank = r;
      ctx.size = p;
      ctx.sh = sh;
      std::string err;
      try {
        err = body(ctx);
      } catch (const std::exception &e) {
        err = std::string("exception: ") + e.what();
      }
      sh->exited.fetch_or(1u << r);
#if defined(__SANITIZE_ADDRESS__)
      // _exit skips LeakSanitizer's check at exit: run it here, so that
      // what a rank leaks fails the test (the report is on stderr).
      if (err.empty() && __lsan_do_recoverable_leak_check() != 0)
        err = "LeakSanitizer found leaks in this rank (report above)";
#endif
      if (!err.empty()) {
        std::strncpy(sh->errors[r], err.c_str(), sizeof(sh->errors[r]) - 1);
        _exit(1);
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  std::vector<int> status(static_cast<size_t>(p), -1);
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(opt.timeoutSec);
  int left = p;
  bool timedOut = false;
  while (left > 0) {
    for (int r = 0; r < p; ++r) {
      if (status[static_cast<size_t>(r)] != -1)
        continue;
      int st = 0;
      if (waitpid(pids[static_cast<size_t>(r)], &st, WNOHANG) > 0) {
        status[static_cast<size_t>(r)] = st;
        --left;
      }
    }
    if (left == 0)
      break;
    if (std::chrono::steady_clock::now() > deadline) {
      timedOut = true;
      for (int r = 0; r < p; ++r)
        if (status[static_cast<size_t>(r)] == -1)
          kill(pids[static_cast<size_t>(r)], SIGKILL);
      for (int r = 0; r < p; ++r)
        if (status[static_cast<size_t>(r)] == -1) {
          int st = 0;
          waitpid(pids[static_cast<size_t>(r)], &st, 0);
          status[static_cast<size_t>(r)] = -2;
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string out;
  for (int r = 0; r < p; ++r) {
    int st = status[static_cast<size_t>(r)];
    bool expectedDeath = false;
    for (int d : opt.mayDie)
      expectedDeath = expectedDeath || d == r;
    if (st == -2)
      out += "rank " + std::to_string(r) + ": hung (killed after " +
             std::to_string(opt.timeoutSec) + " s)\n";
    else if (WIFSIGNALED(st) && !(expectedDeath && WTERMSIG(st) == SIGKILL))
      out += "rank " + std::to_string(r) + ": died of signal " +
             std::to_string(WTERMSIG(st)) + "\n";
    else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
      out +=
          "rank " + std::to_string(r) + ": " +
          (sh->errors[r][0] ? std::string(sh->errors[r])
                            : "exit code " + std::to_string(WEXITSTATUS(st))) +
          "\n";
  }
  (void)timedOut;
  if (opt.after)
    opt.after(*sh);
  sh->~Shared();
  munmap(mem, sizeof(Shared));
  return out;
}

/// "HcclX failed: HCCL_E_PARA: ... (last error: ...)".
inline std::string describe(const char *what, HcclResult rc) {
  return std::string(what) + " returned " + HcclGetErrorString(rc) + " (" +
         HcclGetLastErrorMessage() + ")";
}

} // namespace rtest

#define RT_OK(call)                                                            \
  do {                                                                         \
    HcclResult _rc = (call);                                                   \
    if (_rc != HCCL_SUCCESS)                                                   \
      return std::string(__FILE__ ":") + std::to_string(__LINE__) + ": " +     \
             ::rtest::describe(#call, _rc);                                    \
  } while (0)

#define RT_CHECK(cond, msg)                                                    \
  do {                                                                         \
    if (!(cond))                                                               \
      return std::string(__FILE__ ":") + std::to_string(__LINE__) + ": " +     \
             "check failed: " #cond ": " + (msg);                              \
  } while (0)

#endif // HCCL_TEST_RUNTIME_RT_HARNESS_H
