//===- PlanRunner.cpp - One rank of hccl-run ------------------------------===//
//
// The device is a clock: `compute` advances it by the op's predicted time
// (kernels run back to back), `start` is issued when the device has reached
// it (the gradient exists), on a host stream of the runtime, and `wait` holds
// the device until that collective (not those queued after it on its
// stream) has ended. With --issue ahead (the default) the host queues an
// iteration's starts at once, each behind a gate task on its stream that
// holds the stream until the device clock (DeviceClock.h) reaches it, as an
// NPU's host runs ahead of its device and its comm stream waits on the
// compute stream's event; the host then sleeps until the iteration is over.
// With --issue host the plan's items run in order on the calling thread,
// which sleeps until each start is due and for each wait: its wake-ups then
// take the cores the collectives run on (docs/performance.md, "Starts held
// on the stream"). Either way communication overlaps compute as the
// schedule says, and the iteration time is what the schedule bought.
// Sleeping against the device clock, not per op, keeps the timer's
// overshoot (50-130 us per sleep on a VM) from adding up over a graph's
// hundreds of ops.
//
// Every collective runs on its own buffers, filled with hccl-test's
// reference data (values whose reduction is exact in any order), and is
// checked after the last iteration.
//
//===----------------------------------------------------------------------===//
#include "PlanRunner.h"

#include "ChromeTrace.h"
#include "CommunicatorStreams.h"
#include "DeviceClock.h"
#include "HostMemory.h"
#include "HostWait.h"
#include "Intervals.h"
#include "PhaseProbe.h"

#include "Layout.h"
#include "Reference.h"
#include "Verify.h"

#include "hccl-mlir/schedule/Plan.h"
#include "hccl/hccl.h"
#include "hccl/hccl_ext.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace sched = hccl::sched;
using hccltest::Op;

namespace hcclrun {
namespace {

using Clock = std::chrono::steady_clock;

double usSince(Clock::time_point t0, Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t - t0).count();
}

std::optional<Op> opOf(sched::Collective c) {
  switch (c) {
  case sched::Collective::AllReduce:
    return Op::AllReduce;
  case sched::Collective::AllGather:
    return Op::AllGather;
  case sched::Collective::ReduceScatter:
    return Op::ReduceScatter;
  case sched::Collective::Broadcast:
    return Op::Broadcast;
  case sched::Collective::Reduce:
    return Op::Reduce;
  case sched::Collective::AllToAll:
    return Op::AllToAll;
  default:
    return std::nullopt;
  }
}

/// The per-rank buffer hccl-test's layout calls data_size.
uint64_t dataBytes(sched::Collective c, int64_t n, int64_t p, size_t elem) {
  switch (c) {
  case sched::Collective::AllGather:
  case sched::Collective::ReduceScatter:
  case sched::Collective::AllToAll:
    return static_cast<uint64_t>(n) * p * elem;
  default:
    return static_cast<uint64_t>(n) * elem;
  }
}

/// Rearranges p blocks of n elements between the leading layout the
/// reference data uses (block k at k*n) and a program's block layout with
/// `outer` rows (sched::blockOffset), in place.
void relayout(void *buf, int64_t p, int64_t n, int64_t outer, size_t elem,
              bool toRows) {
  if (outer <= 1 || n == 0)
    return;
  char *b = static_cast<char *>(buf);
  std::vector<char> was(b, b + static_cast<size_t>(p * n) * elem);
  const int64_t len = n / outer;
  for (int64_t k = 0; k < p; ++k)
    for (int64_t i = 0; i < n; i += len) {
      int64_t lead = k * n + i, rows = sched::blockOffset(k, i, p, n, outer);
      int64_t from = toRows ? lead : rows, to = toRows ? rows : lead;
      std::memcpy(b + static_cast<size_t>(to) * elem,
                  was.data() + static_cast<size_t>(from) * elem,
                  static_cast<size_t>(len) * elem);
    }
}

/// One started collective: its program, buffers and last timing.
struct Instance {
  int64_t id = 0;
  const sched::PlanProgram *program = nullptr;
  bool member = false; ///< this rank is in the program's group
  bool zeros = false;  ///< a permute target without source: expects zeros
  uint32_t groupRank = 0;
  hccltest::RankContext ctx{};
  hccltest::Layout layout;
  std::unique_ptr<hccltest::DataGen> gen;
  void *send = nullptr, *recv = nullptr;
  uint64_t sendBytes = 0, recvBytes = 0;
  aclrtStream stream = nullptr;
  int lane = 1; ///< its stream's row in the trace
  Clock::time_point issued, done;
  /// Set by hostDone on the stream's thread; a wait waits for this
  /// collective alone, not for the ones queued after it on its stream.
  std::atomic<bool> finished{false};
  std::mutex *mu = nullptr;
  std::condition_variable *cv = nullptr;
};

using hccl::tools::TraceEvent;

struct Figures {
  double iterationUs = 0, computeUs = 0, commUs = 0, exposedUs = 0;
  /// Starts the host issued, those it issued more than kLateUs after the
  /// device clock reached them, and the largest delay: the harness's own
  /// error (an NPU's host enqueues ahead of its device and is never late).
  double starts = 0, lateStarts = 0, worstLateUs = 0;
};

/// A start this late is counted: well past a futex wake-up's usual
/// 15-130 us on a VM, and near a scheduler slice.
constexpr double kLateUs = 1000;

/// The host thread's scheduler slice while timing, the kernel's again
/// after. Threads created meanwhile would keep it; none is (streams and
/// transports start their threads in setup, before timing).
class SliceScope {
public:
  explicit SliceScope(int us) : set_(us > 0) {
    if (set_ &&
        !hccl::tools::requestSchedulerSlice(std::chrono::microseconds(us)))
      std::fprintf(stderr,
                   "hccl-run: warning: the kernel refused --host-slice-us "
                   "%d (%s); timing with the thread's own slice\n",
                   us, std::strerror(errno));
  }
  ~SliceScope() {
    if (set_)
      hccl::tools::requestSchedulerSlice(std::chrono::microseconds(0));
  }
  SliceScope(const SliceScope &) = delete;
  SliceScope &operator=(const SliceScope &) = delete;

private:
  bool set_;
};

void hostDone(void *arg) {
  auto *inst = static_cast<Instance *>(arg);
  inst->done = Clock::now();
  {
    std::lock_guard<std::mutex> lock(*inst->mu);
    inst->finished = true;
  }
  inst->cv->notify_all();
}

/// Until `inst` has finished. The device needs it at `need`; the host's
/// next start waits for it. A futex wake-up comes 15-40 us late on a VM, and
/// a host that wakes late issues its next start late, which an NPU's host,
/// running ahead of its device, never does. So: sleep until `spin` before
/// `need`, yield from then until 50 us after it (a collective that ends
/// there is seen at once), and only a collective still running after that
/// is waited for asleep (yielding longer would take the cores the
/// collective runs on).
void awaitFinished(Instance &inst, Clock::time_point need,
                   std::chrono::microseconds spin) {
  {
    std::unique_lock<std::mutex> lock(*inst.mu);
    if (inst.cv->wait_until(lock, need - spin,
                            [&] { return inst.finished.load(); }))
      return;
  }
  Clock::time_point until =
      std::max(Clock::now(), need) + std::chrono::microseconds(50);
  while (!inst.finished && Clock::now() < until)
    std::this_thread::yield();
  std::unique_lock<std::mutex> lock(*inst.mu);
  inst.cv->wait(lock, [&] { return inst.finished.load(); });
}

/// --issue ahead: one start, queued before the device reaches it. The gate
/// task ahead of the collective on its stream holds the stream until the
/// device clock reaches the start; the task after it reports the end.
struct Gate {
  Instance *inst = nullptr;
  hccl::tools::DeviceClock *clock = nullptr;
  size_t step = 0; ///< the start is at the point before this step
  size_t slot = 0; ///< its end's slot in the clock
  /// The gate before it on its stream (nullptr: the first): the stream is
  /// busy until that one's collective ended.
  const Gate *prev = nullptr;
  std::chrono::microseconds spin{0};
  int sliceUs = 0; ///< --host-slice-us, for the stream's thread
  /// When the start was due; when its stream could first issue it (due, or
  /// the end of the collective before it on the stream); when it was
  /// issued; when it ended.
  Clock::time_point due, ready, issued, done;
};

void gateOpen(void *arg) {
  auto *g = static_cast<Gate *>(arg);
  // The stream's thread now does what the host thread did: it sleeps until
  // a start is due and wakes to issue it.
  hccl::tools::tightenTimerSlackOnce();
  thread_local bool sliced = false;
  if (!sliced && g->sliceUs > 0)
    sliced = hccl::tools::requestSchedulerSlice(
        std::chrono::microseconds(g->sliceUs));
  g->due = g->clock->reach(g->step);
  g->ready = g->prev ? std::max(g->due, g->prev->done) : g->due;
  hccl::tools::waitUntil(g->due, g->spin);
  g->issued = Clock::now();
}

void gateDone(void *arg) {
  auto *g = static_cast<Gate *>(arg);
  g->done = Clock::now();
  g->clock->ended(g->slot, g->done);
}

class PlanRun {
public:
  PlanRun(HcclComm comm, uint32_t rank, uint32_t size, const Options &o)
      : comm_(comm), rank_(rank), size_(size), opts_(o) {}
  ~PlanRun() { release(); }

