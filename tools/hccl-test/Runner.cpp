//===- Runner.cpp - One rank of an hccl-test run --------------------------===//
//
// Per size: fill inputs and poison outputs, warm up, barrier, time -n calls
// queued on a host stream (or blocking calls with --sync), then check the
// output against the local reference. The slowest rank's time (with
// --flush-mib or --evict-buffers on one kernel, the job's: see runSize) and the
// total number of wrong elements are combined with one all-reduce, so the
// root's row speaks for the whole job; as in hccl_test the root rank (-r)
// prints the header and the rows, and a rank whose check fails prints its own
// "rank id N, check result failed" line.
//
//===----------------------------------------------------------------------===//
#include "Runner.h"

#include "HostWait.h"
#include "Layout.h"
#include "MemoryCalls.h"
#include "Verify.h"

#include "hccl/hccl.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <sys/mman.h>
#include <vector>

namespace hccltest {
namespace {

class RankRun {
public:
  explicit RankRun(const Options &o) : opts_(o) {}
  ~RankRun() { release(); }
  int run();

private:
  bool ok(HcclResult r, const char *what) {
    if (r == HCCL_SUCCESS)
      return true;
    std::fprintf(stderr, "hccl-test: rank %u: %s failed: %s: %s\n", rank_, what,
                 HcclGetErrorString(r), HcclGetLastErrorMessage());
    return false;
  }
  bool allocate(uint64_t bytes, void **ptr, void **handle);
  bool allocateZeroCopy(uint64_t sendBytes, uint64_t recvBytes);
  void release();
  HcclResult launch(const Layout &l, aclrtStream stream);
  bool runSize(uint64_t sizeBytes, int seq, FILE *csv);
  /// --flush-mib or --evict-buffers: whether every rank runs under this
  /// kernel (sharedClock_).
  bool findSharedClock();
  /// `seconds` becomes the calls' total from `marks` (each call's start and
  /// end on this rank): with sharedClock_ from the last rank's start to the
  /// last rank's end (`marks` become the job's), else this rank's own.
  bool timeFromLastStart(std::vector<double> &marks, double *seconds);

