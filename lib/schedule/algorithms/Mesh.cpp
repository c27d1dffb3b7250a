//===- Mesh.cpp - Full-mesh collectives (direct exchange) -----------------===//
//
// On a full mesh every rank talks to every peer at once (repeat t over the
// p-1 peers: peer = me+1+t). Reductions land in per-source scratch slots
// first and are then reduced in source order by one `reduce` op, so every
// rank applies the same left-to-right order (deterministic).
//
// When a layout has several pieces, one op covers peers x pieces:
// t = k*pieces + j (peer offset k, piece j), keeping send/recv order equal.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

void meshReduceScatter(Gen &G, const GroupView &g, Region in, const Layout &L,
                       Placement out) {
  const int64_t P = g.size;
  E me = g.me, t = G.b.t();
  E pieces = G.c(L.pieces);
  if (P == 1) {
    G.phase("rs_copy", 1);
    G.copy(g, out.buf, out.off(t), in.buf, in.off + L.off(me, t), L.cnt(me), {},
           pieces);
    return;
  }
  // Slot q holds source q's copy of my block: piece j at q*slot + j*maxCnt.
  E slot = L.maxCnt * L.pieces;
  E base = G.alloc(slot * P);
  E k = t / pieces, j = t % pieces;
  E to = (me + 1 + k) % g.sizeE, from = (me - 1 - k) % g.sizeE;
  E rep = G.c((P - 1) * L.pieces);
  G.phase("rs_exchange", 1);
  G.send(g, to, in.buf, in.off + L.off(to, j), L.cnt(to), {}, rep);
  G.recv(g, from, BufferId::Scratch, base + from * slot + j * L.maxCnt,
         L.cnt(me), {}, rep);
  G.copy(g, BufferId::Scratch, base + me * slot + t * L.maxCnt, in.buf,
         in.off + L.off(me, t), L.cnt(me), {}, pieces);
  G.phase("rs_reduce", 1);
  G.reduce(g, out.buf, out.off(t), BufferId::Scratch, base + t * L.maxCnt, slot,
           g.sizeE, L.cnt(me), {}, pieces);
}

void meshAllGather(Gen &G, const GroupView &g, Placement in, Region out,
                   const Layout &L) {
  const int64_t P = g.size;
  E me = g.me, t = G.b.t();
  E pieces = G.c(L.pieces);
  G.phase("ag_exchange", 1);
  G.copy(g, out.buf, out.off + L.off(me, t), in.buf, in.off(t), L.cnt(me), {},
         pieces);
  if (P == 1)
    return;
  E k = t / pieces, j = t % pieces;
  E to = (me + 1 + k) % g.sizeE, from = (me - 1 - k) % g.sizeE;
  E rep = G.c((P - 1) * L.pieces);
  G.send(g, to, in.buf, in.off(j), L.cnt(me), {}, rep);
  G.recv(g, from, out.buf, out.off + L.off(from, j), L.cnt(from), {}, rep);
}

void meshAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count) {
  if (g.size == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  // Two-shot: reduce-scatter by direct exchange, then all-gather.
  Layout L = splitLayout(count, g.size, g.sizeE);
  Placement mine = atBlock(out, L, g.me);
  meshReduceScatter(G, g, in, L, mine);
  meshAllGather(G, g, mine, out, L);
}

void meshOneShotAllReduce(Gen &G, const GroupView &g, Region in, Region out,
                          E count) {
  const int64_t P = g.size;
  E me = g.me, t = G.b.t();
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  // Everyone receives every input into slot `source` and reduces them all.
  E base = G.alloc(count * g.sizeE);
  E to = (me + 1 + t) % g.sizeE, from = (me - 1 - t) % g.sizeE;
  E rep = G.c(P - 1);
  G.phase("exchange", 1);
  G.send(g, to, in.buf, in.off, count, {}, rep);
  G.recv(g, from, BufferId::Scratch, base + from * count, count, {}, rep);
  G.copy(g, BufferId::Scratch, base + me * count, in.buf, in.off, count);
  G.phase("reduce", 1);
  G.reduce(g, out.buf, out.off, BufferId::Scratch, base, count, g.sizeE, count);
}

void meshAllToAll(Gen &G, const GroupView &g, const AllToAllShape &sh) {
  const int64_t P = g.size;
  E me = g.me, t = G.b.t();
  // Blocks in pieces: one op covers peers x pieces, t = k*pieces + j (as
  // the reduce-scatter above), keeping send and receive order equal.
  E piecesE = G.c(sh.pieces);
  bool pieced = sh.pieces > 1;
  G.phase("exchange", 1);
  G.copy(g, BufferId::Output, sh.recvAt(me, pieced ? t : G.c(0)),
         BufferId::Input, sh.sendAt(me, pieced ? t : G.c(0)),
         sh.pieceCnt(me, piecesE), {}, pieced ? piecesE : E());
  if (P == 1)
    return;
  E k = pieced ? t / piecesE : t, j = pieced ? t % piecesE : G.c(0);
  E to = (me + 1 + k) % g.sizeE, from = (me - 1 - k) % g.sizeE;
  E rep = G.c((P - 1) * sh.pieces);
  G.send(g, to, BufferId::Input, sh.sendAt(to, j), sh.pieceCnt(to, piecesE), {},
         rep);
  G.recv(g, from, BufferId::Output, sh.recvAt(from, j),
         pieced ? sh.recvCnt(from) / piecesE : sh.recvCnt(from), {}, rep);
}

} // namespace hccl::sched::gen