  /// Loads the plan and sets up every collective's buffers. Returns an exit
  /// status (0 = ok) and prints errors on rank 0 (all ranks fail alike).
  int setup(const std::string &path) {
    path_ = path;
    auto parsed = sched::readPlanFile(path);
    if (!parsed)
      return fail(2, parsed.message());
    plan_ = parsed.take();
    if (plan_.items.empty())
      return fail(2, path + ": the plan has no schedule items (export it "
                            "with hccl-translate --comm-to-plan)");
    if (Status s = checkGroup(); s != 0)
      return s;
    if (HcclPlanLoad(path.c_str(), &handle_) != HCCL_SUCCESS)
      return fail(2, std::string("the runtime cannot load ") + path + ": " +
                         HcclGetLastErrorMessage());
    for (const sched::PlanItem &it : plan_.items) {
      if (it.kind != sched::PlanItemKind::Start)
        continue;
      const sched::PlanProgram *pp = plan_.find(it.program);
      if (!pp)
        return fail(2, path + ": start " + std::to_string(it.id) +
                           " names unknown program '" + it.program + "'");
      auto inst = std::make_unique<Instance>();
      inst->id = it.id;
      inst->program = pp;
      inst->mu = &doneMu_;
      inst->cv = &doneCv_;
      if (int s = prepare(*inst); s != 0)
        return s;
      instances_[it.id] = std::move(inst);
    }
    if (opts_.issueAhead)
      prepareAhead();
    return allocate();
  }

  /// --issue ahead: the device's steps (compute, and waits for this rank's
  /// collectives) and a gate per start of this rank, in plan order.
  void prepareAhead() {
    std::vector<hccl::tools::DeviceClock::Step> steps;
    std::map<int64_t, size_t> lastStart; // id -> its latest gate
    for (const sched::PlanItem &it : plan_.items) {
      switch (it.kind) {
      case sched::PlanItemKind::Compute: {
        double us = it.costUs * opts_.timeScale;
        computeSteps_.push_back({steps.size(), it.name, us});
        steps.push_back({us, -1});
        break;
      }
      case sched::PlanItemKind::Start: {
        Instance &inst = *instances_.at(it.id);
        if (!inst.member)
          break;
        Gate g;
        g.inst = &inst;
        g.step = steps.size();
        g.slot = gates_.size();
        g.spin = std::chrono::microseconds(opts_.spinUs);
        g.sliceUs = opts_.hostSliceUs;
        lastStart[it.id] = gates_.size();
        gates_.push_back(g);
        break;
      }
      case sched::PlanItemKind::Wait: {
        // A wait for a collective this rank has not started is no wait.
        auto at = lastStart.find(it.id);
        if (at == lastStart.end())
          break;
        waitSteps_.push_back({steps.size(), it.id});
        steps.push_back({0, static_cast<long>(at->second)});
        break;
      }
      }
    }
    clock_ = std::make_unique<hccl::tools::DeviceClock>(std::move(steps),
                                                        gates_.size());
    std::map<aclrtStream, const Gate *> lastOnStream;
    for (Gate &g : gates_) {
      g.clock = clock_.get();
      const Gate *&last = lastOnStream[g.inst->stream];
      g.prev = last;
      last = &g;
    }
  }

