//===- GenCommon.cpp - Layouts, op emission and dispatch ------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

Layout splitLayout(E count, int64_t parts, E partsE) {
  Layout L;
  L.pieces = 1;
  E q = count / partsE, rem = count % partsE;
  L.off = [q, rem](E i, E) { return i * q + min(i, rem); };
  L.cnt = [q, rem](E i) { return q + (i < rem); };
  L.maxCnt = (count + partsE - 1) / partsE;
  L.total = count;
  return L;
}

Layout uniformLayout(E cnt, int64_t blocks, E blocksE) {
  Layout L;
  L.pieces = 1;
  L.off = [cnt](E i, E) { return i * cnt; };
  L.cnt = [cnt](E) { return cnt; };
  L.maxCnt = cnt;
  L.total = blocksE * cnt;
  return L;
}

Layout rowsLayout(E cnt, int64_t rows, int64_t blocks, E blocksE, E rowsE) {
  if (rows <= 1)
    return uniformLayout(cnt, blocks, blocksE);
  E len = cnt / rowsE;
  Layout L;
  L.pieces = rows;
  L.off = [len, blocksE](E i, E j) { return (j * blocksE + i) * len; };
  L.cnt = [len](E) { return len; };
  L.maxCnt = len;
  L.total = blocksE * cnt;
  return L;
}

Placement packed(Region r, E cnt) {
  return {r.buf, [r, cnt](E j) { return r.off + j * cnt; }};
}

Placement atBlock(Region r, const Layout &L, E i) {
  auto off = L.off;
  return {r.buf, [r, off, i](E j) { return r.off + off(i, j); }};
}

int64_t floorLog2(int64_t v) {
  int64_t l = 0;
  while ((int64_t(1) << (l + 1)) <= v)
    ++l;
  return l;
}

int64_t ceilLog2(int64_t v) {
  int64_t l = 0;
  while ((int64_t(1) << l) < v)
    ++l;
  return l;
}

E Gen::alloc(E size) {
  E off = scratchEnd_.valid() ? scratchEnd_ : c(0);
  scratchEnd_ = off + size;
  return off;
}

void Gen::phase(const std::string &name, int64_t steps) {
  b.addPhase(prefix + name, c(steps));
}

E Gen::when(const GroupView &g, E cond) {
  if (g.active.valid() && cond.valid())
    return g.active & cond;
  return g.active.valid() ? g.active : cond;
}

ProgramBuilder::Opt Gen::opt(const GroupView &g, E cond, E repeat) {
  ProgramBuilder::Opt o;
  o.when = when(g, cond);
  o.repeat = repeat;
  return o;
}

void Gen::send(const GroupView &g, E peer, BufferId buf, E off, E count, E cond,
               E repeat) {
  b.send(g.member(peer), buf, off, count, opt(g, cond, repeat));
}

void Gen::recv(const GroupView &g, E peer, BufferId buf, E off, E count, E cond,
               E repeat) {
  b.recv(g.member(peer), buf, off, count, opt(g, cond, repeat));
}

void Gen::recvReduce(const GroupView &g, E peer, BufferId dst, E dstOff,
                     BufferId src, E srcOff, E count, E cond, E repeat) {
  b.recvReduce(g.member(peer), dst, dstOff, src, srcOff, count,
               opt(g, cond, repeat));
}

void Gen::copy(const GroupView &g, BufferId dst, E dstOff, BufferId src,
               E srcOff, E count, E cond, E repeat) {
  if (dst == src && dstOff.id() == srcOff.id())
    return;
  b.copy(dst, dstOff, src, srcOff, count, opt(g, cond, repeat));
}

void Gen::reduce(const GroupView &g, BufferId dst, E dstOff, BufferId src,
                 E srcOff, E stride, E srcN, E count, E cond, E repeat) {
  b.reduce(dst, dstOff, src, srcOff, stride, srcN, count, opt(g, cond, repeat));
}

