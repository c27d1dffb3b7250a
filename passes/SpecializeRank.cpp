//===- SpecializeRank.cpp - comm-specialize-rank --------------------------===//
//
// Substitute (r, p, n), unroll phases and repeats, fold. Folding is the
// ordinary canonicaliser: arith constant folding plus the comm folders
// (emod, param, table_at, step fields, `when` = 0 erases the op).
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::comm {
#define GEN_PASS_DEF_SPECIALIZERANK
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;

namespace {

struct SpecializeRankPass
    : public comm::impl::SpecializeRankBase<SpecializeRankPass> {
  using Base::Base;

  void runOnOperation() override {
    if (rank < 0) {
      getOperation()->emitError()
          << "comm-specialize-rank needs rank=R with R >= 0, found "
          << rank.getValue();
      return signalPassFailure();
    }
    SmallVector<ProgramOp> schedules;
    getOperation()->walk([&](ProgramOp s) { schedules.push_back(s); });
    FrozenRewritePatternSet patterns = collectPatterns();
    for (ProgramOp s : schedules)
      if (failed(specialize(s, patterns)))
        return signalPassFailure();
  }

  FrozenRewritePatternSet collectPatterns() {
    MLIRContext *ctx = &getContext();
    RewritePatternSet set(ctx);
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      if (name.getDialectNamespace() == "comm" ||
          name.getDialectNamespace() == "arith")
        name.getCanonicalizationPatterns(set, ctx);
    ctx->getLoadedDialect<arith::ArithDialect>()->getCanonicalizationPatterns(
        set);
    return FrozenRewritePatternSet(std::move(set));
  }

  LogicalResult specialize(ProgramOp s, const FrozenRewritePatternSet &pats) {
    if (s.getRankAttr())
      return s.emitOpError() << "is already specialised for rank "
                             << s.getRankAttr().getInt();
    int64_t p = s.getRanksAttr().getInt();
    if (rank >= p)
      return s.emitOpError() << "cannot specialise for rank " << rank.getValue()
                             << ": the program is for " << p << " ranks (0.."
                             << p - 1 << ")";
    OpBuilder b(s.getContext());
    s.setRankAttr(b.getI64IntegerAttr(rank));
    Block &body = s.getBodyBlock();
    b.setInsertionPointToStart(&body);
    Location loc = s.getLoc();
    s.getRankArg().replaceAllUsesWith(
        b.create<arith::ConstantIndexOp>(loc, rank));
    s.getSizeArg().replaceAllUsesWith(b.create<arith::ConstantIndexOp>(loc, p));
    s.getCountArg().replaceAllUsesWith(b.create<arith::ConstantIndexOp>(
        loc, s.getCountAttr().getInt()));

    unrollPhases(s);
    if (failed(fold(s, pats)))
      return failure();
    if (failed(unrollRepeats(s)))
      return failure();
    return fold(s, pats);
  }

  /// One phase op per step, each with its step index as a constant.
  void unrollPhases(ProgramOp s) {
    SmallVector<PhaseOp> phases;
    for (auto ph : s.getBodyBlock().getOps<PhaseOp>())
      phases.push_back(ph);
    OpBuilder b(s.getContext());
    for (PhaseOp ph : phases) {
      int64_t steps = ph.getStepsAttr().getInt();
      int64_t first = ph.getStepAttr() ? ph.getStepAttr().getInt() : 0;
      b.setInsertionPoint(ph);
      for (int64_t i = 0; i < steps; ++i) {
        auto one = cast<PhaseOp>(b.clone(*ph));
        one.setStepsAttr(b.getI64IntegerAttr(1));
        one.setStepAttr(b.getI64IntegerAttr(first + i));
        OpBuilder ib = OpBuilder::atBlockBegin(&one.getBodyBlock());
        one.getStepArg().replaceAllUsesWith(
            ib.create<arith::ConstantIndexOp>(ph.getLoc(), first + i));
      }
      ph.erase();
    }
  }

  LogicalResult unrollRepeats(ProgramOp s) {
    SmallVector<RepeatOp> repeats;
    s.walk([&](RepeatOp r) { repeats.push_back(r); });
    for (RepeatOp r : repeats) {
      APInt c;
      if (!matchPattern(r.getCount(), m_ConstantInt(&c)))
        return r.emitOpError()
               << "count does not fold to a constant for rank "
               << rank.getValue();
      int64_t count = c.getSExtValue();
      OpBuilder b(r);
      for (int64_t t = 0; t < count; ++t) {
        IRMapping map;
        map.map(r.getIndexArg(),
                b.create<arith::ConstantIndexOp>(r.getLoc(), t).getResult());
        for (Operation &o : r.getBodyBlock())
          b.clone(o, map);
      }
      r.erase();
    }
    return success();
  }

  LogicalResult fold(ProgramOp s, const FrozenRewritePatternSet &pats) {
    GreedyRewriteConfig cfg;
    cfg.maxIterations = 64;
    if (failed(applyPatternsAndFoldGreedily(s.getBody(), pats, cfg)))
      return s.emitOpError() << "did not fold to a fixed point";
    return success();
  }
};

} // namespace