  /// Runs warm-up and measured iterations; fills per-iteration figures
  /// (max over ranks) and the trace of the last one. With a probe, `probes`
  /// gets its time (us) before the first timed iteration and after each.
  int run(std::vector<Figures> &figures, std::vector<TraceEvent> &trace,
          PhaseProbe *probe, std::vector<double> &probes) {
    hccl::tools::tightenTimerSlack();
    SliceScope slice(opts_.hostSliceUs);
    // With a span, warm up until both of its halves have wrapped once:
    // a stretch's first touch by a collective cost 30x its warm time on a
    // VM (2 ranks, resnet18-host: 3 collectives 85 ms instead of 3), and
    // a timed iteration must not be the first to reach it
    // (docs/performance.md, "The span's first pass"). Every rank launches
    // the same stretches, so all agree without a message.
    int warmup = opts_.warmup, added = 0;
    bool spanCold = false;
    auto readPhase = [&]() -> int {
      double us = 0;
      if (std::string e = probe->time(us); !e.empty())
        return fail(1, e);
      probes.push_back(us);
      return 0;
    };
    if (probe && warmup == 0)
      if (int s = readPhase(); s != 0)
        return s;
    for (int i = 0; i < warmup + opts_.iters; ++i) {
      if (HcclBarrier(comm_, nullptr) != HCCL_SUCCESS)
        return fail(1, std::string("barrier failed: ") +
                           HcclGetLastErrorMessage());
      Figures f;
      std::vector<TraceEvent> events;
      if (int s = iteration(f, events); s != 0)
        return s;
      if (i + 1 >= warmup && spanSend_ && !(sendWrapped_ && recvWrapped_)) {
        if (added < kMaxSpanWarmups) {
          ++warmup;
          ++added;
        } else {
          spanCold = true;
        }
      }
      if (i >= warmup) {
        figures.push_back(f);
        trace = std::move(events);
      }
      // After the last warm-up iteration and after each timed one. An
      // iteration the span has just made a warm-up (with -w 0 one that was
      // to be timed) drops the probes before it: they stood before no timed
      // iteration.
      if (probe && i + 1 >= warmup) {
        if (i + 1 == warmup)
          probes.clear();
        if (int s = readPhase(); s != 0)
          return s;
      }
    }
    if (spanSend_ && rank_ == 0) {
      std::fprintf(stderr,
                   "hccl-run: %s: %llu launches took the next stretch of a "
                   "%llu MiB span, %llu times from its start again; %d "
                   "warm-up iterations added until it had wrapped\n",
                   path_.c_str(),
                   static_cast<unsigned long long>(spanLaunches_),
                   static_cast<unsigned long long>(spanSend_ >> 20),
                   static_cast<unsigned long long>(spanWraps_), added);
      if (spanCold)
        std::fprintf(stderr,
                     "hccl-run: warning: %s: the span had not wrapped after "
                     "%d added warm-up iterations; the timed ones touch "
                     "parts of it first (a smaller --buffer-span-mib "
                     "avoids that)\n",
                     path_.c_str(), added);
    }
    // The slowest rank decides an iteration.
    constexpr size_t kFields = 7;
    std::vector<double> v;
    for (const Figures &f : figures)
      v.insert(v.end(), {f.iterationUs, f.computeUs, f.commUs, f.exposedUs,
                         f.starts, f.lateStarts, f.worstLateUs});
    if (!v.empty() &&
        HcclAllReduce(v.data(), v.data(), v.size(), HCCL_DATA_TYPE_FP64,
                      HCCL_REDUCE_MAX, comm_, nullptr) != HCCL_SUCCESS)
      return fail(1, std::string("gathering figures failed: ") +
                         HcclGetLastErrorMessage());
    for (size_t i = 0; i < figures.size(); ++i) {
      const double *x = &v[kFields * i];
      figures[i] = {x[0], x[1], x[2], x[3], x[4], x[5], x[6]};
    }
    return 0;
  }

  /// Mismatching elements summed over ranks (0 = every result right).
  int check(uint64_t &mismatches, std::string &first) {
    uint64_t local = 0;
    for (auto &[id, inst] : instances_) {
      if (!inst->member)
        continue;
      // With a span, each is checked where a launch would take it (the
      // stretch after the last one's), not at the span's start alone.
      void *ownSend = inst->send, *ownRecv = inst->recv;
      if (spanSend_) {
        auto [send, recv] = launchBuffers(*inst);
        inst->send = send;
        inst->recv = recv;
      }
      if (shared_) {
        // In plan order, one at a time: fill, run, check.
        fill(*inst);
        if (HcclRunPlanCollective(comm_, handle_, inst->program->id.c_str(),
                                  inst->send, inst->recv,
                                  nullptr) != HCCL_SUCCESS)
          return fail(1, "checking collective " + std::to_string(id) + " (" +
                             inst->program->id +
                             ") failed: " + HcclGetLastErrorMessage());
      }
      // The reference reads results in the leading layout.
      const sched::Program &prog = inst->program->program;
      relayout(inst->recv, prog.p, prog.n, prog.outputOuter,
               sched::dataTypeSize(prog.dtype), /*toRows=*/false);
      hccltest::Mismatches m =
          inst->zeros ? zerosExpected(*inst)
                      : hccltest::verifyBuffers(inst->ctx, inst->layout,
                                                *inst->gen, inst->recv);
      local += m.count;
      if (m.count && first.empty() && !m.first.empty())
        first = "rank " + std::to_string(rank_) + ", program " +
                inst->program->id + ": " + m.first.front();
      inst->send = ownSend;
      inst->recv = ownRecv;
    }
    uint64_t sum = local;
    if (HcclAllReduce(&sum, &sum, 1, HCCL_DATA_TYPE_UINT64, HCCL_REDUCE_SUM,
                      comm_, nullptr) != HCCL_SUCCESS)
      return fail(1, std::string("gathering checks failed: ") +
                         HcclGetLastErrorMessage());
    mismatches = sum;
    if (local && !first.empty())
      std::fprintf(stderr, "hccl-run: wrong result on %s\n", first.c_str());
    return 0;
  }

