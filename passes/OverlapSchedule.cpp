//===- OverlapSchedule.cpp - comm-overlap-schedule ------------------------===//
//
// Checks the options, builds the cost model once per run, and hands each
// block with collectives to a BlockScheduler (BlockScheduler.h: the
// dependence graph, the priorities, the limits).
//
//===----------------------------------------------------------------------===//
#include "BlockScheduler.h"

#include "hccl-mlir/Passes/Passes.h"

#include "mlir/IR/Diagnostics.h"

namespace mlir::comm {
#define GEN_PASS_DEF_OVERLAPSCHEDULE
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

namespace {

struct OverlapSchedulePass
    : public comm::impl::OverlapScheduleBase<OverlapSchedulePass> {
  using Base::Base;

  static constexpr StringLiteral kPass = BlockScheduler::kPass;

  LogicalResult parseBytes(StringRef name, StringRef text, double &out) {
    std::optional<uint64_t> v = sched::parseByteSize(text.str());
    if (!v)
      return emitError(getOperation()->getLoc())
             << kPass << ": option " << name << "='" << text
             << "' is not a valid size: expected a non-negative byte count "
                "with an optional K, M or G suffix";
    out = static_cast<double>(*v);
    return success();
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    if (maxInFlight < 0) {
      emitError(root->getLoc())
          << kPass
          << ": option max-in-flight=" << static_cast<int64_t>(maxInFlight)
          << " is not valid: expected 0 (no limit) or a "
             "positive count";
      return signalPassFailure();
    }
    OverlapLimits limits;
    limits.maxInFlight = maxInFlight;
    limits.memoryCapText = memoryCap;
    if (failed(parseBytes("max-bytes-in-flight", maxBytesInFlight,
                          limits.maxBytesInFlight)) ||
        failed(parseBytes("memory-cap", memoryCap, limits.memoryCap)))
      return signalPassFailure();
    limits.compute = {peakTflops, memoryGbps};
    if (failed(verifyComputeOptions(root, kPass, limits.compute)) ||
        failed(verifyRegionDepth(root, kMaxRegionDepth, kPass)) ||
        failed(verifySizesFitIn(root, kPass)))
      return signalPassFailure();
    std::optional<CommCostModel> model;
    if (getTopology(root)) {
      FailureOr<CommCostModel> m = CommCostModel::get(root, false, kPass);
      if (succeeded(m))
        model = std::move(*m);
    }

    SmallVector<Block *> blocks;
    root->walk([&](Block *b) {
      if (isa_and_nonnull<StartOp>(b->getParentOp()))
        return;
      if (llvm::any_of(*b, [](Operation &op) {
            return isa<CollectiveOpInterface, StartOp>(op);
          }))
        blocks.push_back(b);
    });
    // A failed block is left as it was; the others are still scheduled.
    for (Block *b : blocks) {
      BlockScheduleStats stats;
      BlockScheduler scheduler(*b, limits, model ? &*model : nullptr);
      if (failed(scheduler.run(stats)))
        signalPassFailure();
      numAsync += stats.async;
      numMoved += stats.moved;
    }
  }
};

} // namespace
