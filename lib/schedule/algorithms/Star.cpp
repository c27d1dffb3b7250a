//===- Star.cpp - Star (mesh) broadcast and reduce ------------------------===//
//
// The root talks to every peer directly in one step (HCCL's level0 Star /
// mesh broadcast). The reduce lands every input in a per-source slot at the
// root and reduces them in source order.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

void starBroadcast(Gen &G, const GroupView &g, E root, Region in, Region out,
                   E count) {
  const int64_t P = g.size;
  E me = g.me, t = G.b.t();
  E isRoot = eq(me, root);
  G.phase("star", 1);
  G.copy(g, out.buf, out.off, in.buf, in.off, count, isRoot);
  if (P == 1)
    return;
  G.send(g, (root + 1 + t) % g.sizeE, in.buf, in.off, count, isRoot,
         G.c(P - 1));
  G.recv(g, root, out.buf, out.off, count, ne(me, root));
}

void starReduce(Gen &G, const GroupView &g, E root, Region in, Region out,
                E count) {
  const int64_t P = g.size;
  E me = g.me, t = G.b.t();
  E isRoot = eq(me, root);
  if (P == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  // Only the root needs the slots.
  E base = G.alloc(select(isRoot, count * g.sizeE, G.c(0)));
  E from = (root + 1 + t) % g.sizeE;
  G.phase("gather", 1);
  G.send(g, root, in.buf, in.off, count, ne(me, root));
  G.recv(g, from, BufferId::Scratch, base + from * count, count, isRoot,
         G.c(P - 1));
  G.copy(g, BufferId::Scratch, base + me * count, in.buf, in.off, count,
         isRoot);
  G.phase("reduce", 1);
  G.reduce(g, out.buf, out.off, BufferId::Scratch, base, count, g.sizeE, count,
           isRoot);
}

} // namespace hccl::sched::gen