  size_t collectives() const { return instances_.size(); }

private:
  using Status = int;

  int fail(int status, const std::string &msg) {
    if (rank_ == 0 || status != 2)
      std::fprintf(stderr, "hccl-run: %s\n", msg.c_str());
    return status;
  }

  Status checkGroup() {
    std::vector<int64_t> group = plan_.groupRanks;
    if (group.empty())
      for (const sched::PlanProgram &pp : plan_.programs)
        for (int64_t r : pp.allRanks())
          group.push_back(r);
    int64_t maxRank = -1;
    for (int64_t r : group)
      maxRank = std::max(maxRank, r);
    int64_t need = group.empty() ? 0 : maxRank + 1;
    if (!plan_.programs.empty() && group.empty())
      need = plan_.programs.front().program.p;
    if (need != static_cast<int64_t>(size_))
      return fail(2, path_ + ": the plan runs on " + std::to_string(need) +
                         " ranks but " + std::to_string(size_) +
                         " were launched");
    return 0;
  }

  int prepare(Instance &inst) {
    const sched::Program &prog = inst.program->program;
    // The rank runs the program in the group that holds it (a program on
    // a partitioned group runs in every subgroup at once).
    int64_t groupRank = -1, subgroup = 0;
    if (inst.program->groups.empty())
      groupRank = rank_;
    else if (const auto *g = inst.program->groupOf(rank_, &groupRank))
      subgroup = g - inst.program->groups.data();
    inst.member = groupRank >= 0;
    if (!inst.member)
      return 0;
    inst.groupRank = static_cast<uint32_t>(groupRank);
    auto op = opOf(prog.collective);
    uint32_t root = static_cast<uint32_t>(prog.root);
    if (prog.collective == sched::Collective::Permute &&
        prog.tables.size() > 1) {
      // Not an HCCL collective: checked as a broadcast from this rank's
      // source (every rank sends its own input), or as zeros without one.
      int64_t source = prog.tables[1][inst.groupRank];
      op = hccltest::Op::Broadcast;
      root = source >= 0 ? static_cast<uint32_t>(source) : 0;
      inst.zeros = source < 0;
    }
    if (!op)
      return fail(2, path_ + ": program '" + inst.program->id + "' is a " +
                         sched::collectiveName(prog.collective) +
                         ", which hccl-run cannot check");
    size_t elem = sched::dataTypeSize(prog.dtype);
    auto dtype = static_cast<HcclDataType>(static_cast<int>(prog.dtype));
    auto rop = static_cast<HcclReduceOp>(static_cast<int>(prog.reduceOp));
    inst.layout = hccltest::layoutFor(
        *op, dataBytes(prog.collective, prog.n, prog.p, elem), elem,
        inst.groupRank, static_cast<uint32_t>(prog.p));
    // A program reads its input buffer and writes its output buffer, on
    // every rank and for every collective (a comm.broadcast takes a value
    // and returns one); HCCL's in-place HcclBroadcast is not its contract.
    inst.ctx = {*op, inst.groupRank, static_cast<uint32_t>(prog.p), root,
                /*inPlaceBroadcast=*/false};
    // Each subgroup gets data of its own, so data that crossed into
    // another subgroup's instance fails the check.
    inst.gen = std::make_unique<hccltest::DataGen>(
        dtype, rop, sched::isReduction(prog.collective),
        static_cast<uint64_t>(inst.id) * 7919 + 17 +
            static_cast<uint64_t>(subgroup) * 104729);
    HcclPlanProgramInfo info;
    if (HcclPlanGetProgramInfo(handle_, inst.program->id.c_str(),
                               inst.groupRank, &info) != HCCL_SUCCESS)
      return fail(2, std::string("program '") + inst.program->id +
                         "': " + HcclGetLastErrorMessage());
    if (info.inputBytes != inst.layout.sendElems * elem ||
        info.outputBytes != inst.layout.recvElems * elem)
      return fail(2, "program '" + inst.program->id + "' has buffers of " +
                         std::to_string(info.inputBytes) + " / " +
                         std::to_string(info.outputBytes) +
                         " bytes; its collective needs " +
                         std::to_string(inst.layout.sendElems * elem) + " / " +
                         std::to_string(inst.layout.recvElems * elem));
    inst.sendBytes = std::max<uint64_t>(info.inputBytes, 1);
    inst.recvBytes = std::max<uint64_t>(info.outputBytes, 1);
    // Started collectives share the communication streams round-robin,
    // or each communicator (its groups' ranks; none: the identity) has one.
    size_t k = 0;
    if (opts_.streamPerGroup)
      k = communicators_.streamOf(*inst.program);
    else
      k = nextStream_++ % static_cast<size_t>(opts_.streams);
    while (streams_.size() <= k) {
      aclrtStream s = nullptr;
      if (HcclStreamCreate(&s) != HCCL_SUCCESS)
        return fail(1, std::string("cannot create a stream: ") +
                           HcclGetLastErrorMessage());
      streams_.push_back(s);
    }
    inst.stream = streams_[k];
    inst.lane = 1 + static_cast<int>(k);
    return 0;
  }

