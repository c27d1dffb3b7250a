//===- Pairwise.cpp - Pairwise-exchange all-to-all(v) ---------------------===//
//
// Step i = 1..p-1: send block (r+i) to r+i, receive block (r-i) from r-i;
// one transfer per direction per step, so it suits links with few ports
// (HCCL level1 "pairwise"). The own block is copied in the first step.
// Blocks in pieces (block layouts) move piece by piece, t = the piece.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

void pairwiseAllToAll(Gen &G, const GroupView &g, const AllToAllShape &sh) {
  const int64_t P = g.size;
  E me = g.me;
  E piecesE = G.c(sh.pieces);
  E j = sh.pieces > 1 ? G.b.t() : G.c(0);
  E rep = sh.pieces > 1 ? piecesE : E();
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, BufferId::Output, sh.recvAt(me, j), BufferId::Input,
           sh.sendAt(me, j), sh.pieceCnt(me, piecesE), {}, rep);
    return;
  }
  E s = G.b.s();
  E i = s + 1;
  E to = (me + i) % g.sizeE, from = (me - i) % g.sizeE;
  G.phase("pairwise", P - 1);
  G.copy(g, BufferId::Output, sh.recvAt(me, j), BufferId::Input,
         sh.sendAt(me, j), sh.pieceCnt(me, piecesE), eq(s, 0), rep);
  G.send(g, to, BufferId::Input, sh.sendAt(to, j), sh.pieceCnt(to, piecesE), {},
         rep);
  G.recv(g, from, BufferId::Output, sh.recvAt(from, j),
         sh.pieces > 1 ? sh.recvCnt(from) / piecesE : sh.recvCnt(from), {},
         rep);
}

void permute(Gen &G, const GroupView &g, E target, E source, E n) {
  E me = g.me;
  G.phase("permute", 1);
  G.copy(g, BufferId::Output, G.c(0), BufferId::Input, G.c(0), n,
         eq(target, me));
  G.send(g, target, BufferId::Input, G.c(0), n, (target >= 0) & ne(target, me));
  G.recv(g, source, BufferId::Output, G.c(0), n,
         (source >= 0) & ne(source, me));
}

} // namespace hccl::sched::gen
