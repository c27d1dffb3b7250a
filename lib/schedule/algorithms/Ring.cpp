//===- Ring.cpp - Ring reduce-scatter / all-gather / all-reduce, chains ---===//
//
// Ring: in step k rank me sends block (me-k-1) to me+1 and reduces block
// (me-k-2) arriving from me-1, so after p-1 steps it owns block me; the
// all-gather then circulates the finished blocks. Broadcast and reduce use a
// chain from (or to) the root, pipelined over `chunks` chunks.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

#include <algorithm>

namespace hccl::sched::gen {
namespace {

int64_t pipelineChunks(const Gen &G, int64_t P) {
  if (G.req.chunks > 0)
    return G.req.chunks;
  int64_t k = std::min<int64_t>(G.req.count, 2 * P);
  return k < 1 ? 1 : k;
}

} // namespace

void ringReduceScatter(Gen &G, const GroupView &g, Region in, const Layout &L,
                       Placement out, const Region *acc) {
  const int64_t P = g.size;
  E me = g.me, s = G.b.s();
  E j = G.piece(L);
  E rep = G.c(L.pieces);
  auto inAt = [&](E blk) { return in.off + L.off(blk, j); };
  if (P == 1) {
    G.phase("rs_copy", 1);
    G.copy(g, out.buf, out.off(j), in.buf, inAt(me), L.cnt(me), {}, rep);
    return;
  }
  E next = (me + 1) % g.sizeE, prev = (me - 1) % g.sizeE;
  // Ring step k: send block (me-k-1), reduce block (me-k-2).
  auto sendBlk = [&](E k) { return (me - k - 1) % g.sizeE; };
  auto recvBlk = [&](E k) { return (me - k - 2) % g.sizeE; };

  if (acc) {
    // The accumulator has the input's layout; block me ends up in it.
    auto accAt = [&](E blk) { return acc->off + L.off(blk, j); };
    G.phase("rs", 1);
    E k0 = G.c(0);
    G.send(g, next, in.buf, inAt(sendBlk(k0)), L.cnt(sendBlk(k0)), {}, rep);
    G.recvReduce(g, prev, acc->buf, accAt(recvBlk(k0)), in.buf,
                 inAt(recvBlk(k0)), L.cnt(recvBlk(k0)), {}, rep);
    if (P >= 3) {
      G.phase("rs", P - 2);
      E k = s + 1;
      G.send(g, next, acc->buf, accAt(sendBlk(k)), L.cnt(sendBlk(k)), {}, rep);
      G.recvReduce(g, prev, acc->buf, accAt(recvBlk(k)), in.buf,
                   inAt(recvBlk(k)), L.cnt(recvBlk(k)), {}, rep);
    }
    return;
  }

  // Double-buffered partial blocks in scratch: step k writes slot k%2 and
  // step k+1 forwards it; the last step reduces straight into `out`.
  E slotSize = L.maxCnt * L.pieces;
  E base = P >= 3 ? G.alloc(slotSize * 2) : G.c(0);
  auto slot = [&](E parity) { return base + parity * slotSize + j * L.maxCnt; };
  E k0 = G.c(0);
  G.phase("rs", 1);
  G.send(g, next, in.buf, inAt(sendBlk(k0)), L.cnt(sendBlk(k0)), {}, rep);
  if (P == 2) {
    G.recvReduce(g, prev, out.buf, out.off(j), in.buf, inAt(me), L.cnt(me), {},
                 rep);
    return;
  }
  G.recvReduce(g, prev, BufferId::Scratch, slot(G.c(0)), in.buf,
               inAt(recvBlk(k0)), L.cnt(recvBlk(k0)), {}, rep);
  if (P >= 4) {
    G.phase("rs", P - 3);
    E k = s + 1;
    G.send(g, next, BufferId::Scratch, slot(s % 2), L.cnt(sendBlk(k)), {}, rep);
    G.recvReduce(g, prev, BufferId::Scratch, slot((s + 1) % 2), in.buf,
                 inAt(recvBlk(k)), L.cnt(recvBlk(k)), {}, rep);
  }
  G.phase("rs_last", 1);
  E kl = G.c(P - 2);
  G.send(g, next, BufferId::Scratch, slot(G.c((P - 3) % 2)), L.cnt(sendBlk(kl)),
         {}, rep);
  G.recvReduce(g, prev, out.buf, out.off(j), in.buf, inAt(me), L.cnt(me), {},
               rep);
}

void ringAllGather(Gen &G, const GroupView &g, Placement in, Region out,
                   const Layout &L) {
  const int64_t P = g.size;
  E me = g.me, s = G.b.s();
  E j = G.piece(L);
  E rep = G.c(L.pieces);
  auto outAt = [&](E blk) { return out.off + L.off(blk, j); };
  G.phase("ag", 1);
  G.copy(g, out.buf, outAt(me), in.buf, in.off(j), L.cnt(me), {}, rep);
  if (P == 1)
    return;
  E next = (me + 1) % g.sizeE, prev = (me - 1) % g.sizeE;
  // Step k: forward block (me-k), receive block (me-k-1).
  G.send(g, next, in.buf, in.off(j), L.cnt(me), {}, rep);
  E b0 = prev;
  G.recv(g, prev, out.buf, outAt(b0), L.cnt(b0), {}, rep);
  if (P >= 3) {
    G.phase("ag", P - 2);
    E k = s + 1;
    E sb = (me - k) % g.sizeE, rb = (me - k - 1) % g.sizeE;
    G.send(g, next, out.buf, outAt(sb), L.cnt(sb), {}, rep);
    G.recv(g, prev, out.buf, outAt(rb), L.cnt(rb), {}, rep);
  }
}

void ringAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count) {
  if (g.size == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  Layout L = splitLayout(count, g.size, g.sizeE);
  Placement mine = atBlock(out, L, g.me);
  ringReduceScatter(G, g, in, L, mine, &out);
  ringAllGather(G, g, mine, out, L);
}

void ringBroadcast(Gen &G, const GroupView &g, E root, Region in, Region out,
                   E count) {
  const int64_t P = g.size;
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  const int64_t K = pipelineChunks(G, P);
  E me = g.me, s = G.b.s();
  E v = (me - root) % g.sizeE; // position in the chain, root = 0
  auto chunkOff = [&](E k) { return k * (count / K) + min(k, count % K); };
  auto chunkCnt = [&](E k) { return count / K + (k < count % K); };
  E next = (me + 1) % g.sizeE, prev = (me - 1) % g.sizeE;
  G.phase("chain", K + P - 2);
  G.copy(g, out.buf, out.off, in.buf, in.off, count, eq(v, 0) & eq(s, 0));
  // Position v forwards chunk s-v to v+1 (the root from its input).
  E ks = s - v;
  E sendOk = (v < P - 1) & (ks >= 0) & (ks < K);
  G.send(g, next, in.buf, in.off + chunkOff(ks), chunkCnt(ks),
         sendOk & eq(v, 0));
  G.send(g, next, out.buf, out.off + chunkOff(ks), chunkCnt(ks),
         sendOk & ne(v, 0));
  E kr = s - v + 1;
  G.recv(g, prev, out.buf, out.off + chunkOff(kr), chunkCnt(kr),
         (v >= 1) & (kr >= 0) & (kr < K));
}

void ringReduce(Gen &G, const GroupView &g, E root, Region in, Region out,
                E count) {
  const int64_t P = g.size;
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  const int64_t K = pipelineChunks(G, P);
  E me = g.me, s = G.b.s();
  E v = (me - root) % g.sizeE; // the chain runs from v = p-1 down to 0
  auto chunkOff = [&](E k) { return k * (count / K) + min(k, count % K); };
  auto chunkCnt = [&](E k) { return count / K + (k < count % K); };
  E toward = (me - 1) % g.sizeE, from = (me + 1) % g.sizeE;
  E acc = P >= 3 ? G.alloc(count) : G.c(0);
  G.phase("chain", K + P - 2);
  E ks = s - (P - 1 - v);
  E sendOk = (v >= 1) & (ks >= 0) & (ks < K);
  G.send(g, toward, in.buf, in.off + chunkOff(ks), chunkCnt(ks),
         sendOk & eq(v, P - 1));
  if (P >= 3)
    G.send(g, toward, BufferId::Scratch, acc + chunkOff(ks), chunkCnt(ks),
           sendOk & (v < P - 1));
  E kr = s - (P - 2 - v);
  E recvOk = (v <= P - 2) & (kr >= 0) & (kr < K);
  G.recvReduce(g, from, out.buf, out.off + chunkOff(kr), in.buf,
               in.off + chunkOff(kr), chunkCnt(kr), recvOk & eq(v, 0));
  if (P >= 3)
    G.recvReduce(g, from, BufferId::Scratch, acc + chunkOff(kr), in.buf,
                 in.off + chunkOff(kr), chunkCnt(kr), recvOk & ne(v, 0));
}

} // namespace hccl::sched::gen