  /// Runtime-allocated buffers (peers on this host read them directly):
  /// one pair per collective, or, when they would exceed
  /// --max-buffer-mib, one pair shared by all (timing does not depend on
  /// the values; results are then checked one collective at a time).
  int allocate() {
    uint64_t total = 0, maxSend = 1, maxRecv = 1;
    for (auto &[id, inst] : instances_)
      if (inst->member) {
        total += inst->sendBytes + inst->recvBytes;
        maxSend = std::max(maxSend, inst->sendBytes);
        maxRecv = std::max(maxRecv, inst->recvBytes);
      }
    shared_ = total > opts_.maxBufferMiB * (1ull << 20);
    if (shared_) {
      if (streams_.size() > 1)
        return fail(2, path_ + ": its collectives need " +
                           std::to_string(total >> 20) +
                           " MiB of buffers per rank, more than "
                           "--max-buffer-mib; sharing one buffer pair needs "
                           "--streams 1");
      if (rank_ == 0)
        std::fprintf(stderr,
                     "hccl-run: %s: %llu MiB of buffers per rank exceed "
                     "--max-buffer-mib %llu: the collectives share one "
                     "buffer pair and are checked one by one after timing\n",
                     path_.c_str(),
                     static_cast<unsigned long long>(total >> 20),
                     static_cast<unsigned long long>(opts_.maxBufferMiB));
      if (opts_.bufferSpanMiB > 0) {
        spanSend_ = std::max<uint64_t>(maxSend, opts_.bufferSpanMiB << 20);
        spanRecv_ = std::max<uint64_t>(maxRecv, opts_.bufferSpanMiB << 20);
        maxSend = spanSend_;
        maxRecv = spanRecv_;
      }
      if (HcclMemAlloc(&sharedSend_, maxSend) != HCCL_SUCCESS ||
          HcclMemAlloc(&sharedRecv_, maxRecv) != HCCL_SUCCESS)
        return fail(1, std::string("cannot allocate the shared buffers: ") +
                           HcclGetLastErrorMessage());
      // This rank's pages of the span allocated before timing and its
      // values plain zeros. A peer still maps each page on its first touch,
      // until the span has wrapped once (docs/performance.md, "4 ranks
      // from memory").
      if (spanSend_) {
        std::memset(sharedSend_, 0, spanSend_);
        std::memset(sharedRecv_, 0, spanRecv_);
        // The host's setting, read and told once (rank 0).
        if (rank_ == 0) {
          std::string huge = hccl::tools::shmemHugePageMode();
          if (!hccl::tools::shmemHugePagesAllowed(huge))
            std::fprintf(stderr,
                         "hccl-run: note: %s: the span's shared memory gets "
                         "4 KiB pages; on a VM that shadows page tables that "
                         "costs more than the copies (docs/performance.md, "
                         "\"Huge pages for shared memory\"): %s\n",
                         path_.c_str(),
                         hccl::tools::shmemHugePageAdvice().c_str());
        }
      }
    } else if (opts_.bufferSpanMiB > 0) {
      return fail(2, path_ + ": --buffer-span-mib places collectives in the "
                             "shared buffer pair, and its buffers fit "
                             "--max-buffer-mib (give --max-buffer-mib 0)");
    }
    for (auto &[id, inst] : instances_) {
      if (!inst->member)
        continue;
      if (shared_) {
        inst->send = sharedSend_;
        inst->recv = sharedRecv_;
        continue;
      }
      if (HcclMemAlloc(&inst->send, inst->sendBytes) != HCCL_SUCCESS ||
          HcclMemAlloc(&inst->recv, inst->recvBytes) != HCCL_SUCCESS)
        return fail(1, std::string("cannot allocate buffers for program '") +
                           inst->program->id +
                           "': " + HcclGetLastErrorMessage() +
                           " (--max-buffer-mib lowers the limit above which "
                           "collectives share buffers)");
      fill(*inst);
    }
    return 0;
  }

  /// The buffers a launch of `inst` runs on: its own, or, with
  /// --buffer-span-mib, the next page-aligned stretch of the shared span
  /// (from its start again when the rest is too short).
  std::pair<void *, void *> launchBuffers(const Instance &inst) {
    if (spanSend_ == 0)
      return {inst.send, inst.recv};
    // Each half's next stretch; `wrapped` when it starts the half again.
    auto take = [](uint64_t &cursor, uint64_t span, uint64_t bytes,
                   bool &wrapped) {
      uint64_t aligned = (bytes + 4095) & ~uint64_t{4095};
      wrapped = cursor + aligned > span;
      if (wrapped)
        cursor = 0;
      uint64_t at = cursor;
      cursor += aligned;
      return at;
    };
    ++spanLaunches_;
    bool sendWrap = false, recvWrap = false;
    uint64_t s = take(sendCursor_, spanSend_, inst.sendBytes, sendWrap);
    uint64_t r = take(recvCursor_, spanRecv_, inst.recvBytes, recvWrap);
    sendWrapped_ = sendWrapped_ || sendWrap;
    recvWrapped_ = recvWrapped_ || recvWrap;
    spanWraps_ += sendWrap || recvWrap; // either stretch started again
    return {static_cast<char *>(sharedSend_) + s,
            static_cast<char *>(sharedRecv_) + r};
  }

  /// A permute target without source: every element zero.
  static hccltest::Mismatches zerosExpected(const Instance &inst) {
    hccltest::Mismatches m;
    size_t elem = inst.gen->elemSize();
    const auto *b = static_cast<const unsigned char *>(inst.recv);
    for (uint64_t i = 0; i < inst.layout.recvElems; ++i)
      for (size_t k = 0; k < elem; ++k)
        if (b[i * elem + k] != 0) {
          if (++m.count <= 3)
            m.first.push_back("element " + std::to_string(i) +
                              " is not zero (permute target without source)");
          break;
        }
    return m;
  }

