//===- RecursiveDoubling.cpp - Whole-vector recursive doubling ------------===//
//
// For tiny messages: lg p steps, each exchanging the whole vector with
// v ^ 2^k and reducing (both partners compute a+b: the same tree up to
// commutativity). Sending a buffer while reducing into it would be a hazard,
// so partial sums alternate between scratch (even k) and the output (odd k);
// a final copy lands an odd-L result in the output. Non-powers of two use
// the same fold as RHD.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

void rdAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count) {
  if (g.size == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  Fold F = makeFold(G, g);
  E me = g.me;
  if (F.rem) {
    G.phase("fold", 1);
    G.send(g, me + 1, in.buf, in.off, count, F.foldSender);
    G.recvReduce(g, me - 1, out.buf, out.off, in.buf, in.off, count, F.folded);
  }
  Region S{BufferId::Scratch, G.alloc(count)};
  // The first step never writes the output, so an aliased input is safe.
  auto W = [&](int64_t k) { return k % 2 == 0 ? S : out; };
  for (int64_t k = 0; k < F.L; ++k) {
    G.phase("rd", 1);
    E peer = F.real(F.vme ^ (int64_t(1) << k));
    Region dst = W(k);
    if (k == 0) {
      G.send(g, peer, in.buf, in.off, count, F.plain);
      G.recvReduce(g, peer, dst.buf, dst.off, in.buf, in.off, count, F.plain);
      if (F.rem) {
        G.send(g, peer, out.buf, out.off, count, F.folded);
        G.recvReduce(g, peer, dst.buf, dst.off, out.buf, out.off, count,
                     F.folded);
      }
      continue;
    }
    Region X = W(k - 1);
    G.send(g, peer, X.buf, X.off, count, F.participant);
    G.recvReduce(g, peer, dst.buf, dst.off, X.buf, X.off, count, F.participant);
  }
  Region last = W(F.L - 1);
  bool inScratch = last.buf == BufferId::Scratch;
  if (inScratch || F.rem) {
    G.phase(inScratch ? "final" : "unfold", 1);
    if (inScratch)
      G.copy(g, out.buf, out.off, last.buf, last.off, count, F.participant);
    if (F.rem) {
      G.send(g, me - 1, last.buf, last.off, count, F.folded);
      G.recv(g, me + 1, out.buf, out.off, count, F.foldSender);
    }
  }
}

} // namespace hccl::sched::gen
