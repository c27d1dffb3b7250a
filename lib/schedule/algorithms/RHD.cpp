//===- RHD.cpp - Recursive halving-doubling (Rabenseifner) ----------------===//
//
// p = 2^L + rem. Non-power-of-two fold: the first 2*rem ranks pair up, the
// even one sends its data to the odd one (which reduces it) and sits out;
// the odd ones and the ranks >= 2*rem form 2^L "virtual" ranks
// v = max(me/2, me - rem). Halving step k exchanges half of the current
// range with v ^ (2^L >> (k+1)); doubling runs the distances back up. The
// folded ranks get their result back in a last step. 2L (+2) steps for
// all-reduce, L (+2) for reduce-scatter and all-gather.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {
namespace {

// One halving step k: the range of 2^L>>k virtual blocks containing vme is
// split; the half not containing vme goes to the partner, the other half is
// reduced with the partner's copy. B(v, j) = offset of virtual boundary v.
struct Halving {
  E partner, sendLo, keepLo, half;
};
Halving halving(const Fold &F, E k) {
  Halving h;
  h.half = F.vme.c(F.P2) >> (k + 1);
  E shift = F.vme.c(F.L) - k;
  E lo = (F.vme >> shift) << shift;
  E bit = F.vme & h.half;
  h.keepLo = lo + bit;
  h.sendLo = lo + h.half - bit;
  h.partner = F.vme ^ h.half;
  return h;
}

} // namespace

void rhdAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count) {
  if (g.size == 1) {
    G.phase("copy", 1);
    G.copy(g, out.buf, out.off, in.buf, in.off, count);
    return;
  }
  Fold F = makeFold(G, g);
  E me = g.me;
  // Virtual block boundaries: count split over 2^L blocks.
  E q = count / F.P2, rm = count % F.P2;
  auto B = [&](E v) { return v * q + min(v, rm); };
  if (F.rem) {
    G.phase("fold", 1);
    G.send(g, me + 1, in.buf, in.off, count, F.foldSender);
    G.recvReduce(g, me - 1, out.buf, out.off, in.buf, in.off, count, F.folded);
  }
  auto halve = [&](E k, Region X, E cond) {
    Halving h = halving(F, k);
    E peer = F.real(h.partner);
    G.send(g, peer, X.buf, X.off + B(h.sendLo),
           B(h.sendLo + h.half) - B(h.sendLo), cond);
    G.recvReduce(g, peer, out.buf, out.off + B(h.keepLo), X.buf,
                 X.off + B(h.keepLo), B(h.keepLo + h.half) - B(h.keepLo), cond);
  };
  G.phase("halve", 1);
  halve(G.c(0), in, F.plain);
  if (F.rem)
    halve(G.c(0), out, F.folded);
  if (F.L > 1) {
    G.phase("halve", F.L - 1);
    halve(G.b.s() + 1, out, F.participant);
  }
  // Doubling: at distance 2^k the rank holds the aligned 2^k blocks around
  // vme and swaps them with vme ^ 2^k.
  G.phase("double", F.L);
  {
    E k = G.b.s();
    E dist = G.c(1) << k;
    E lo = (F.vme >> k) << k;
    E plo = lo ^ dist;
    E peer = F.real(F.vme ^ dist);
    G.send(g, peer, out.buf, out.off + B(lo), B(lo + dist) - B(lo),
           F.participant);
    G.recv(g, peer, out.buf, out.off + B(plo), B(plo + dist) - B(plo),
           F.participant);
  }
  if (F.rem) {
    G.phase("unfold", 1);
    G.send(g, me - 1, out.buf, out.off, count, F.folded);
    G.recv(g, me + 1, out.buf, out.off, count, F.foldSender);
  }
}