  /// The reference data, in the program's block layout.
  void fill(Instance &inst) {
    hccltest::fillBuffers(inst.ctx, inst.layout, *inst.gen, inst.send,
                          inst.recv);
    const sched::Program &prog = inst.program->program;
    relayout(inst.send, prog.p, prog.n, prog.inputOuter,
             sched::dataTypeSize(prog.dtype), /*toRows=*/true);
  }

  void waitUntil(Clock::time_point t) const {
    hccl::tools::waitUntil(t, std::chrono::microseconds(opts_.spinUs));
  }

  int iteration(Figures &f, std::vector<TraceEvent> &events) {
    if (opts_.issueAhead)
      return iterationAhead(f, events);
    Clock::time_point t0 = Clock::now();
    Clock::time_point device = t0; // when the device's queued work ends
    std::vector<std::pair<double, double>> comm;
    double compute = 0;
    for (const sched::PlanItem &it : plan_.items) {
      switch (it.kind) {
      case sched::PlanItemKind::Compute: {
        double us = it.costUs * opts_.timeScale;
        events.push_back({it.name, "compute", usSince(t0, device), us, 0});
        device += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double, std::micro>(us));
        compute += us;
        break;
      }
      case sched::PlanItemKind::Start: {
        Instance &inst = *instances_.at(it.id);
        if (!inst.member)
          break;
        waitUntil(device);
        inst.finished = false;
        inst.issued = Clock::now();
        f.starts += 1;
        if (double late = usSince(device, inst.issued); late > kLateUs) {
          f.lateStarts += 1;
          f.worstLateUs = std::max(f.worstLateUs, late);
        }
        auto [send, recv] = launchBuffers(inst);
        if (HcclRunPlanCollective(comm_, handle_, inst.program->id.c_str(),
                                  send, recv, inst.stream) != HCCL_SUCCESS ||
            HcclStreamLaunchHostFunc(inst.stream, hostDone, &inst) !=
                HCCL_SUCCESS)
          return fail(1, "collective " + std::to_string(it.id) + " (" +
                             inst.program->id +
                             ") failed to start: " + HcclGetLastErrorMessage());
        break;
      }
      case sched::PlanItemKind::Wait: {
        Instance &inst = *instances_.at(it.id);
        if (!inst.member)
          break;
        Clock::time_point s = Clock::now();
        // As a compute stream waits for one collective's event on an NPU;
        // its errors surface at the synchronisation after the iteration.
        awaitFinished(inst, device, std::chrono::microseconds(opts_.spinUs));
        Clock::time_point e = Clock::now();
        // The device resumes when the collective ends, not when this thread
        // wakes to see it (an NPU's compute stream waits on the event in
        // hardware); a late wake-up delays only the host's next start.
        device = std::max(device, inst.done);
        double is = usSince(t0, inst.issued), ie = usSince(t0, inst.done);
        comm.push_back({is, ie});
        events.push_back({inst.program->id, "collective", is,
                          std::max(0.0, ie - is), inst.lane});
        if (usSince(s, e) > 1)
          events.push_back({"wait " + std::to_string(inst.id), "wait",
                            usSince(t0, s), usSince(s, e), 0});
        break;
      }
      }
    }
    waitUntil(device);
    f.iterationUs = usSince(t0, Clock::now());
    for (aclrtStream s : streams_)
      if (HcclStreamSynchronize(s) != HCCL_SUCCESS)
        return fail(1, std::string("a collective failed: ") +
                           HcclGetLastErrorMessage());
    f.computeUs = compute;
    f.commUs = hccl::tools::unionLength(comm);
    f.exposedUs = std::max(0.0, f.iterationUs - compute);
    return 0;
  }

  /// --issue ahead: every start of the iteration queued at once behind its
  /// gate; the host thread then only waits for the streams. Figures as
  /// iteration() gives them, from the device clock.
  int iterationAhead(Figures &f, std::vector<TraceEvent> &events) {
    clock_->arm(); // the gates wait for start(): queuing is not timed
    for (Gate &g : gates_) {
      Instance &inst = *g.inst;
      auto [send, recv] = launchBuffers(inst);
      if (HcclStreamLaunchHostFunc(inst.stream, gateOpen, &g) != HCCL_SUCCESS ||
          HcclRunPlanCollective(comm_, handle_, inst.program->id.c_str(), send,
                                recv, inst.stream) != HCCL_SUCCESS ||
          HcclStreamLaunchHostFunc(inst.stream, gateDone, &g) != HCCL_SUCCESS) {
        std::string why = HcclGetLastErrorMessage();
        clock_->cancel(); // the gates queued so far must not wait
        for (aclrtStream s : streams_)
          HcclStreamSynchronize(s);
        return fail(1, "collective " + std::to_string(inst.id) + " (" +
                           inst.program->id + ") failed to start: " + why);
      }
    }
    Clock::time_point t0 = Clock::now();
    clock_->start(t0);
    // Sleep through the iteration on the streams (a wake-up per collective
    // would take the cores its stream threads run on), then read the
    // clock, which by then waits for nothing.
    for (aclrtStream s : streams_)
      if (HcclStreamSynchronize(s) != HCCL_SUCCESS)
        return fail(1, std::string("a collective failed: ") +
                           HcclGetLastErrorMessage());
    Clock::time_point end = clock_->reach(clock_->steps());
    waitUntil(end); // the next iteration starts after the device's end
    f.iterationUs = usSince(t0, end);
    std::vector<std::pair<double, double>> comm;
    for (const Gate &g : gates_) {
      f.starts += 1;
      // Late: issued well after its stream could have (a start queued
      // behind a busy stream waits there on an NPU as well).
      if (double late = usSince(g.ready, g.issued); late > kLateUs) {
        f.lateStarts += 1;
        f.worstLateUs = std::max(f.worstLateUs, late);
      }
      double is = usSince(t0, g.issued), ie = usSince(t0, g.done);
      comm.push_back({is, ie});
      events.push_back({g.inst->program->id, "collective", is,
                        std::max(0.0, ie - is), g.inst->lane});
    }
    double compute = 0;
    for (const ComputeStep &c : computeSteps_) {
      events.push_back(
          {c.name, "compute", usSince(t0, clock_->reach(c.step)), c.us, 0});
      compute += c.us;
    }
    for (const WaitStep &w : waitSteps_) {
      double s = usSince(t0, clock_->reach(w.step));
      double e = usSince(t0, clock_->reach(w.step + 1));
      if (e - s > 1)
        events.push_back({"wait " + std::to_string(w.id), "wait", s, e - s, 0});
    }
    f.computeUs = compute;
    f.commUs = hccl::tools::unionLength(comm);
    f.exposedUs = std::max(0.0, f.iterationUs - compute);
    return 0;
  }

