//===- Executor.cpp - Runs one rank's step program ------------------------===//
//
// Steps run in order. Inside a step every op is independent (rule 2 of
// docs/step-programs.md), so the executor posts all transfers of the step at
// once, then makes them progress together while it works through the local
// copies/reductions in pieces. Transports pipeline each transfer in chunks:
// the shm FIFO hands over 64 KiB slots and the receiver reduces slot i while
// the sender fills slot i+1; zero-copy reads and TCP staging work in pieces
// the same way. Reductions are applied exactly as the program orders them,
// so results are bit-identical on every rank and from run to run.
//
// Waiting (core/WaitPolicy.h): spin briefly (only when this host is not
// oversubscribed), yield (not when other jobs hold the cores), then sleep on
// the communicator's doorbell, which peers and the TCP thread ring. While idle,
// the executor checks the abort record, its peers' health (dead process, closed
// connection, mismatched call waiting) and the HCCL_EXEC_TIMEOUT deadline.
//
//===----------------------------------------------------------------------===//
#include "common/CpuMove.h"
#include "common/Futex.h"
#include "common/HostLoad.h"
#include "common/Log.h"
#include "core/Communicator.h"
#include "core/LocalWork.h"
#include "core/TeePlan.h"
#include "core/WaitPolicy.h"
#include "reduce/Reduce.h"
#include "transport/shm/Regions.h"
#include "transport/shm/Segment.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <sched.h>

