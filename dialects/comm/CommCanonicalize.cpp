//===- CommCanonicalize.cpp - comm canonicalisation patterns --------------===//
//
// Only rewrites that are obviously right on every rank:
//  - a collective over one-rank groups is the identity (a barrier is a no-op);
//  - a comm.start immediately followed by its comm.wait is the synchronous op.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::comm;

namespace {

bool onSingletonGroup(CollectiveOpInterface op) {
  GroupOp g = lookupGroup(op, op.getGroupAttr());
  return g && g.getGroupSize() == 1;
}

/// A collective over one-rank groups returns its inputs unchanged.
template <typename OpTy>
struct SingletonGroupIsIdentity : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    // Inside comm.start the op stays; StartOp's canonicaliser hoists it.
    if (isa<StartOp>(op->getParentOp()) ||
        !onSingletonGroup(cast<CollectiveOpInterface>(op.getOperation())))
      return failure();
    ValueRange inputs = op->getOperands();
    if (inputs.getTypes() != op->getResultTypes())
      return failure();
    rewriter.replaceOp(op, inputs);
    return success();
  }
};

struct SingletonBarrierIsNoOp : public OpRewritePattern<BarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BarrierOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<StartOp>(op->getParentOp()) || !onSingletonGroup(op))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void AllReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *ctx) {
  results.add<SingletonGroupIsIdentity<AllReduceOp>>(ctx);
}
void AllGatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *ctx) {
  results.add<SingletonGroupIsIdentity<AllGatherOp>>(ctx);
}
void ReduceScatterOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *ctx) {
  results.add<SingletonGroupIsIdentity<ReduceScatterOp>>(ctx);
}
void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *ctx) {
  results.add<SingletonGroupIsIdentity<BroadcastOp>>(ctx);
}
void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *ctx) {
  results.add<SingletonGroupIsIdentity<ReduceOp>>(ctx);
}
void AllToAllOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *ctx) {
  results.add<SingletonGroupIsIdentity<AllToAllOp>>(ctx);
}
void BarrierOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *ctx) {
  results.add<SingletonBarrierIsNoOp>(ctx);
}

/// comm.start immediately followed by its comm.wait, or starting an op that
/// is an identity anyway, becomes the synchronous op at the start's place.
LogicalResult StartOp::canonicalize(StartOp op, PatternRewriter &rewriter) {
  WaitOp wait = op.getWait();
  Operation *coll = op.getCollective();
  if (!wait || !coll || !isa<CollectiveOpInterface>(coll))
    return failure();
  bool adjacent = op->getNextNode() == wait.getOperation();
  bool identity = onSingletonGroup(cast<CollectiveOpInterface>(coll));
  if (!adjacent && !identity)
    return failure();
  // Results are needed at the wait; the op's operands are available at the
  // start. Moving it to the start keeps dominance for both.
  rewriter.setInsertionPoint(op);
  Operation *moved = rewriter.clone(*coll);
  rewriter.replaceOp(wait, moved->getResults());
  rewriter.eraseOp(op);
  return success();
}