  void release() {
    for (aclrtStream s : streams_)
      if (s)
        HcclStreamDestroy(s);
    streams_.clear();
    for (auto &[id, inst] : instances_) {
      if (shared_)
        break;
      if (inst->send)
        HcclMemFree(inst->send);
      if (inst->recv)
        HcclMemFree(inst->recv);
    }
    if (sharedSend_)
      HcclMemFree(sharedSend_);
    if (sharedRecv_)
      HcclMemFree(sharedRecv_);
    sharedSend_ = sharedRecv_ = nullptr;
    instances_.clear();
    if (handle_)
      HcclPlanFree(handle_);
    handle_ = nullptr;
  }

  HcclComm comm_;
  uint32_t rank_, size_;
  const Options &opts_;
  std::string path_;
  sched::Plan plan_;
  HcclPlan handle_ = nullptr;
  std::map<int64_t, std::unique_ptr<Instance>> instances_;
  std::vector<aclrtStream> streams_;
  size_t nextStream_ = 0;
  /// --streams group: the communicators met so far; communicator k runs
  /// on streams_[k].
  hccl::tools::CommunicatorStreams communicators_;
  std::mutex doneMu_;
  std::condition_variable doneCv_;
  bool shared_ = false;
  void *sharedSend_ = nullptr, *sharedRecv_ = nullptr;
  /// --buffer-span-mib: the span's bytes and where the next launch goes.
  uint64_t spanSend_ = 0, spanRecv_ = 0, sendCursor_ = 0, recvCursor_ = 0;
  uint64_t spanLaunches_ = 0, spanWraps_ = 0; ///< reported after timing
  /// Whether each half of the span has started again from its beginning:
  /// until both have, a launch may be the first to touch its stretch.
  bool sendWrapped_ = false, recvWrapped_ = false;
  /// Warm-up iterations run at most beyond -w to wrap the span.
  static constexpr int kMaxSpanWarmups = 200;
  /// --issue ahead (prepareAhead): the device clock, the gates (addresses
  /// stay: the streams hold them), and the compute and wait steps for the
  /// figures and the trace.
  struct ComputeStep {
    size_t step;
    std::string name;
    double us;
  };
  struct WaitStep {
    size_t step;
    int64_t id;
  };
  std::unique_ptr<hccl::tools::DeviceClock> clock_;
  std::vector<Gate> gates_;
  std::vector<ComputeStep> computeSteps_;
  std::vector<WaitStep> waitSteps_;
};

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

struct Summary {
  Figures f;
  /// Each timed iteration (the slowest rank's), and with --phase-probe the
  /// probe before the first and after each (us).
  std::vector<double> iterationsUs, probesUs;
  size_t collectives = 0;
  /// Over the timed iterations: starts and late starts (per iteration, the
  /// rank with the most), and the worst delay.
  double starts = 0, lateStarts = 0, worstLateUs = 0;
  uint64_t mismatches = 0;
  bool checked = false;
};

Summary summarize(const std::vector<Figures> &figs, size_t collectives) {
  Summary s;
  std::vector<double> it, c, m, e;
  for (const Figures &f : figs) {
    it.push_back(f.iterationUs);
    c.push_back(f.computeUs);
    m.push_back(f.commUs);
    e.push_back(f.exposedUs);
  }
  s.f = {median(it), median(c), median(m), median(e)};
  s.iterationsUs = it;
  s.collectives = collectives;
  for (const Figures &f : figs) {
    s.starts += f.starts;
    s.lateStarts += f.lateStarts;
    s.worstLateUs = std::max(s.worstLateUs, f.worstLateUs);
  }
  return s;
}

void writeTraceFile(const std::string &path, uint32_t rank,
                    const std::vector<TraceEvent> &events) {
  std::ofstream out(path);
  out << "[\n";
  bool first = true;
  hccl::tools::appendTraceEvents(out, static_cast<int>(rank), events, first);
  out << "\n]\n";
}

/// Rank 0 joins the per-rank files it can see into one trace.
void mergeTraces(const std::string &path, uint32_t size) {
  std::ofstream out(path);
  out << "{\"traceEvents\": [\n";
  bool first = true;
  for (uint32_t r = 0; r < size; ++r) {
    std::string part = path + ".rank" + std::to_string(r);
    std::ifstream in(part);
    if (!in)
      continue;
    std::stringstream ss;
    ss << in.rdbuf();
    std::string body = ss.str();
    size_t b = body.find('['), e = body.rfind(']');
    if (b == std::string::npos || e == std::string::npos || e <= b + 1)
      continue;
    std::string inner = body.substr(b + 1, e - b - 1);
    while (!inner.empty() && (inner.back() == '\n' || inner.back() == ' '))
      inner.pop_back();
    out << (first ? "" : ",\n") << inner;
    first = false;
    in.close();
    std::remove(part.c_str());
  }
  out << "\n], \"displayTimeUnit\": \"ms\"}\n";
}

void printRow(const char *label, const Summary &s) {
  std::printf("%-10s | %-12.3f | %-10.3f | %-10.3f | %-15.3f | %-11zu | %s\n",
              label, s.f.iterationUs / 1e3, s.f.computeUs / 1e3,
              s.f.commUs / 1e3, s.f.exposedUs / 1e3, s.collectives,
              !s.checked     ? "NULL"
              : s.mismatches ? "failed"
                             : "success");
}

