//===- Pairwise.cpp - Pairwise-exchange all-to-all(v) ---------------------===//
//
// Step i = 1..p-1: send block (r+i) to r+i, receive block (r-i) from r-i;
// one transfer per direction per step, so it suits links with few ports
// (HCCL level1 "pairwise"). The own block is copied in the first step.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

void pairwiseAllToAll(Gen &G, const GroupView &g, const AllToAllShape &sh) {
  const int64_t P = g.size;
  E me = g.me;
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, BufferId::Output, sh.recvOff(me), BufferId::Input, sh.sendOff(me),
           sh.sendCnt(me));
    return;
  }
  E s = G.b.s();
  E i = s + 1;
  E to = (me + i) % g.sizeE, from = (me - i) % g.sizeE;
  G.phase("pairwise", P - 1);
  G.copy(g, BufferId::Output, sh.recvOff(me), BufferId::Input, sh.sendOff(me),
         sh.sendCnt(me), eq(s, 0));
  G.send(g, to, BufferId::Input, sh.sendOff(to), sh.sendCnt(to));
  G.recv(g, from, BufferId::Output, sh.recvOff(from), sh.recvCnt(from));
}

} // namespace hccl::sched::gen
