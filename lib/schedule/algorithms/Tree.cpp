//===- Tree.cpp - Binomial-tree broadcast and reduce ----------------------===//
//
// Relative rank v = (me - root) mod p. Broadcast step s: ranks v < 2^s send
// to v + 2^s. Reduce runs the tree backwards: in step s, ranks with
// v mod 2^(s+1) == 2^s send their partial to v - 2^s, which accumulates it.
// ceil(lg p) steps either way.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

void treeBroadcast(Gen &G, const GroupView &g, E root, Region in, Region out,
                   E count) {
  const int64_t P = g.size;
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  E me = g.me, s = G.b.s();
  E v = (me - root) % g.sizeE;
  E dist = G.c(1) << s;
  G.phase("tree", ceilLog2(P));
  G.copy(g, out.buf, out.off, in.buf, in.off, count, eq(v, 0) & eq(s, 0));
  E sendOk = (v < dist) & (v + dist < P);
  E to = (me + dist) % g.sizeE, from = (me - dist) % g.sizeE;
  G.send(g, to, in.buf, in.off, count, sendOk & eq(v, 0));
  G.send(g, to, out.buf, out.off, count, sendOk & ne(v, 0));
  G.recv(g, from, out.buf, out.off, count, (v >= dist) & (v < dist * 2));
}

void treeReduce(Gen &G, const GroupView &g, E root, Region in, Region out,
                E count) {
  const int64_t P = g.size;
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  E me = g.me;
  E v = (me - root) % g.sizeE;
  // Partial sums: the root accumulates in its output, the others in scratch.
  E acc = G.alloc(select(ne(v, 0), count, G.c(0)));
  E isRoot = eq(v, 0);
  E notRoot = ne(v, 0);
  // Everyone's first receive (if any) is in step 0, from v + 1: it combines
  // the own input with the child's; later receives accumulate.
  E hasChild = (v + 1 < P);
  auto stepOps = [&](E s, bool first) {
    E dist = G.c(1) << s;
    E to = (me - dist) % g.sizeE, from = (me + dist) % g.sizeE;
    E sender = eq(v % (dist * 2), dist);
    E receiver = eq(v % (dist * 2), 0) & (v + dist < P);
    if (first) {
      G.send(g, to, in.buf, in.off, count, sender);
      G.recvReduce(g, from, out.buf, out.off, in.buf, in.off, count,
                   receiver & isRoot);
      G.recvReduce(g, from, BufferId::Scratch, acc, in.buf, in.off, count,
                   receiver & notRoot);
      return;
    }
    // A sender that had a child holds its partial in scratch.
    G.send(g, to, BufferId::Scratch, acc, count, sender & hasChild);
    G.send(g, to, in.buf, in.off, count, sender & (v + 1 >= P));
    G.recvReduce(g, from, out.buf, out.off, out.buf, out.off, count,
                 receiver & isRoot);
    G.recvReduce(g, from, BufferId::Scratch, acc, BufferId::Scratch, acc, count,
                 receiver & notRoot);
  };
  G.phase("tree", 1);
  stepOps(G.c(0), true);
  int64_t L = ceilLog2(P);
  if (L > 1) {
    G.phase("tree", L - 1);
    stepOps(G.b.s() + 1, false);
  }
}

} // namespace hccl::sched::gen