namespace hccl::rt {

namespace {
constexpr size_t kLocalPieceBytes = 256 * 1024;
constexpr int64_t kHealthEveryUs = 10000;
constexpr int64_t kSleepMs = 10;
/// The spinning executor looks where its peers run every this many idle
/// rounds (a power of two).
constexpr uint32_t kCpuLookEvery = 8;
static_assert((kCpuLookEvery & (kCpuLookEvery - 1)) == 0, "a power of two");
/// Smaller messages are not pushed (nor offered now). A push makes the copy
/// wait for the peer's RTS and adds a header slot each way; below this the
/// pulled copy, read from a cache, is faster. 2-rank all-gathers, pushed
/// over pulled (bench/runtime/ab_builds.sh, 8 rounds, 2026-12-05): 1.46x
/// the time at 64 KiB messages, 1.47x at 128 KiB, 1.26x at 256 KiB, 0.84x
/// at 512 KiB and 1 MiB, 0.54x at 8 MiB.
constexpr size_t kMinPushBytes = 512 * 1024;
/// Smaller lone sends are not split (docs/runtime.md, "The split"): half
/// of a copy that small saves less than the ask and the sender's wake-up
/// cost. 2-rank broadcasts, split over not (bench/runtime/ab_builds.sh, 8
/// rounds, 2026-12-05): 0.94x the time at 32 KiB, 0.92x at 64 KiB, 0.87x
/// at 128 KiB; 0.54-0.67x at 256 KiB-1 MiB and 0.34-0.45x at 8-64 MiB.
constexpr size_t kMinSplitBytes = 32 * 1024;
} // namespace

void Communicator::markLoneSend(SendOp &s) const {
  // A step (or HcclSend) that only sends one message would leave this
  // rank's core idle while the peer copies it all; with a core per rank,
  // this rank may copy a part.
  s.splitCapable = !oversubscribed_ && s.bytes >= kMinSplitBytes &&
                   pairs_[static_cast<size_t>(s.peer)]->zeroCopyCapable();
}

size_t Communicator::scratchBytes() const {
  return scratch_ ? scratch_->bytes() : 0;
}

Status Communicator::ensureScratch(size_t bytes) {
  if (scratch_ && scratch_->bytes() >= bytes)
    return Status::ok();
  size_t want = std::max(bytes, scratch_ ? scratch_->bytes() * 2 : size_t(0));
  scratch_.reset();
  auto r = RegionRegistry::instance().create(want);
  if (!r)
    return r.status().withContext("allocating " + std::to_string(want) +
                                  " bytes of scratch");
  scratch_ = r.take();
  return Status::ok();
}

Status Communicator::ensureSpare(size_t bytes) {
  if (spare_ && spare_->bytes() >= bytes)
    return Status::ok();
  spare_.reset();
  auto r = RegionRegistry::instance().create(bytes);
  if (!r)
    return r.status();
  spare_ = r.take();
  return Status::ok();
}

Status Communicator::execute(const CompiledProgram &cp, const Binding &b,
                             const CallId &call) {
  const sched::RankProgram &rp = cp.rp;
  const size_t es = cp.elemBytes;
  char *bufs[sched::kNumBuffers] = {
      const_cast<char *>(static_cast<const char *>(b.input)),
      static_cast<char *>(b.output), nullptr};
  if (cp.bufferBytes[2] > 0) {
    HCCL_RT_TRY(ensureScratch(cp.bufferBytes[2]));
    bufs[2] = static_cast<char *>(scratch_->data());
  }
  if (bufs[1] == nullptr && cp.bufferBytes[1] > 0) {
    // Reduce on a non-root rank may pass no output; the program may still
    // use it as a temporary.
    HCCL_RT_TRY(ensureSpare(cp.bufferBytes[1]));
    bufs[1] = static_cast<char *>(spare_->data());
  }
  if (bufs[0] == nullptr && cp.bufferBytes[0] > 0)
    return errPara(call.str() + ": the input buffer is NULL");

  LazyDeadline dl(static_cast<int64_t>(cfg_.execTimeoutSec));
  std::fill(sendOrd_.begin(), sendOrd_.end(), 0);
  std::fill(recvOrd_.begin(), recvOrd_.end(), 0);
  // Kept across calls, as the op pools are: fresh ones allocated their
  // items each call.
  LocalWork &local = local_;
  std::vector<SendOp *> &sends = postedSends_;
  std::vector<RecvOp *> &recvs = postedRecvs_;
  auto commRank = [&](int64_t peer) {
    return b.group && !b.group->empty()
               ? static_cast<int>((*b.group)[static_cast<size_t>(peer)])
               : static_cast<int>(peer);
  };
  // A write that a later step sends to a zero-copy peer: that peer's core
  // reads it next. Streaming it out made 2-rank all-reduces of 16 KB-4 MB
  // 1.2-3.3x faster (docs/performance.md); the last writes (what the caller
  // reads) gained nothing from it and keep the cache. With more local ranks
  // than cores the reader often runs on this very core, where the line is
  // still in cache: a 3-rank ring all-reduce of 16 MB took 1.28x longer
  // streamed, so an oversubscribed host does not stream.
  // Whether a buffer is shareable (peers read it zero-copy) is looked up
  // once per call, and only when some write may stream: a lookup locks the
  // region registry.
  int8_t shared[sched::kNumBuffers] = {-1, -1, -1};
  auto isShared = [&](sched::BufferId id) {
    auto k = static_cast<size_t>(id);
    if (shared[k] < 0) {
      RegionRef ref;
      shared[k] =
          bufs[k] && cp.bufferBytes[k] > 0 &&
          RegionRegistry::instance().find(bufs[k], cp.bufferBytes[k], ref);
    }
    return shared[k] == 1;
  };
  auto streams = [&](size_t opIndex) {
    int32_t reader = cp.reader.empty() ? -1 : cp.reader[opIndex];
    return !oversubscribed_ && reader >= 0 &&
           pairs_[static_cast<size_t>(commRank(reader))]->zeroCopyCapable() &&
           isShared(rp.ops[opIndex].dstBuf);
  };
  // A call whose output outgrows this rank's share of the last-level cache
  // (common/CacheSize.h) streams its last writes too: they would be evicted
  // before the caller reads them, evicting on the way the inputs the call
  // still reads (docs/performance.md, "Outputs past the cache"). A last
  // write is one into the output that no rank reads later in the call, or
  // only a peer through the tee (which then takes no read). The whole
  // call's output counts, also when it runs in pieces. Only with a core per
  // rank, as above (not measured otherwise).
  const size_t outBytes =
      b.callOutputBytes
          ? b.callOutputBytes
          : cp.bufferBytes[static_cast<size_t>(sched::BufferId::Output)];
  const bool pastCache = !oversubscribed_ && cachePerLocalRank_ > 0 &&
                         outBytes > cachePerLocalRank_;
  callsPastCache_ += pastCache;
  auto lastWrite = [&](size_t opIndex, bool teed) {
    int32_t reader = cp.reader.empty() ? -1 : cp.reader[opIndex];
    return pastCache && rp.ops[opIndex].dstBuf == sched::BufferId::Output &&
           (reader < 0 || teed);
  };

  for (size_t si = 0; si < rp.steps.size(); ++si) {
    const sched::ConcreteStep &step = rp.steps[si];
    if (step.numOps == 0)
      continue;
    size_t nSend = 0, nRecv = 0;
    for (uint32_t i = 0; i < step.numOps; ++i) {
      auto k = rp.ops[step.firstOp + i].kind;
      nSend += k == sched::OpKind::Send;
      nRecv += sched::opReceives(k);
    }
    if (nSend > sendCap_) {
      sendPool_.reset(new SendOp[nSend]);
      sendCap_ = nSend;
    }
    if (nRecv > recvCap_) {
      recvPool_.reset(new RecvOp[nRecv]);
      recvCap_ = nRecv;
    }
    sends.clear();
    recvs.clear();
    local.clear();
    // The shm tee (transport/shm/ShmPair.h): with a core per rank only,
    // like the streamed writes it replaces.
    TeePlan &tees = teePlan_;
    tees.offer.clear();
    tees.take.clear();
    if (!oversubscribed_ && anyZeroCopyPair_)
      planTees(rp, si, bufs, es, tees);
    teeSends_.clear();
    teeRecvs_.clear();
    bool planned = !tees.offer.empty();
    if (planned) {
      stepSend_.assign(step.numOps, nullptr);
      stepRecv_.assign(step.numOps, nullptr);
      stepItem_.assign(step.numOps, -1);
    }
    local.abortFlag = &seg_->header()->abortFlag;
    for (uint32_t i = 0; i < step.numOps; ++i) {
      const sched::ConcreteOp &op = rp.ops[step.firstOp + i];
      size_t bytes = static_cast<size_t>(op.count) * es;
      switch (op.kind) {
      case sched::OpKind::Send: {
        if (bytes == 0 && !b.keepEmpty)
          break;
        int peer = commRank(op.peer);
        SendOp &s = sendPool_[sends.size()];
        s.peer = peer;
        s.src = bufs[static_cast<int>(op.srcBuf)] +
                static_cast<size_t>(op.srcOff) * es;
        s.bytes = bytes;
        s.hdr = WireHeader();
        s.hdr.call = call;
        s.hdr.bytes = bytes;
        s.hdr.ordinal = sendOrd_[static_cast<size_t>(peer)]++;
        s.teeDst = nullptr;
        s.teeNow = false;
        s.pushCapable = false;
        s.splitCapable = false;
        if (planned && tees.offer[i] >= 0 &&
            pairs_[static_cast<size_t>(peer)]->zeroCopyCapable()) {
          const sched::ConcreteOp &r =
              rp.ops[static_cast<size_t>(tees.offer[i])];
          s.teeDst = bufs[static_cast<int>(r.dstBuf)] +
                     static_cast<size_t>(r.dstOff) * es;
          teeSends_.push_back(&s);
        }
        if (planned)
          stepSend_[i] = &s;
        sends.push_back(&s);
        Status st = pairs_[static_cast<size_t>(peer)]->postSend(s);
        if (!st.isOk())
          return failCall(call, si, st);
        break;
      }
      case sched::OpKind::Recv:
      case sched::OpKind::RecvReduce: {
        if (bytes == 0 && !b.keepEmpty)
          break;
        int peer = commRank(op.peer);
        RecvOp &r = recvPool_[recvs.size()];
        r.peer = peer;
        r.dst = bufs[static_cast<int>(op.dstBuf)] +
                static_cast<size_t>(op.dstOff) * es;
        r.acc = op.kind == sched::OpKind::RecvReduce
                    ? bufs[static_cast<int>(op.srcBuf)] +
                          static_cast<size_t>(op.srcOff) * es
                    : nullptr;
        r.bytes = bytes;
        r.dtype = b.dtype;
        r.op = b.op;
        r.nontemporal = streams(step.firstOp + i);
        r.teeable = !tees.take.empty() && tees.take[i] && r.acc != nullptr &&
                    pairs_[static_cast<size_t>(peer)]->zeroCopyCapable();
        r.pastCache = lastWrite(step.firstOp + i, r.teeable);
        r.pastCacheBytes = 0;
        if (r.teeable)
          teeRecvs_.push_back(&r);
        if (planned)
          stepRecv_[i] = &r;
        r.expect = WireHeader();
        r.expect.call = call;
        r.expect.bytes = bytes;
        r.expect.ordinal = recvOrd_[static_cast<size_t>(peer)]++;
        recvs.push_back(&r);
        Status st = pairs_[static_cast<size_t>(peer)]->postRecv(r);
        if (!st.isOk())
          return failCall(call, si, st);
        break;
      }
      case sched::OpKind::Copy: {
        char *dst = bufs[static_cast<int>(op.dstBuf)] +
                    static_cast<size_t>(op.dstOff) * es;
        const char *src = bufs[static_cast<int>(op.srcBuf)] +
                          static_cast<size_t>(op.srcOff) * es;
        if (bytes > 0 && dst != src) {
          if (planned)
            stepItem_[i] = static_cast<int32_t>(local.items.size());
          local.items.push_back({op.kind, dst, src, bytes, 0, 1, 0,
                                 streams(step.firstOp + i), nullptr,
                                 lastWrite(step.firstOp + i, false)});
        }
        break;
      }
      case sched::OpKind::Reduce: {
        char *dst = bufs[static_cast<int>(op.dstBuf)] +
                    static_cast<size_t>(op.dstOff) * es;
        const char *src = bufs[static_cast<int>(op.srcBuf)] +
                          static_cast<size_t>(op.srcOff) * es;
        if (bytes > 0)
          local.items.push_back(
              {op.kind, dst, src, bytes, static_cast<size_t>(op.srcStride) * es,
               static_cast<int>(op.srcN), 0, streams(step.firstOp + i), nullptr,
               lastWrite(step.firstOp + i, false)});
        break;
      }
      }
    }
    // Ordinals of the next messages with each tee's peer, now that the
    // step's own are counted: an offer names our next receive from the
    // peer, a take our next send to it.
    for (SendOp *s : teeSends_)
      s->teeOrdinal = recvOrd_[static_cast<size_t>(s->peer)];
    // The push (core/TeePlan.h): a Copy that reads exactly a send's source
    // may write it into the peer's offered buffer too. An offer of this
    // step's own receive names that receive's ordinal instead.
    for (uint32_t i = 0; planned && i < step.numOps; ++i) {
      SendOp *s = stepSend_[i];
      if (!s)
        continue;
      int64_t off = tees.offer[i] - static_cast<int64_t>(step.firstOp);
      if (s->teeDst && off >= 0 && off < static_cast<int64_t>(step.numOps)) {
        RecvOp *r = stepRecv_[static_cast<size_t>(off)];
        if (r && s->bytes >= kMinPushBytes) {
          s->teeOrdinal = r->expect.ordinal;
          s->teeNow = true;
        } else
          s->teeDst = nullptr; // small, or an empty receive (skipped)
      }
      // The transport settles a push when the step's receive from the peer
      // starts: without one (an empty receive is skipped) the copy would
      // wait forever.
      bool settles = false;
      for (RecvOp *r : stepRecv_)
        settles = settles || (r && r->peer == s->peer);
      int64_t c = tees.push[i] - static_cast<int64_t>(step.firstOp);
      if (tees.push[i] >= 0 && settles && s->bytes >= kMinPushBytes &&
          stepItem_[static_cast<size_t>(c)] >= 0 &&
          pairs_[static_cast<size_t>(s->peer)]->zeroCopyCapable()) {
        LocalWork::Item &it =
            local.items[static_cast<size_t>(stepItem_[static_cast<size_t>(c)])];
        it.push = s;
        // The peer takes the block through the push, not by reading it.
        it.pastCache = lastWrite(static_cast<size_t>(tees.push[i]), true);
        s->pushCapable = true;
      }
    }
    for (RecvOp *r : teeRecvs_)
      r->teeOrdinal = sendOrd_[static_cast<size_t>(r->peer)];
    if (sends.size() == 1 && recvs.empty() && local.items.empty())
      markLoneSend(*sends[0]);
    Status st =
        waitFor(call, sends, recvs, local, b, dl, static_cast<int64_t>(si));
    for (RecvOp *r : recvs)
      pastCacheRecvBytes_ += r->pastCacheBytes;
    if (!st.isOk())
      return st;
  }
  return Status::ok();
}

Status Communicator::failCall(const CallId &call, size_t step,
                              const Status &cause) {
  // A peer's abort may be the root cause of a local symptom (its memory or
  // connection vanished while it tore down): report the abort, then.
  (void)checkAborted();
  // Errors that came from elsewhere are not re-broadcast.
  bool remote = failed_.load();
  Status st = cause;
  if (!remote) {
    st = Status(cause.code(), call.str() + " on rank " + std::to_string(rank_) +
                                  ", step " + std::to_string(step) + ": " +
                                  cause.message());
    fail(st, /*propagate=*/true);
  }
  for (auto &p : pairs_)
    if (p)
      p->cancelAll();
  Status fin = asyncError();
  return fin.isOk() ? st : fin;
}

void Communicator::idleTouched() {
  for (int peer : touched_)
    pairs_[static_cast<size_t>(peer)]->idle();
}

Status Communicator::waitFor(const CallId &call,
                             const std::vector<SendOp *> &sends,
                             const std::vector<RecvOp *> &recvs,
                             LocalWork &local, const Binding &b,
                             LazyDeadline &dl, int64_t step) {
  touched_.clear();
  auto touch = [&](int peer) {
    if (std::find(touched_.begin(), touched_.end(), peer) == touched_.end())
      touched_.push_back(peer);
  };
  for (SendOp *s : sends)
    touch(s->peer);
  for (RecvOp *r : recvs)
    touch(r->peer);
  // However this returns, the pairs go back to their transport threads.
  struct IdleOnExit {
    Communicator *c;
    ~IdleOnExit() { c->idleTouched(); }
  } idleOnExit{this};

  const size_t es = std::max<size_t>(1, sched::dataTypeSize(b.dtype));
  bool callerMoves = false;
  for (int peer : touched_)
    callerMoves =
        callerMoves || pairs_[static_cast<size_t>(peer)]->needsCallerProgress();
  // The policy, the health clock and the deadline start at the first idle
  // round: a step that never waits reads no clock (docs/performance.md,
  // "Small calls' own costs").
  std::optional<WaitPolicy> policy;
  Doorbell &bell = seg_->header()->bell;
  std::atomic<int32_t> &myCpu = seg_->header()->runCpu;
  myCpu.store(sched_getcpu(), std::memory_order_relaxed);
  // A peer we wait for that last ran on our CPU is most likely waiting for
  // it (the kernel wakes a thread on its waker's CPU): spinning only delays
  // it. On 2 cores, 2 ranks whose streams ended up on one CPU took 130-180
  // us a 4 KB all-reduce, each call a full spin-and-yield budget
  // (docs/performance.md, "Streaming stores"). Returns the lowest such peer,
  // -1 when none.
  auto peerOnMyCpu = [&]() {
    int cpu = sched_getcpu();
    myCpu.store(cpu, std::memory_order_relaxed);
    int found = -1;
    for (int peer : touched_)
      if (pairs_[static_cast<size_t>(peer)]->peerCpu() == cpu &&
          (found < 0 || peer < found))
        found = peer;
    return found;
  };
  int64_t idleStart = -1;
  int64_t lastHealth = 0; // set with the policy
  bool steppedOff = false;
  uint32_t idleRounds = 0;
  int sharer = -1;

  auto allDone = [&]() {
    if (local.pending())
      return false;
    for (SendOp *s : sends)
      if (!s->done.load(std::memory_order_acquire))
        return false;
    for (RecvOp *r : recvs)
      if (!r->done.load(std::memory_order_acquire))
        return false;
    return true;
  };
  auto progressAll = [&](bool &moved) -> Status {
    for (int peer : touched_) {
      Status st = pairs_[static_cast<size_t>(peer)]->progress(moved);
      if (!st.isOk())
        return st.withContext("rank " + std::to_string(peer) + " (" +
                              pairs_[static_cast<size_t>(peer)]->kind() + ")");
    }
    return Status::ok();
  };

  for (;;) {
    bool moved = false;
    Status st = progressAll(moved);
    if (!st.isOk())
      return failCall(call, static_cast<size_t>(step), st);
    if (local.pending() && !local.blocked()) {
      if (!local.step(kLocalPieceBytes, es, b.dtype, b.op))
        return failCall(
            call, static_cast<size_t>(step),
            errInternal("local reduction failed (unsupported type/op)"));
      moved = true;
    }
    if (allDone())
      return Status::ok();
    if (moved) {
      idleStart = -1;
      idleRounds = 0; // a new idle stretch starts with a look
      continue;
    }
    int64_t now = nowUs();
    if (idleStart < 0)
      idleStart = now;
    if (!policy) {
      lastHealth = now;
      dl.get();
      policy.emplace(oversubscribed_, callerMoves, hostBusy());
    }
    if (failed_.load(std::memory_order_relaxed) ||
        seg_->header()->abortFlag.load(std::memory_order_relaxed) != 0) {
      Status ab = checkAborted();
      if (!ab.isOk())
        return failCall(call, static_cast<size_t>(step), ab);
    }
    if (now - lastHealth >= kHealthEveryUs) {
      lastHealth = now;
      for (int peer : touched_) {
        Status h = pairs_[static_cast<size_t>(peer)]->health(call);
        if (!h.isOk())
          return failCall(call, static_cast<size_t>(step), h);
      }
      // A peer in a different call may have sent where we do not listen.
      for (auto &pr : pairs_) {
        if (!pr)
          continue;
        Status h = pr->peekMismatch(call);
        if (!h.isOk())
          return failCall(call, static_cast<size_t>(step),
                          h.withContext("rank " + std::to_string(pr->peer())));
      }
      if (dl.get().expired()) {
        std::string waiting;
        for (RecvOp *r : recvs)
          if (!r->done.load())
            waiting += (waiting.empty() ? "" : ", ") +
                       std::string("data from rank ") + std::to_string(r->peer);
        for (SendOp *s : sends)
          if (!s->done.load())
            waiting += (waiting.empty() ? "" : ", ") + std::string("rank ") +
                       std::to_string(s->peer) + " to take its data";
        return failCall(
            call, static_cast<size_t>(step),
            Status(HCCL_E_TIMEOUT, "timed out after HCCL_EXEC_TIMEOUT=" +
                                       std::to_string(cfg_.execTimeoutSec) +
                                       " s waiting for " + waiting));
      }
    }
    // Where the peers run changes slowly against a look at their flags, and
    // each look at a peer's recorded CPU misses the cache (the peer writes
    // it): while spinning, every few idle rounds. Once the policy yields (a
    // round can then be a time slice), every round, as this rank's own
    // record must not lag either.
    const WaitPolicy::Action planned = policy->next(now - idleStart);
    if (planned != WaitPolicy::Action::Spin ||
        (idleRounds++ & (kCpuLookEvery - 1)) == 0)
      sharer = peerOnMyCpu();
    bool colocated = sharer >= 0;
    // Not oversubscribed, there is a CPU for each: the higher rank of the two
    // steps off this one (once a step) and goes on waiting there; the lower
    // sleeps. When both stepped off, they often met again on the other CPU
    // and stepped off again, together, step after step: 50-150 us a 4 KB
    // call (docs/performance.md, "One of two steps off").
    if (!steppedOff && WaitPolicy::stepsOff(rank_, sharer, oversubscribed_) &&
        moveOffCpu(myCpu.load(std::memory_order_relaxed))) {
      steppedOff = true;
      myCpu.store(sched_getcpu(), std::memory_order_relaxed);
      idleRounds = 0; // look again from the new CPU
      continue;
    }
    // Otherwise the lower sleeps, handing the CPU to the peer. With more
    // ranks than cores, though, every step meets a peer on its CPU, and a
    // sleep costs a wake-up per step where a yield hands the CPU over at once
    // (3-4 ranks on 2 cores: up to 3.5x faster from 4 KB to 1 MB,
    // docs/performance.md, "Yielding to a co-located peer"): follow the
    // policy, which yields there before it sleeps.
    WaitPolicy::Action next =
        WaitPolicy::colocatedSleeps(colocated, oversubscribed_)
            ? WaitPolicy::Action::Sleep
            : planned;
    if (next == WaitPolicy::Action::Spin) {
      policy->spin();
      continue;
    }
    if (next == WaitPolicy::Action::Yield) {
      sched_yield();
      continue;
    }
    // Sleep until a peer or the TCP thread rings, re-checking after raising
    // the flag so that a ring between the check and the sleep is not lost.
    uint32_t seq = bell.seq.load(std::memory_order_seq_cst);
    bell.sleeping.store(1, std::memory_order_seq_cst);
    bool moved2 = false;
    st = progressAll(moved2);
    if (st.isOk() && !moved2 && !allDone() &&
        seg_->header()->abortFlag.load(std::memory_order_seq_cst) == 0 &&
        !failed_.load()) {
      idleTouched(); // the TCP threads move data while we sleep
      futexWait(
          &bell.seq, seq,
          std::min<int64_t>(kSleepMs, dl.get().remainingMs(kSleepMs) + 1));
    }
    bell.sleeping.store(0, std::memory_order_relaxed);
    idleRounds = 0; // woken, perhaps elsewhere: look again
    if (!st.isOk())
      return failCall(call, static_cast<size_t>(step), st);
    if (moved2)
      idleStart = -1;
  }
}

} // namespace hccl::rt
