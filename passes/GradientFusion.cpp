//===- GradientFusion.cpp - comm-gradient-fusion --------------------------===//
//
// Buckets -> variadic all_reduce. The fused op goes where the bucket's last
// member was (all inputs are ready there). Ops that used an earlier member's
// result and sat before that point are moved after it, in order; this is
// sound because they are forward-reachable from the bucket only, never
// ancestors of a member (that is the cycle check).
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::comm {
#define GEN_PASS_DEF_GRADIENTFUSION
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;

namespace {

/// What must agree for two all_reduces to become one op.
struct FusionKey {
  Attribute group, kind, algo;
  Type elementType;
  bool operator==(const FusionKey &o) const {
    return group == o.group && kind == o.kind && algo == o.algo &&
           elementType == o.elementType;
  }
};

FusionKey keyOf(AllReduceOp op) {
  Type et =
      cast<RankedTensorType>(op.getInputs().front().getType()).getElementType();
  return {op.getGroupAttr(), op.getKindAttr(), op.getAlgoAttr(), et};
}

/// Ops of `block` before `limit` that are forward-reachable from `root`'s
/// results (users in nested regions count as their ancestor in `block`).
void collectReachable(Operation *root, Operation *limit, Block *block,
                      llvm::SetVector<Operation *> &reached) {
  SmallVector<Operation *> work{root};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value res : op->getResults())
      for (Operation *user : res.getUsers()) {
        Operation *anc = block->findAncestorOpInBlock(*user);
        if (!anc || anc == limit || !anc->isBeforeInBlock(limit))
          continue;
        if (reached.insert(anc))
          work.push_back(anc);
      }
  }
}

struct GradientFusionPass
    : public comm::impl::GradientFusionBase<GradientFusionPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](Block *block) { fuseBlock(block); });
  }

  void fuseBlock(Block *block) {
    // Buckets in order of first appearance.
    llvm::MapVector<int64_t, SmallVector<AllReduceOp>> buckets;
    for (Operation &op : *block)
      if (auto ar = dyn_cast<AllReduceOp>(op))
        if (auto b = ar->getAttrOfType<IntegerAttr>(
                CommDialect::getBucketAttrName()))
          buckets[b.getInt()].push_back(ar);
    for (auto &[id, members] : buckets)
      fuseBucket(block, id, members);
  }

  /// Splits a bucket into runs that can be fused and materialises each.
  void fuseBucket(Block *block, int64_t id, ArrayRef<AllReduceOp> members) {
    // Members with different keys are fused separately, in order.
    SmallVector<std::pair<FusionKey, SmallVector<AllReduceOp>>> byKey;
    for (AllReduceOp m : members) {
      FusionKey k = keyOf(m);
      auto it = llvm::find_if(byKey, [&](auto &e) { return e.first == k; });
      if (it == byKey.end())
        byKey.push_back({k, {m}});
      else
        it->second.push_back(m);
    }
    if (byKey.size() > 1)
      numSplits += byKey.size() - 1;
    for (auto &[key, ops] : byKey) {
      SmallVector<AllReduceOp> run;
      for (AllReduceOp m : ops) {
        if (!run.empty() && !canJoin(block, run, m)) {
          materialize(id, run);
          run.clear();
          ++numSplits;
        }
        run.push_back(m);
      }
      materialize(id, run);
    }
  }

  /// `m` may join `run` if no member of `run` reaches it, and every op that
  /// would have to move past it is free of side effects.
  bool canJoin(Block *block, ArrayRef<AllReduceOp> run, AllReduceOp m) {
    llvm::SetVector<Operation *> reached;
    for (AllReduceOp r : run)
      collectReachable(r, m, block, reached);
    for (Operation *op : reached)
      if (!isMemoryEffectFree(op))
        return false;
    // A cycle: m's operands come from the run or something it feeds.
    for (Value v : m.getInputs())
      if (Operation *def = v.getDefiningOp())
        if (Operation *anc = block->findAncestorOpInBlock(*def))
          if (reached.contains(anc) ||
              llvm::is_contained(run, dyn_cast<AllReduceOp>(anc)))
            return false;
    return true;
  }

  void materialize(int64_t id, ArrayRef<AllReduceOp> run) {
    if (run.size() < 2)
      return;
    AllReduceOp last = run.back();
    Block *block = last->getBlock();
    llvm::SetVector<Operation *> toMove;
    for (AllReduceOp r : run.drop_back())
      collectReachable(r, last, block, toMove);

    SmallVector<Value> inputs;
    SmallVector<Location> locs;
    for (AllReduceOp r : run) {
      llvm::append_range(inputs, r.getInputs());
      locs.push_back(r.getLoc());
    }
    OpBuilder b(last);
    auto fused =
        b.create<AllReduceOp>(b.getFusedLoc(locs), last.getKindAttr(), inputs,
                              last.getGroupAttr(), last.getAlgoAttr());
    fused->setAttr(CommDialect::getBucketAttrName(), b.getI64IntegerAttr(id));
    unsigned pos = 0;
    for (AllReduceOp r : run) {
      r.replaceAllUsesWith(fused.getResults().slice(pos, r.getNumResults()));
      pos += r.getNumResults();
    }
    // Keep block order among the moved ops.
    SmallVector<Operation *> ordered(toMove.begin(), toMove.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    Operation *after = fused;
    for (Operation *op : ordered) {
      op->moveAfter(after);
      after = op;
    }
    for (AllReduceOp r : run)
      r.erase();
    numFused += run.size();
    ++numBuckets;
  }
};

} // namespace
