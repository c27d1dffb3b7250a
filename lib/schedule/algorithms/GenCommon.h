//===- GenCommon.h - Group views, layouts and op emission -------*- C++ -*-===//
//
// Private to lib/schedule. Every generator is written against a GroupView
// (who am I in this group, how big is it, which program rank is member i,
// am I taking part) and against layouts of the data (block i of a vector, in
// one or several contiguous pieces), so the hierarchical generator can run
// the flat ones on intra-server and inter-server sub-groups and on strided
// blocks.
//
// Predicates are 0/1 values (comparisons) and are combined with '&'.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_SCHEDULE_ALGORITHMS_GENCOMMON_H
#define HCCL_SCHEDULE_ALGORITHMS_GENCOMMON_H

#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Program.h"

#include <functional>
#include <string>

namespace hccl::sched::gen {

struct GroupView {
  E me;                       ///< my index in the group
  int64_t size = 1;           ///< members
  E sizeE;                    ///< the size as printed (p, m, p / m, ...)
  std::function<E(E)> member; ///< group index -> program rank
  E active;                   ///< 0/1: I take part (invalid = everyone)
};

struct Region {
  BufferId buf = BufferId::Output;
  E off;
};

/// Block i (0 <= i < size) of a group-wide vector is `pieces` contiguous
/// pieces of cnt(i) elements; piece j starts at off(i, j) relative to the
/// region base. RHD also needs blocks consecutive inside a piece
/// (off(i+1, j) = off(i, j) + cnt(i), off(size, j) = end of piece j) because
/// it moves ranges of blocks; ring and mesh move one block at a time.
struct Layout {
  int64_t pieces = 1;
  std::function<E(E, E)> off;
  std::function<E(E)> cnt;
  E maxCnt; ///< >= cnt(i) for every i
  E total;  ///< extent of the whole region
};

/// Where my own block lives: piece j at buf[off(j)].
struct Placement {
  BufferId buf = BufferId::Output;
  std::function<E(E)> off;
};

/// count split into `parts` near-equal blocks: the block rule.
Layout splitLayout(E count, int64_t parts, E partsE);
/// `blocks` blocks of cnt elements each, block i at i*cnt.
Layout uniformLayout(E cnt, int64_t blocks, E blocksE);
/// `blocks` blocks of cnt elements each in the block layout with `rows`
/// rows (Program::inputOuter): piece j (a row) of block i at
/// (j*blocks + i) * (cnt/rows), so blocks are consecutive inside a row.
/// rows = 1 is uniformLayout.
Layout rowsLayout(E cnt, int64_t rows, int64_t blocks, E blocksE, E rowsE);
/// Piece j of my block at r.off + j*cnt.
Placement packed(Region r, E cnt);
/// My block `i` of a layout placed in region r.
Placement atBlock(Region r, const Layout &L, E i);

int64_t floorLog2(int64_t v);
int64_t ceilLog2(int64_t v);

/// Emits ops into the builder on behalf of a group.
class Gen {
public:
  Gen(ProgramBuilder &b, const GenerateRequest &req) : b(b), req(req) {}

  ProgramBuilder &b;
  const GenerateRequest &req;
  std::string prefix; ///< prepended to phase names ("l0_", "l1_")

  E c(int64_t v) { return b.c(v); }
  /// The piece index of ops that repeat over a layout's pieces: t, or the
  /// constant 0 for one piece (keeps the printed program simple).
  E piece(const Layout &L) { return L.pieces == 1 ? c(0) : b.t(); }
  /// Bump allocation in the scratch buffer; returns the offset.
  E alloc(E size);
  E scratchSize() { return scratchEnd_.valid() ? scratchEnd_ : c(0); }

  void phase(const std::string &name, int64_t steps);
  /// Combines a predicate with the group's `active`.
  E when(const GroupView &g, E cond);

  // Peers are group indices; `when` is ANDed with g.active.
  void send(const GroupView &g, E peer, BufferId buf, E off, E count,
            E cond = {}, E repeat = {});
  void recv(const GroupView &g, E peer, BufferId buf, E off, E count,
            E cond = {}, E repeat = {});
  void recvReduce(const GroupView &g, E peer, BufferId dst, E dstOff,
                  BufferId src, E srcOff, E count, E cond = {}, E repeat = {});
  /// Skipped when source and destination are syntactically the same.
  void copy(const GroupView &g, BufferId dst, E dstOff, BufferId src, E srcOff,
            E count, E cond = {}, E repeat = {});
  void reduce(const GroupView &g, BufferId dst, E dstOff, BufferId src,
              E srcOff, E stride, E srcN, E count, E cond = {}, E repeat = {});

private:
  ProgramBuilder::Opt opt(const GroupView &g, E cond, E repeat);
  E scratchEnd_;
};

/// The non-power-of-two fold shared by RHD and recursive doubling:
/// p = 2^L + rem; the first 2*rem ranks pair up (even sends to odd), and the
/// odd ones plus the ranks >= 2*rem act as 2^L virtual ranks.
struct Fold {
  int64_t L = 0, P2 = 1, rem = 0;
  E vme;         ///< virtual index (meaningful for participants)
  E participant; ///< invalid = everyone
  E folded;      ///< odd rank < 2*rem: absorbed its even partner
  E plain;       ///< participant that did not fold (invalid = everyone)
  E foldSender;  ///< even rank < 2*rem: sits out between fold and unfold
  std::function<E(E)> real;  ///< virtual -> group index
  std::function<E(E)> first; ///< virtual -> its first real block
};
Fold makeFold(Gen &G, const GroupView &g);

//===----------------------------------------------------------------------===//
// The algorithm building blocks. `in` and `out` may be the same region
// (in-place inside a hierarchical composition); at the top level the input
// may alias the output as the collective defines in-place (rule 5), so no
// generator may read its input in a step where it writes the aliased output.
//===----------------------------------------------------------------------===//

// out[0, count) = reduce over g of in[0, count).
void ringAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count);
void meshAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count);
void meshOneShotAllReduce(Gen &G, const GroupView &g, Region in, Region out,
                          E count);
void rhdAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count);
void rdAllReduce(Gen &G, const GroupView &g, Region in, Region out, E count);

// My block of the reduction of `in` (layout L over g) lands at `out`.
// `acc`, when given, is a region with the layout of `in` the generator may
// use as its accumulator (all-reduce passes its output); its block `me`
// must then be `out`.
void ringReduceScatter(Gen &G, const GroupView &g, Region in, const Layout &L,
                       Placement out, const Region *acc);
void meshReduceScatter(Gen &G, const GroupView &g, Region in, const Layout &L,
                       Placement out);
void rhdReduceScatter(Gen &G, const GroupView &g, Region in, const Layout &L,
                      Placement out, const Region *acc);

// Block i of `out` (layout L) = member i's block, which on me lives at `in`.
void ringAllGather(Gen &G, const GroupView &g, Placement in, Region out,
                   const Layout &L);
void meshAllGather(Gen &G, const GroupView &g, Placement in, Region out,
                   const Layout &L);
void rhdAllGather(Gen &G, const GroupView &g, Placement in, Region out,
                  const Layout &L);

// Root (group index) holds `in`; everyone ends with `out` = root's in.
void ringBroadcast(Gen &G, const GroupView &g, E root, Region in, Region out,
                   E count);
void treeBroadcast(Gen &G, const GroupView &g, E root, Region in, Region out,
                   E count);
void starBroadcast(Gen &G, const GroupView &g, E root, Region in, Region out,
                   E count);

// Root's `out` = reduce over g of in; other ranks' `out` is not written.
void ringReduce(Gen &G, const GroupView &g, E root, Region in, Region out,
                E count);
void treeReduce(Gen &G, const GroupView &g, E root, Region in, Region out,
                E count);
void starReduce(Gen &G, const GroupView &g, E root, Region in, Region out,
                E count);

/// All-to-all(v) block geometry as functions of the peer index. With
/// pieces > 1 (block layouts) every block moves as `pieces` pieces of
/// sendCnt / pieces elements, piece j of the block for (from) peer k at
/// sendPiece(k, j) (recvPiece(k, j)); sendOff / recvOff are then unused.
struct AllToAllShape {
  std::function<E(E)> sendOff, sendCnt, recvOff, recvCnt;
  int64_t pieces = 1;
  std::function<E(E, E)> sendPiece, recvPiece;
  E sendAt(E k, E j) const { return pieces > 1 ? sendPiece(k, j) : sendOff(k); }
  E recvAt(E k, E j) const { return pieces > 1 ? recvPiece(k, j) : recvOff(k); }
  E pieceCnt(E k, E piecesE) const {
    return pieces > 1 ? sendCnt(k) / piecesE : sendCnt(k);
  }
};
void pairwiseAllToAll(Gen &G, const GroupView &g, const AllToAllShape &sh);
void meshAllToAll(Gen &G, const GroupView &g, const AllToAllShape &sh);

/// Collective permute (Pairwise.cpp): my n elements go to `target`, my
/// output comes from `source` (group indices, -1 = none; a rank that is its
/// own target copies). One step.
void permute(Gen &G, const GroupView &g, E target, E source, E n);

/// Dispatch by algorithm (the hierarchical generator uses these).
Status genAllReduce(Gen &G, Algorithm a, const GroupView &g, Region in,
                    Region out, E count);
Status genReduceScatter(Gen &G, Algorithm a, const GroupView &g, Region in,
                        const Layout &L, Placement out, const Region *acc);
Status genAllGather(Gen &G, Algorithm a, const GroupView &g, Placement in,
                    Region out, const Layout &L);
Status genBroadcast(Gen &G, Algorithm a, const GroupView &g, E root, Region in,
                    Region out, E count);
Status genReduce(Gen &G, Algorithm a, const GroupView &g, E root, Region in,
                 Region out, E count);

/// The hierarchical collectives (Hierarchical.cpp).
Status hierarchical(Gen &G, const GenerateRequest &req);

} // namespace hccl::sched::gen

#endif // HCCL_SCHEDULE_ALGORITHMS_GENCOMMON_H