void rhdReduceScatter(Gen &G, const GroupView &g, Region in, const Layout &L,
                      Placement out, const Region *acc) {
  E me = g.me;
  E j = G.piece(L);
  E rep = G.c(L.pieces);
  if (g.size == 1) {
    G.phase("rs_copy", 1);
    G.copy(g, out.buf, out.off(j), in.buf, in.off + L.off(me, j), L.cnt(me), {},
           rep);
    return;
  }
  Fold F = makeFold(G, g);
  // Work area with the input's layout: the caller's accumulator or scratch.
  Region W = acc ? *acc : Region{BufferId::Scratch, G.alloc(L.total)};
  auto B = [&](E v) { return L.off(F.first(v), j); };
  E whole = L.off(G.c(g.size), j) - L.off(G.c(0), j);
  if (F.rem) {
    G.phase("rs_fold", 1);
    G.send(g, me + 1, in.buf, in.off + L.off(G.c(0), j), whole, F.foldSender,
           rep);
    G.recvReduce(g, me - 1, W.buf, W.off + L.off(G.c(0), j), in.buf,
                 in.off + L.off(G.c(0), j), whole, F.folded, rep);
  }
  // A halving step; the first reads the input (plain ranks) and the last
  // writes the plain ranks' own block straight to `out`.
  auto halve = [&](E k, bool firstStep, bool lastStep) {
    Halving h = halving(F, k);
    E peer = F.real(h.partner);
    E sendCnt = B(h.sendLo + h.half) - B(h.sendLo);
    E keepCnt = B(h.keepLo + h.half) - B(h.keepLo);
    for (int variant = 0; variant < (F.rem ? 2 : 1); ++variant) {
      bool plain = variant == 0;
      E cond = plain ? F.plain : F.folded;
      Region X = (firstStep && plain) ? in : W;
      G.send(g, peer, X.buf, X.off + B(h.sendLo), sendCnt, cond, rep);
      if (lastStep && plain)
        G.recvReduce(g, peer, out.buf, out.off(j), X.buf, X.off + B(h.keepLo),
                     keepCnt, cond, rep);
      else
        G.recvReduce(g, peer, W.buf, W.off + B(h.keepLo), X.buf,
                     X.off + B(h.keepLo), keepCnt, cond, rep);
    }
  };
  if (F.L == 1) {
    G.phase("rs_halve", 1);
    halve(G.c(0), true, true);
  } else {
    G.phase("rs_halve", 1);
    halve(G.c(0), true, false);
    if (F.L > 2) {
      G.phase("rs_halve", F.L - 2);
      halve(G.b.s() + 1, false, false);
    }
    G.phase("rs_halve", 1);
    halve(G.c(F.L - 1), false, true);
  }
  if (F.rem) {
    // The folded rank holds blocks me-1 and me: keep one, return the other.
    G.phase("rs_unfold", 1);
    G.copy(g, out.buf, out.off(j), W.buf, W.off + L.off(me, j), L.cnt(me),
           F.folded, rep);
    G.send(g, me - 1, W.buf, W.off + L.off(me - 1, j), L.cnt(me - 1), F.folded,
           rep);
    G.recv(g, me + 1, out.buf, out.off(j), L.cnt(me), F.foldSender, rep);
  }
}

void rhdAllGather(Gen &G, const GroupView &g, Placement in, Region out,
                  const Layout &L) {
  E me = g.me;
  E j = G.piece(L);
  E rep = G.c(L.pieces);
  auto outAt = [&](E blk) { return out.off + L.off(blk, j); };
  if (g.size == 1) {
    G.phase("ag_copy", 1);
    G.copy(g, out.buf, outAt(me), in.buf, in.off(j), L.cnt(me), {}, rep);
    return;
  }
  Fold F = makeFold(G, g);
  auto B = [&](E v) { return L.off(F.first(v), j); };
  if (F.rem) {
    G.phase("ag_fold", 1);
    G.send(g, me + 1, in.buf, in.off(j), L.cnt(me), F.foldSender, rep);
    G.recv(g, me - 1, out.buf, outAt(me - 1), L.cnt(me - 1), F.folded, rep);
    G.copy(g, out.buf, outAt(me), in.buf, in.off(j), L.cnt(me), F.folded, rep);
  }
  auto dbl = [&](E k, bool firstStep) {
    E dist = G.c(1) << k;
    E lo = (F.vme >> k) << k;
    E plo = lo ^ dist;
    E peer = F.real(F.vme ^ dist);
    G.recv(g, peer, out.buf, out.off + B(plo), B(plo + dist) - B(plo),
           F.participant, rep);
    if (firstStep) {
      // Plain ranks' own range is exactly their input block.
      G.send(g, peer, in.buf, in.off(j), L.cnt(me), F.plain, rep);
      G.copy(g, out.buf, outAt(me), in.buf, in.off(j), L.cnt(me), F.plain, rep);
      if (F.rem)
        G.send(g, peer, out.buf, out.off + B(lo), B(lo + dist) - B(lo),
               F.folded, rep);
      return;
    }
    G.send(g, peer, out.buf, out.off + B(lo), B(lo + dist) - B(lo),
           F.participant, rep);
  };
  G.phase("ag_double", 1);
  dbl(G.c(0), true);
  if (F.L > 1) {
    G.phase("ag_double", F.L - 1);
    dbl(G.b.s() + 1, false);
  }
  if (F.rem) {
    // Everything but the even rank's own block goes back to it.
    G.phase("ag_unfold", 1);
    E zero = G.c(0), P = G.c(g.size);
    G.send(g, me - 1, out.buf, outAt(zero), L.off(me - 1, j) - L.off(zero, j),
           F.folded, rep);
    G.send(g, me - 1, out.buf, outAt(me), L.off(P, j) - L.off(me, j), F.folded,
           rep);
    G.recv(g, me + 1, out.buf, outAt(zero), L.off(me, j) - L.off(zero, j),
           F.foldSender, rep);
    G.recv(g, me + 1, out.buf, outAt(me + 1), L.off(P, j) - L.off(me + 1, j),
           F.foldSender, rep);
    G.copy(g, out.buf, outAt(me), in.buf, in.off(j), L.cnt(me), F.foldSender,
           rep);
  }
}

} // namespace hccl::sched::gen