Fold makeFold(Gen &G, const GroupView &g) {
  Fold F;
  F.L = floorLog2(g.size);
  F.P2 = int64_t(1) << F.L;
  F.rem = g.size - F.P2;
  E me = g.me;
  if (F.rem == 0) {
    F.vme = me;
    F.real = [](E v) { return v; };
    F.first = [](E v) { return v; };
    return F;
  }
  int64_t rem = F.rem;
  F.vme = max(me / 2, me - rem);
  F.participant = (me >= 2 * rem) | eq(me % 2, 1);
  F.folded = (me < 2 * rem) & eq(me % 2, 1);
  F.plain = me >= 2 * rem;
  F.foldSender = (me < 2 * rem) & eq(me % 2, 0);
  F.real = [rem](E v) { return min(v * 2 + 1, v + rem); };
  F.first = [rem](E v) { return min(v * 2, v + rem); };
  return F;
}

namespace {
Status cannot(const char *what, Algorithm a) {
  return Status::error(std::string("algorithm '") + algorithmName(a) +
                       "' cannot serve " + what);
}
} // namespace

Status genAllReduce(Gen &G, Algorithm a, const GroupView &g, Region in,
                    Region out, E count) {
  switch (a) {
  case Algorithm::Ring:
    ringAllReduce(G, g, in, out, count);
    break;
  case Algorithm::MeshTwoShot:
    meshAllReduce(G, g, in, out, count);
    break;
  case Algorithm::MeshOneShot:
    meshOneShotAllReduce(G, g, in, out, count);
    break;
  case Algorithm::RHD:
    rhdAllReduce(G, g, in, out, count);
    break;
  case Algorithm::RecursiveDoubling:
    rdAllReduce(G, g, in, out, count);
    break;
  default:
    return cannot("allreduce", a);
  }
  return Status::ok();
}

Status genReduceScatter(Gen &G, Algorithm a, const GroupView &g, Region in,
                        const Layout &L, Placement out, const Region *acc) {
  switch (a) {
  case Algorithm::Ring:
    ringReduceScatter(G, g, in, L, out, acc);
    break;
  case Algorithm::MeshTwoShot:
    meshReduceScatter(G, g, in, L, out);
    break;
  case Algorithm::RHD:
    rhdReduceScatter(G, g, in, L, out, acc);
    break;
  default:
    return cannot("reducescatter", a);
  }
  return Status::ok();
}

Status genAllGather(Gen &G, Algorithm a, const GroupView &g, Placement in,
                    Region out, const Layout &L) {
  switch (a) {
  case Algorithm::Ring:
    ringAllGather(G, g, in, out, L);
    break;
  case Algorithm::MeshTwoShot:
    meshAllGather(G, g, in, out, L);
    break;
  case Algorithm::RHD:
    rhdAllGather(G, g, in, out, L);
    break;
  default:
    return cannot("allgather", a);
  }
  return Status::ok();
}

Status genBroadcast(Gen &G, Algorithm a, const GroupView &g, E root, Region in,
                    Region out, E count) {
  switch (a) {
  case Algorithm::Ring:
    ringBroadcast(G, g, root, in, out, count);
    break;
  case Algorithm::Tree:
    treeBroadcast(G, g, root, in, out, count);
    break;
  case Algorithm::Star:
  case Algorithm::MeshTwoShot:
    starBroadcast(G, g, root, in, out, count);
    break;
  default:
    return cannot("broadcast", a);
  }
  return Status::ok();
}

Status genReduce(Gen &G, Algorithm a, const GroupView &g, E root, Region in,
                 Region out, E count) {
  switch (a) {
  case Algorithm::Ring:
    ringReduce(G, g, root, in, out, count);
    break;
  case Algorithm::Tree:
    treeReduce(G, g, root, in, out, count);
    break;
  case Algorithm::Star:
  case Algorithm::MeshTwoShot:
    starReduce(G, g, root, in, out, count);
    break;
  default:
    return cannot("reduce", a);
  }
  return Status::ok();
}

} // namespace hccl::sched::gen