  const Options &opts_;
  HcclComm comm_ = nullptr;
  aclrtStream stream_ = nullptr;
  uint32_t rank_ = 0, nRanks_ = 0;
  void *send_ = nullptr, *recv_ = nullptr;
  void *sendHandle_ = nullptr, *recvHandle_ = nullptr;
  void *range_ = nullptr; ///< -z: the reserved range holding both buffers
  uint64_t rangeBytes_ = 0;
  bool activated_ = false;
  bool failed_ = false;
  std::vector<unsigned char> flush_; ///< --flush-mib: written before a call
  /// Every rank runs under one kernel, so their steady clocks compare.
  bool sharedClock_ = false;
};

bool RankRun::allocate(uint64_t bytes, void **ptr, void **handle) {
  bytes = bytes ? bytes : 1;
  if (opts_.useMalloc) {
    *ptr = std::malloc(bytes);
    if (!*ptr) {
      std::fprintf(stderr,
                   "hccl-test: rank %u: out of memory (%" PRIu64 " bytes)\n",
                   rank_, bytes);
      return false;
    }
  } else if (!ok(HcclMemAlloc(ptr, bytes), "HcclMemAlloc")) {
    return false;
  }
  return ok(HcclCommRegister(comm_, *ptr, bytes, handle, HCCL_REGISTER_DEFAULT),
            "HcclCommRegister");
}

// -z, as hccl_test does it: one reserved range for both buffers given to
// the communicator (HcclCommSetMemoryRange), memory mapped into it and
// activated (HcclCommActivateCommMemory). Here the range is host address
// space and the "physical memory" is made accessible in place.
bool RankRun::allocateZeroCopy(uint64_t sendBytes, uint64_t recvBytes) {
  const uint64_t gran = 2u << 20; // hccl_test's physical granularity
  auto round = [&](uint64_t b) {
    return (std::max<uint64_t>(b, 1) + gran - 1) / gran * gran;
  };
  rangeBytes_ = round(sendBytes) + round(recvBytes);
  void *base = mmap(nullptr, rangeBytes_, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    std::fprintf(stderr,
                 "hccl-test: rank %u: cannot reserve %" PRIu64
                 " bytes for -z: %s\n",
                 rank_, rangeBytes_, std::strerror(errno));
    return false;
  }
  range_ = base;
  if (!ok(HcclCommSetMemoryRange(comm_, range_, rangeBytes_, 0, 0),
          "HcclCommSetMemoryRange"))
    return false;
  if (mprotect(range_, rangeBytes_, PROT_READ | PROT_WRITE) != 0) {
    std::fprintf(stderr, "hccl-test: rank %u: mprotect: %s\n", rank_,
                 std::strerror(errno));
    return false;
  }
  if (!ok(HcclCommActivateCommMemory(comm_, range_, rangeBytes_, 0, range_, 0),
          "HcclCommActivateCommMemory"))
    return false;
  activated_ = true;
  send_ = range_;
  recv_ = static_cast<char *>(range_) + round(sendBytes);
  return true;
}

void RankRun::release() {
  if (range_) {
    if (activated_)
      HcclCommDeactivateCommMemory(comm_, range_);
    HcclCommUnsetMemoryRange(comm_, range_);
    munmap(range_, rangeBytes_);
    range_ = send_ = recv_ = nullptr;
    activated_ = false;
  }
  for (auto [ptr, handle] :
       {std::pair{&send_, &sendHandle_}, std::pair{&recv_, &recvHandle_}}) {
    if (*handle)
      HcclCommDeregister(comm_, *handle);
    if (*ptr)
      opts_.useMalloc ? std::free(*ptr) : (void)HcclMemFree(*ptr);
    *ptr = *handle = nullptr;
  }
  if (stream_)
    HcclStreamDestroy(stream_);
  stream_ = nullptr;
  if (comm_)
    HcclCommDestroy(comm_);
  comm_ = nullptr;
}

HcclResult RankRun::launch(const Layout &l, aclrtStream stream) {
  HcclDataType t = opts_.dataType;
  switch (opts_.op) {
  case Op::AllReduce:
    return HcclAllReduce(send_, recv_, l.count, t, opts_.reduceOp, comm_,
                         stream);
  case Op::AllGather:
    return HcclAllGather(send_, recv_, l.count, t, comm_, stream);
  case Op::ReduceScatter:
    return HcclReduceScatter(send_, recv_, l.count, t, opts_.reduceOp, comm_,
                             stream);
  case Op::Broadcast:
    return HcclBroadcast(recv_, l.count, t, opts_.root, comm_, stream);
  case Op::Reduce:
    return HcclReduce(send_, recv_, l.count, t, opts_.reduceOp, opts_.root,
                      comm_, stream);
  case Op::AllToAll:
    return HcclAlltoAll(send_, l.count, t, recv_, l.count, t, comm_, stream);
  case Op::AllToAllV:
    return HcclAlltoAllV(send_, l.sendCounts.data(), l.sdispls.data(), t, recv_,
                         l.recvCounts.data(), l.rdispls.data(), t, comm_,
                         stream);
  case Op::Scatter:
    return HcclScatter(send_, recv_, l.count, t, opts_.root, comm_, stream);
  case Op::AllGatherV:
    return HcclAllGatherV(send_, l.count, recv_, l.recvCounts.data(),
                          l.rdispls.data(), t, comm_, stream);
  case Op::ReduceScatterV:
    return HcclReduceScatterV(send_, l.sendCounts.data(), l.sdispls.data(),
                              recv_, l.count, t, opts_.reduceOp, comm_, stream);
  }
  return HCCL_E_PARA;
}

/// --gap-us with --issue ahead: the stream idles the gap after the previous
/// call's end, then runs the call; the time is from the gate's end to the
/// call's. All on the stream's thread, in order.
struct ColdGate {
  hccl::tools::HostClock::time_point prevEnd, released;
  std::chrono::microseconds gap{0};
  double seconds = 0;
};

void coldGateOpen(void *arg) {
  auto *g = static_cast<ColdGate *>(arg);
  hccl::tools::tightenTimerSlackOnce(); // the stream's thread sleeps here
  hccl::tools::waitUntil(g->prevEnd + g->gap, std::chrono::microseconds(100));
  g->released = hccl::tools::HostClock::now();
}

void coldGateDone(void *arg) {
  auto *g = static_cast<ColdGate *>(arg);
  g->prevEnd = hccl::tools::HostClock::now();
  g->seconds += std::chrono::duration<double>(g->prevEnd - g->released).count();
}

bool RankRun::runSize(uint64_t sizeBytes, int seq, FILE *csv) {
  size_t elem = dataTypeSize(opts_.dataType);
  Layout l = layoutFor(opts_.op, sizeBytes, elem, rank_, nRanks_);
  RankContext ctx{opts_.op, rank_, nRanks_, opts_.root};
  DataGen gen(opts_.dataType, opts_.reduceOp, isReductionOp(opts_.op),
              0x5eed0000u + static_cast<uint64_t>(seq));
  fillBuffers(ctx, l, gen, send_, recv_);

  aclrtStream s = opts_.sync ? nullptr : stream_;
  flush_.resize(static_cast<size_t>(opts_.flushMiB) << 20);
  CallMemory memory{send_, recv_, l.sendElems * elem, l.recvElems * elem,
                    opts_.flushMiB > 0 ? &flush_ : nullptr};
  for (int i = 0; i < opts_.warmupIters; ++i)
    if (!ok(launch(l, s), opName(opts_.op)))
      return false;
  if (s && !ok(HcclStreamSynchronize(s), "HcclStreamSynchronize"))
    return false;
  if (!ok(HcclBarrier(comm_, nullptr), "HcclBarrier"))
    return false;
  double seconds = 0;
  if (opts_.gapUs > 0 && opts_.issueAhead) {
    // Cold calls as an NPU's stream sees them: no host thread wakes
    // between two calls (Options.h, issueAhead).
    ColdGate gate;
    gate.gap = std::chrono::microseconds(opts_.gapUs);
    gate.prevEnd = hccl::tools::HostClock::now();
    bool queued = true;
    for (int i = 0; i < opts_.iters && queued; ++i)
      queued = ok(HcclStreamLaunchHostFunc(s, coldGateOpen, &gate),
                  "HcclStreamLaunchHostFunc") &&
               ok(launch(l, s), opName(opts_.op)) &&
               ok(HcclStreamLaunchHostFunc(s, coldGateDone, &gate),
                  "HcclStreamLaunchHostFunc");
    // The queued gates point at `gate`: drained before it goes, failed
    // or not.
    if (!ok(HcclStreamSynchronize(s), "HcclStreamSynchronize") || !queued)
      return false;
    seconds = gate.seconds;
  } else if (opts_.fromMemory() && opts_.issueAhead) {
    // Calls from memory queued as a step queues its collectives: every
    // call at once, each behind a stream task that evicts (or flushes), so
    // no host thread parks and wakes between calls. The ranks then meet on
    // the stream (a queued barrier): a rank whose eviction ended first
    // would otherwise do part of the call before the last one started
    // (milliseconds apart after evicting 64 MiB), timed as nothing; and
    // again after it, so that no rank evicts for the next call while
    // another still ends this one (with more ranks than cores it would take
    // that rank's core, timed as the call: the second meeting of the lone
    // way, below). With one clock the call is timed from the last rank's
    // start (timeFromLastStart).
    std::vector<double> marks;
    std::string failed;
    if (queueCallsFromMemory(
            comm_, s, memory, opts_.iters, opName(opts_.op),
            [&] { return launch(l, s); }, marks, &failed) != HCCL_SUCCESS) {
      std::fprintf(stderr, "hccl-test: rank %u: %s\n", rank_, failed.c_str());
      return false;
    }
    if (!timeFromLastStart(marks, &seconds))
      return false;
  } else if (opts_.fromMemory()) {
    // Calls from memory: each rank evicts its caches by writing a buffer
    // larger than them (or, --evict-buffers, evicts the call's buffers
    // alone), the ranks meet (so no rank's flush is timed as the others'
    // wait), then the call alone is timed.
    // Each call's start and end on this rank; with one clock for all ranks
    // the call is timed from the last start to the last end (below).
    std::vector<double> marks(2 * static_cast<size_t>(opts_.iters));
    for (int i = 0; i < opts_.iters; ++i) {
      memory.evict(static_cast<size_t>(i));
      if (!ok(HcclBarrier(comm_, nullptr), "HcclBarrier"))
        return false;
      double t = nowSeconds();
      if (!ok(launch(l, s), opName(opts_.op)) ||
          (s && !ok(HcclStreamSynchronize(s), "HcclStreamSynchronize")))
        return false;
      double e = nowSeconds();
      marks[2 * static_cast<size_t>(i)] = t;
      marks[2 * static_cast<size_t>(i) + 1] = e;
      // No rank flushes for the next call before every rank has ended this
      // one: with more ranks than cores a rank done early would take the
      // cores from one still finishing (3 ms of a 4-rank 64 KB all-reduce
      // on 2 cores after 64 MiB flushes, timed as the call).
      if (!ok(HcclBarrier(comm_, nullptr), "HcclBarrier"))
        return false;
    }
    if (!timeFromLastStart(marks, &seconds))
      return false;
  } else if (opts_.gapUs > 0) {
    // Cold calls: each rank idles first, as between a step's collectives,
    // so the runtime's threads have parked and the ranks arrive apart.
    hccl::tools::tightenTimerSlack();
    for (int i = 0; i < opts_.iters; ++i) {
      hccl::tools::waitUntil(hccl::tools::HostClock::now() +
                                 std::chrono::microseconds(opts_.gapUs),
                             std::chrono::microseconds(100));
      double t = nowSeconds();
      if (!ok(launch(l, s), opName(opts_.op)) ||
          (s && !ok(HcclStreamSynchronize(s), "HcclStreamSynchronize")))
        return false;
      seconds += nowSeconds() - t;
    }
  } else {
    double t0 = nowSeconds();
    for (int i = 0; i < opts_.iters; ++i)
      if (!ok(launch(l, s), opName(opts_.op)))
        return false;
    if (s && !ok(HcclStreamSynchronize(s), "HcclStreamSynchronize"))
      return false;
    seconds = nowSeconds() - t0;
  }
  // -n 0 (hccl_test accepts it): nothing timed, reported as 0.
  seconds = opts_.iters > 0 ? seconds / opts_.iters : 0.0;

  uint64_t wrong = 0;
  if (opts_.check) {
    Mismatches m = verifyBuffers(ctx, l, gen, recv_);
    wrong = m.count;
    for (const std::string &d : m.first)
      std::fprintf(stderr, "hccl-test: rank %u: %s %" PRIu64 " bytes %s: %s\n",
                   rank_, opName(opts_.op), l.dataBytes,
                   dataTypeName(opts_.dataType), d.c_str());
    if (m.count > m.first.size())
      std::fprintf(
          stderr, "hccl-test: rank %u: ... %" PRIu64 " wrong elements in all\n",
          rank_, m.count);
  }
  // The job's time is the slowest rank's; any rank's error fails the row.
  double stats[2] = {seconds, static_cast<double>(wrong)};
  if (!ok(HcclAllReduce(stats, stats, 2, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_MAX,
                        comm_, nullptr),
          "HcclAllReduce (gathering timings)"))
    return false;
  bool rowOk = stats[1] == 0;
  failed_ = failed_ || !rowOk;
  // data_size is the size hccl_test's loop is at; the bandwidths follow it.
  double us = stats[0] * 1e6;
  double algbw = stats[0] > 0 ? sizeBytes / stats[0] / 1e9 : 0;
  double busbw = algbw * busBandwidthFactor(opts_.op, nRanks_);
  if (wrong > 0)
    std::printf("rank id %u, check result failed, %-17llu | %-14.2f | "
                "%-20.5f | failed\n",
                rank_, static_cast<unsigned long long>(sizeBytes),
                seconds * 1e6, seconds > 0 ? sizeBytes / seconds / 1e9 : 0.0);
  if (rank_ == opts_.root) {
    const char *check = !opts_.check ? "NULL" : rowOk ? "success" : "failed";
    std::printf("%-17llu | %-14.2f | %-20.5f | %-13s | %.5f\n",
                static_cast<unsigned long long>(sizeBytes), us, algbw, check,
                busbw);
    std::fflush(stdout);
    if (csv)
      std::fprintf(csv, "%s,%s,%s,%u,%llu,%llu,%.3f,%.6f,%.6f,%s\n",
                   opName(opts_.op), dataTypeName(opts_.dataType),
                   isReductionOp(opts_.op) ? reduceOpName(opts_.reduceOp) : "",
                   nRanks_, static_cast<unsigned long long>(sizeBytes),
                   static_cast<unsigned long long>(l.count), us, algbw, busbw,
                   check);
  }
  return true;
}

bool RankRun::timeFromLastStart(std::vector<double> &marks, double *seconds) {
  return ok(lastStartToLastEnd(comm_, sharedClock_, marks, seconds),
            "HcclAllReduce (gathering call times)");
}

bool RankRun::findSharedClock() {
  return ok(sharedSteadyClock(comm_, &sharedClock_),
            "HcclAllReduce (comparing boot ids)");
}

int RankRun::run() {
  if (!opts_.algo.empty())
    setenv("HCCL_ALGO", opts_.algo.c_str(), 1);
  if (!ok(HcclCommInitFromEnv(&comm_), "HcclCommInitFromEnv") ||
      !ok(HcclGetRankId(comm_, &rank_), "HcclGetRankId") ||
      !ok(HcclGetRankSize(comm_, &nRanks_), "HcclGetRankSize"))
    return 1;
  if (opts_.root >= nRanks_) {
    if (rank_ == 0)
      std::fprintf(stderr,
                   "hccl-test: -r %u: the root must be below the number of "
                   "ranks (%u)\n",
                   opts_.root, nRanks_);
    return 2;
  }
  // -p is the NPUs per node (hccl_test maps rank r to device r % -p); the
  // host has no devices to count, so any value is accepted here.
  // Buffers for the largest size, reused by every row.
  size_t elem = dataTypeSize(opts_.dataType);
  uint64_t sendMax = 0, recvMax = 0;
  for (uint64_t size : opts_.sizes(nRanks_)) {
    Layout l = layoutFor(opts_.op, size, elem, rank_, nRanks_);
    sendMax = std::max(sendMax, l.sendElems * elem);
    recvMax = std::max(recvMax, l.recvElems * elem);
  }
  if (opts_.zeroCopy) {
    if (!allocateZeroCopy(sendMax, recvMax))
      return 1;
  } else if (!allocate(sendMax, &send_, &sendHandle_) ||
             !allocate(recvMax, &recv_, &recvHandle_)) {
    return 1;
  }
  if (!opts_.sync && !ok(HcclStreamCreate(&stream_), "HcclStreamCreate"))
    return 1;
  if (opts_.fromMemory() && !findSharedClock())
    return 1;

  std::unique_ptr<FILE, int (*)(FILE *)> csv(nullptr, &std::fclose);
  if (rank_ == opts_.root) {
    if (!opts_.csvPath.empty()) {
      csv.reset(std::fopen(opts_.csvPath.c_str(), "w"));
      if (!csv) {
        std::fprintf(stderr, "hccl-test: --csv %s: cannot open: %s\n",
                     opts_.csvPath.c_str(), std::strerror(errno));
        return 2;
      }
      std::fprintf(csv.get(),
                   "op,datatype,reduce_op,ranks,data_size_bytes,count,"
                   "avg_time_us,alg_bandwidth_gbps,bus_bandwidth_gbps,"
                   "check_result\n");
    }
    for (const std::string &w : opts_.warnings)
      std::printf("%s\n", w.c_str());
    // hccl_test's lines; what this run is goes to stderr.
    std::printf("the minbytes is %llu, maxbytes is %llu, iters is %d, "
                "warmup_iters is %d\n",
                static_cast<unsigned long long>(opts_.alignedMin(nRanks_)),
                static_cast<unsigned long long>(opts_.alignedMax(nRanks_)),
                opts_.iters, opts_.warmupIters);
    std::fprintf(stderr, "%s: %u ranks, %s%s%s, root %u, %s buffers, %s\n",
                 opName(opts_.op), nRanks_, dataTypeName(opts_.dataType),
                 isReductionOp(opts_.op) ? ", " : "",
                 isReductionOp(opts_.op) ? reduceOpName(opts_.reduceOp) : "",
                 opts_.root,
                 opts_.zeroCopy    ? "zero-copy range"
                 : opts_.useMalloc ? "malloc"
                                   : "HcclMemAlloc",
                 opts_.sync ? "blocking calls" : "host stream");
    if (opts_.fromMemory())
      std::fprintf(
          stderr, "calls from memory (%s; %s), %s\n",
          opts_.evictBuffers
              ? "each rank evicts its send and receive buffers "
                "from the caches before each"
              : ("each rank writes " + std::to_string(opts_.flushMiB) +
                 " MiB before each")
                    .c_str(),
          opts_.issueAhead ? "queued at once, each behind a stream task that "
                             "does so and a barrier on the stream, and "
                             "followed by another"
                           : "the ranks meet, then each call runs alone",
          sharedClock_ ? "timed from the last rank's start to the last "
                         "rank's end (one kernel, one clock)"
                       : "each timed on its rank's own clock (the ranks' "
                         "boot ids differ or are unreadable: their skew "
                         "after the meeting is counted)");
    std::printf("%-15s | %-12s | %-18s | %s | %s\n",
                "data_size(Bytes):", "aveg_time(us):", "alg_bandwidth(GB/s):",
                "check_result:", "bus_bandwidth(GB/s):");
    std::fflush(stdout);
  }
  int seq = 0;
  for (uint64_t size : opts_.sizes(nRanks_))
    if (!runSize(size, seq++, csv.get()))
      return 1;
  return failed_ ? 1 : 0;
}

} // namespace

int runRank(const Options &opts) {
  RankRun r(opts);
  return r.run();
}

} // namespace hccltest