/// out.json -> out.baseline.json (the baseline's trace beside the plan's).
std::string baselineTracePath(const std::string &trace) {
  size_t dot = trace.rfind('.');
  size_t slash = trace.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return trace + ".baseline";
  return trace.substr(0, dot) + ".baseline" + trace.substr(dot);
}

} // namespace

int precheckPlan(const std::string &path, int ranks, int &planRanks) {
  auto plan = sched::readPlanFile(path);
  if (!plan) {
    std::fprintf(stderr, "hccl-run: %s\n", plan.message().c_str());
    return 2;
  }
  int64_t maxRank = -1;
  for (int64_t r : plan->groupRanks)
    maxRank = std::max(maxRank, r);
  for (const sched::PlanProgram &pp : plan->programs)
    for (int64_t r : pp.allRanks())
      maxRank = std::max(maxRank, r);
  planRanks = maxRank >= 0 ? static_cast<int>(maxRank + 1)
              : plan->programs.empty()
                  ? 0
                  : static_cast<int>(plan->programs.front().program.p);
  if (plan->items.empty()) {
    std::fprintf(stderr,
                 "hccl-run: %s: the plan has no schedule items (export it "
                 "with hccl-translate --comm-to-plan)\n",
                 path.c_str());
    return 2;
  }
  if (ranks && ranks != planRanks) {
    std::fprintf(stderr,
                 "hccl-run: %s: the plan runs on %d ranks but -p %d was "
                 "given\n",
                 path.c_str(), planRanks, ranks);
    return 2;
  }
  return 0;
}

int runRank(const Options &opts) {
  HcclComm comm = nullptr;
  if (HcclCommInitFromEnv(&comm) != HCCL_SUCCESS) {
    std::fprintf(stderr, "hccl-run: cannot initialise the communicator: %s\n",
                 HcclGetLastErrorMessage());
    return 1;
  }
  uint32_t rank = 0, size = 1;
  HcclGetRankId(comm, &rank);
  HcclGetRankSize(comm, &size);
  int status = 0;
  std::vector<std::pair<std::string, Summary>> rows;
  std::vector<std::pair<std::string, std::vector<TraceEvent>>> traces;
  std::vector<std::string> plans;
  if (!opts.baseline.empty())
    plans.push_back(opts.baseline);
  plans.push_back(opts.plan);
  // One probe for both plans: its communicator and buffers are set up once.
  std::unique_ptr<PhaseProbe> probe;
  if (opts.phaseProbeBytes) {
    probe = std::make_unique<PhaseProbe>(comm, rank, size, opts.phaseProbeBytes,
                                         opts.phaseProbeCalls);
    if (std::string e = probe->setup(); !e.empty()) {
      std::fprintf(stderr, "hccl-run: rank %u: %s\n", rank, e.c_str());
      status = 1;
    }
  }
  for (size_t k = 0; k < plans.size() && status == 0; ++k) {
    PlanRun run(comm, rank, size, opts);
    std::vector<Figures> figs;
    std::vector<TraceEvent> trace;
    std::vector<double> probes;
    status = run.setup(plans[k]);
    if (status == 0)
      status = run.run(figs, trace, probe.get(), probes);
    if (status != 0)
      break;
    Summary s = summarize(figs, run.collectives());
    s.probesUs = std::move(probes);
    if (opts.check) {
      std::string first;
      status = run.check(s.mismatches, first);
      s.checked = true;
      if (status == 0 && s.mismatches)
        status = 1;
    }
    bool isBaseline = !opts.baseline.empty() && k == 0;
    rows.push_back({isBaseline ? "baseline" : "scheduled", s});
    traces.push_back({isBaseline ? baselineTracePath(opts.trace) : opts.trace,
                      std::move(trace)});
  }
  if (status == 0 && !opts.trace.empty()) {
    for (auto &[path, events] : traces) {
      writeTraceFile(path + ".rank" + std::to_string(rank), rank, events);
      HcclBarrier(comm, nullptr);
      if (rank == 0)
        mergeTraces(path, size);
    }
  }
  if (rank == 0 && !rows.empty()) {
    std::printf("hccl-run: %s on %u ranks, %d iterations (+%d warm-up), "
                "compute x%g; medians of the slowest rank\n",
                opts.plan.c_str(), size, opts.iters, opts.warmup,
                opts.timeScale);
    std::printf("%-10s | %-12s | %-10s | %-10s | %-15s | %-11s | %s\n", "plan",
                "iteration_ms", "compute_ms", "comm_ms", "exposed_comm_ms",
                "collectives", "check_result");
    for (auto &[label, s] : rows)
      printRow(label.c_str(), s);
    for (auto &[label, s] : rows)
      std::printf("late starts (%s): %.0f of %.0f starts issued over %.0f ms "
                  "after the device clock reached them (worst %.3f ms)\n",
                  label.c_str(), s.lateStarts, s.starts, kLateUs / 1e3,
                  s.worstLateUs / 1e3);
    if (probe)
      for (auto &[label, s] : rows) {
        std::printf("iterations (%s), ms:", label.c_str());
        for (double us : s.iterationsUs)
          std::printf(" %.3f", us / 1e3);
        std::printf("\nphase probe (%s): %llu B all-reduce from memory, "
                    "ring, mean of %d calls; us before iteration 1 and after "
                    "each:",
                    label.c_str(), opts.phaseProbeBytes, opts.phaseProbeCalls);
        for (double us : s.probesUs)
          std::printf(" %.1f", us);
        std::printf("\n");
      }
    if (rows.size() == 2 && rows[1].second.f.iterationUs > 0)
      std::printf("speedup (baseline / scheduled iteration): %.3fx\n",
                  rows[0].second.f.iterationUs / rows[1].second.f.iterationUs);
    if (!opts.trace.empty() && status == 0)
      for (auto &[path, events] : traces)
        std::printf("trace: %s\n", path.c_str());
    std::fflush(stdout);
  }
  probe.reset(); // its communicator before the world's
  HcclCommDestroy(comm);
  return status;
}

} // namespace hcclrun
