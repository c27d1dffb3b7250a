//===- SpecializeRank.cpp - comm-specialize-rank --------------------------===//
//
// Substitute (r, p, n), unroll phases and repeats, fold. Folding is the
// ordinary canonicaliser: arith constant folding plus the comm folders
// (emod, param, table_at, step fields, `when` = 0 erases the op).
//
// Unrolling is bounded by lib/schedule's kMaxExpandedSize, counted in IR
// ops created: a few bytes of `steps` or `repeat` must not make the pass
// allocate for minutes.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Passes/Passes.h"
#include "hccl-mlir/schedule/Program.h"

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
      return s.emitOpError()
             << "is already specialised for rank " << s.getRankAttr().getInt();
    int64_t p = s.getRanksAttr().getInt();
    if (rank >= p)
      return s.emitOpError()
             << "cannot specialise for rank " << rank.getValue()
             << ": the program is for " << p << " ranks (0.." << p - 1 << ")";
    OpBuilder b(s.getContext());
    s.setRankAttr(b.getI64IntegerAttr(rank));
    Block &body = s.getBodyBlock();
    b.setInsertionPointToStart(&body);
    Location loc = s.getLoc();
    s.getRankArg().replaceAllUsesWith(
        b.create<arith::ConstantIndexOp>(loc, rank));
    s.getSizeArg().replaceAllUsesWith(b.create<arith::ConstantIndexOp>(loc, p));
    s.getCountArg().replaceAllUsesWith(
        b.create<arith::ConstantIndexOp>(loc, s.getCountAttr().getInt()));

    if (failed(unrollPhases(s)))
      return failure();
    if (failed(fold(s, pats)))
      return failure();
    if (failed(unrollRepeats(s)))
      return failure();
    return fold(s, pats);
  }

  static int64_t opsIn(Block &b) {
    int64_t n = 0;
    b.walk([&](Operation *) { ++n; });
    return n;
  }

  /// Refuses unrolling that would create more than kMaxExpandedSize ops.
  LogicalResult checkSize(ProgramOp s, double ops, StringRef what) {
    if (ops <= static_cast<double>(hccl::sched::kMaxExpandedSize))
      return success();
    return s.emitOpError() << "cannot specialise for rank " << rank.getValue()
                           << ": unrolling its " << what << " "
                           << hccl::sched::expandedSizeError("IR ops");
  }

  /// One phase op per step, each with its step index as a constant.
  LogicalResult unrollPhases(ProgramOp s) {
    SmallVector<PhaseOp> phases;
    double total = 0;
    for (auto ph : s.getBodyBlock().getOps<PhaseOp>()) {
      phases.push_back(ph);
      total += static_cast<double>(ph.getStepsAttr().getInt()) *
               static_cast<double>(1 + opsIn(ph.getBodyBlock()));
    }
    if (failed(checkSize(s, total, "phases")))
      return failure();
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
    return success();
  }

  LogicalResult unrollRepeats(ProgramOp s) {
    SmallVector<std::pair<RepeatOp, int64_t>> repeats;
    double total = static_cast<double>(opsIn(s.getBodyBlock()));
    WalkResult walked = s.walk([&](RepeatOp r) {
      APInt c;
      if (!matchPattern(r.getCount(), m_ConstantInt(&c))) {
        r.emitOpError() << "count does not fold to a constant for rank "
                        << rank.getValue();
        return WalkResult::interrupt();
      }
      int64_t count = c.getSExtValue();
      repeats.push_back({r, count});
      total += static_cast<double>(count) *
               static_cast<double>(opsIn(r.getBodyBlock()));
      return WalkResult::advance();
    });
    if (walked.wasInterrupted() || failed(checkSize(s, total, "repeats")))
      return failure();
    for (auto [r, count] : repeats) {
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
