//===- TeePlan.cpp - Which messages of a step may take the shm tee --------===//
#include "core/TeePlan.h"

#include <cstdint>

namespace hccl::rt {
namespace {

using sched::BufferId;
using sched::ConcreteOp;
using sched::OpKind;

/// Bytes [lo, hi) of this rank's memory. Compared as addresses, not as
/// buffer names: a call in place has input and output at the same address.
struct Range {
  uintptr_t lo, hi;
  bool overlaps(const Range &o) const { return lo < o.hi && o.lo < hi; }
  bool operator==(const Range &o) const { return lo == o.lo && hi == o.hi; }
};

struct Memory {
  const char *const *bufs;
  size_t es;
  Range at(BufferId b, int64_t off, int64_t count) const {
    auto lo = reinterpret_cast<uintptr_t>(bufs[static_cast<int>(b)]) +
              static_cast<uintptr_t>(off) * es;
    return {lo, lo + static_cast<uintptr_t>(count) * es};
  }
  /// What op reads and writes on this rank (no allocation: this runs for
  /// every step of every call).
  struct Touched {
    Range r[2];
    int n = 0;
  };
  Touched touched(const ConcreteOp &op) const {
    Touched t;
    if (sched::opHasDst(op.kind))
      t.r[t.n++] = at(op.dstBuf, op.dstOff, op.count);
    if (op.kind == OpKind::Reduce)
      t.r[t.n++] =
          at(op.srcBuf, op.srcOff, (op.srcN - 1) * op.srcStride + op.count);
    else if (sched::opHasSrc(op.kind))
      t.r[t.n++] = at(op.srcBuf, op.srcOff, op.count);
    return t;
  }
};

/// The next step after `step` with ops, or rp.steps.size().
size_t nextStepWithOps(const sched::RankProgram &rp, size_t step) {
  size_t n = step + 1;
  while (n < rp.steps.size() && rp.steps[n].numOps == 0)
    ++n;
  return n;
}

/// Sends to and receives from `peer` in one step.
void countWith(const sched::RankProgram &rp, const sched::ConcreteStep &st,
               int64_t peer, int &sends, int &recvs) {
  sends = recvs = 0;
  for (uint32_t i = 0; i < st.numOps; ++i) {
    const ConcreteOp &op = rp.ops[st.firstOp + i];
    if (op.peer != peer)
      continue;
    sends += op.kind == OpKind::Send;
    recvs += sched::opReceives(op.kind);
  }
}

/// Whether every send and receive of `st` is with `peer`.
bool onlyWith(const sched::RankProgram &rp, const sched::ConcreteStep &st,
              int64_t peer) {
  for (uint32_t i = 0; i < st.numOps; ++i) {
    const ConcreteOp &op = rp.ops[st.firstOp + i];
    if ((op.kind == OpKind::Send || sched::opReceives(op.kind)) &&
        op.peer != peer)
      return false;
  }
  return true;
}

/// Index into rp.ops of the first op of `st` that sends to (`sending`) or
/// receives from `peer`; -1 when none.
int64_t firstWith(const sched::RankProgram &rp, const sched::ConcreteStep &st,
                  int64_t peer, bool sending) {
  for (uint32_t i = 0; i < st.numOps; ++i) {
    const ConcreteOp &op = rp.ops[st.firstOp + i];
    if (op.peer == peer &&
        (sending ? op.kind == OpKind::Send : sched::opReceives(op.kind)))
      return st.firstOp + i;
  }
  return -1;
}

/// The step's receive from `peer`, offered now: a plain Recv of `count`
/// elements whose destination nothing else in the step touches; -1
/// otherwise.
int64_t offerNow(const sched::RankProgram &rp, const sched::ConcreteStep &st,
                 const Memory &mem, int64_t peer, int64_t count) {
  int64_t r = firstWith(rp, st, peer, /*sending=*/false);
  // As many elements as the send: the transport sizes an offer by the
  // message that carries it.
  if (r < 0 || rp.ops[r].kind != OpKind::Recv || rp.ops[r].count != count)
    return -1;
  Range dst = mem.at(rp.ops[r].dstBuf, rp.ops[r].dstOff, rp.ops[r].count);
  for (uint32_t j = 0; j < st.numOps; ++j) {
    if (st.firstOp + j == static_cast<uint64_t>(r))
      continue;
    Memory::Touched t = mem.touched(rp.ops[st.firstOp + j]);
    for (int k = 0; k < t.n; ++k)
      if (t.r[k].overlaps(dst))
        return -1;
  }
  return r;
}

/// The step's Copy that reads exactly `send`'s source into a range apart
/// from it, not already pushing for another send; -1 when none.
int64_t pushCopy(const sched::RankProgram &rp, const sched::ConcreteStep &st,
                 const Memory &mem, const ConcreteOp &send,
                 const std::vector<int64_t> &taken) {
  Range src = mem.at(send.srcBuf, send.srcOff, send.count);
  for (uint32_t j = 0; j < st.numOps; ++j) {
    const ConcreteOp &c = rp.ops[st.firstOp + j];
    if (c.kind != OpKind::Copy || c.count != send.count)
      continue;
    if (!(mem.at(c.srcBuf, c.srcOff, c.count) == src) ||
        mem.at(c.dstBuf, c.dstOff, c.count).overlaps(src))
      continue;
    bool used = false;
    for (int64_t t : taken)
      used = used || t == static_cast<int64_t>(st.firstOp + j);
    if (!used)
      return st.firstOp + j;
  }
  return -1;
}

} // namespace

void planTees(const sched::RankProgram &rp, size_t step,
              const char *const bufs[sched::kNumBuffers], size_t elemBytes,
              TeePlan &plan) {
  Memory mem{bufs, elemBytes};
  plan.offer.clear();
  plan.take.clear();
  plan.push.clear();
  if (step >= rp.steps.size())
    return;
  const sched::ConcreteStep &st = rp.steps[step];
  plan.offer.assign(st.numOps, -1);
  plan.take.assign(st.numOps, false);
  plan.push.assign(st.numOps, -1);
  // The checks below are quadratic in a step's ops. Every step that can
  // qualify (2-rank ring, RHD's exchanges with one partner) has a few; a
  // wide mesh step has one send and one receive per peer and is skipped
  // without looking.
  if (st.numOps > kMaxTeeStepOps)
    return;
  size_t next = nextStepWithOps(rp, step);
  const sched::ConcreteStep *nst =
      next < rp.steps.size() ? &rp.steps[next] : nullptr;
  for (uint32_t i = 0; i < st.numOps; ++i) {
    const ConcreteOp &op = rp.ops[st.firstOp + i];
    if (op.count <= 0 ||
        (op.kind != OpKind::Send && op.kind != OpKind::RecvReduce))
      continue;
    int sends = 0, recvs = 0;
    countWith(rp, st, op.peer, sends, recvs);
    if (sends != 1 || recvs != 1)
      continue;
    if (op.kind == OpKind::Send) {
      // A push waits for the peer's offer, which only a peer that pushes
      // back makes: a step that talks to this peer alone (2 ranks, an RHD
      // exchange). In a wider step (a mesh of 3+) the copy would wait for
      // an offer that never comes.
      if (onlyWith(rp, st, op.peer))
        plan.push[i] = pushCopy(rp, st, mem, op, plan.push);
      // One offer per message: this step's receive before the next step's.
      // Only a rank that may push offers now: the programs that push
      // (all-gather exchanges) are symmetric, and elsewhere the offer
      // would cost a registry lookup per message for nothing.
      if (plan.push[i] >= 0)
        plan.offer[i] = offerNow(rp, st, mem, op.peer, op.count);
      if (plan.offer[i] >= 0 || !nst)
        continue;
      int64_t r = firstWith(rp, *nst, op.peer, /*sending=*/false);
      if (r < 0 || rp.ops[r].kind != OpKind::Recv ||
          rp.ops[r].count != op.count)
        continue;
      Range dst = mem.at(rp.ops[r].dstBuf, rp.ops[r].dstOff, rp.ops[r].count);
      bool clear = true;
      for (uint32_t j = 0; j < st.numOps && clear; ++j) {
        const ConcreteOp &other = rp.ops[st.firstOp + j];
        Memory::Touched t = mem.touched(other);
        for (int k = 0; k < t.n; ++k)
          if (t.r[k].overlaps(dst) && !(j == i && t.r[k] == dst))
            clear = false;
      }
      if (clear)
        plan.offer[i] = r;
    } else if (nst) {
      int64_t s = firstWith(rp, *nst, op.peer, /*sending=*/true);
      plan.take[i] = s >= 0 && mem.at(rp.ops[s].srcBuf, rp.ops[s].srcOff,
                                      rp.ops[s].count) ==
                                   mem.at(op.dstBuf, op.dstOff, op.count);
    }
  }
}

} // namespace hccl::rt
