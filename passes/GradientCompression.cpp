//===- GradientCompression.cpp - comm-gradient-compression ----------------===//
//
// As HCCL's FP16 gradient compression: the all-reduce moves and sums half
// the bytes, and the result is widened back for the optimizer. Only sum
// all-reduces of f32 qualify: max/min/prod of rounded values would change
// meaning, and integer or already-narrow tensors gain nothing. Attributes
// (bucket, algorithm) carry over, so the pass may run before or after
// sizing and selection; it must run before overlap scheduling (a started
// collective cannot have casts put around it inside comm.start).
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::comm {
#define GEN_PASS_DEF_GRADIENTCOMPRESSION
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;

namespace {

struct GradientCompressionPass
    : public comm::impl::GradientCompressionBase<GradientCompressionPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    Type wire;
    if (dtype == "bf16")
      wire = BFloat16Type::get(ctx);
    else if (dtype == "fp16")
      wire = Float16Type::get(ctx);
    else {
      emitError(root->getLoc())
          << "comm-gradient-compression: option dtype='" << dtype
          << "' is not valid: expected bf16 or fp16";
      return signalPassFailure();
    }

    auto qualifies = [](AllReduceOp ar) {
      return ar.getKind() == ReductionKind::sum &&
             llvm::all_of(ar.getInputs().getTypes(), [](Type t) {
               return cast<RankedTensorType>(t).getElementType().isF32();
             });
    };
    SmallVector<AllReduceOp> todo;
    bool failedAny = false;
    root->walk([&](AllReduceOp ar) {
      if (!qualifies(ar))
        return;
      if (isa<StartOp>(ar->getParentOp())) {
        ar.emitOpError() << "is already started asynchronously; run "
                            "comm-gradient-compression before "
                            "comm-overlap-schedule";
        failedAny = true;
        return;
      }
      todo.push_back(ar);
    });
    if (failedAny)
      return signalPassFailure();

    for (AllReduceOp ar : todo) {
      OpBuilder b(ar);
      Location loc = ar.getLoc();
      SmallVector<Value> narrow;
      for (Value in : ar.getInputs()) {
        auto t = cast<RankedTensorType>(in.getType());
        narrow.push_back(
            b.create<arith::TruncFOp>(loc, t.clone(wire), in).getResult());
      }
      auto reduced = b.create<AllReduceOp>(loc, ar.getKindAttr(), narrow,
                                           ar.getGroupAttr(), ar.getAlgoAttr());
      // Discardable attributes (comm.bucket, ...) travel with the op.
      for (NamedAttribute a : ar->getDiscardableAttrs())
        reduced->setAttr(a.getName(), a.getValue());
      for (auto [oldRes, newRes] :
           llvm::zip(ar.getResults(), reduced.getResults())) {
        Value wide =
            b.create<arith::ExtFOp>(loc, oldRes.getType(), newRes).getResult();
        oldRes.replaceAllUsesWith(wide);
      }
      ar.erase();
      ++numCompressed;
    }
  }
};

} // namespace
