//===- BucketSizing.cpp - comm-bucket-sizing ------------------------------===//
//
// Per block, the collectives of each group form one stream (the group's
// communication stream, in block order). Each stream is handed to
// BucketPlanner: all-reduces become items keyed by what fusion needs to
// agree on, any other collective is a fixed-cost item nothing fuses with.
// The chosen partition is written as `comm.bucket`; bucket numbers are
// unique in the operation the pass runs on, in walk order. `ddp` buckets of
// different keys may interleave; fusion groups by (bucket, key) and places
// each where its last member is.
//
// Complexity: building the timeline is linear in the block's ops (plus
// their operands); `threshold` and `ddp` are linear in the collectives;
// `optimal` is O(n * A) (BucketPlanner.h), with A the candidate algorithms (<=
// 10).
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"

#include <tuple>

#include "hccl-mlir/Passes/Passes.h"

namespace mlir::comm {
#define GEN_PASS_DEF_BUCKETSIZING
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;
namespace bucket = hccl::bucket;

namespace {

struct BucketSizingPass
    : public comm::impl::BucketSizingBase<BucketSizingPass> {
  using Base::Base;

  static constexpr StringLiteral kPass = "comm-bucket-sizing";

  enum class Policy { Threshold, Ddp, Optimal } kind = Policy::Threshold;
  double threshold = 0, firstBucket = 0;
  bucket::Caps caps;
  ComputeCostOptions computeOpts;
  std::optional<sched::HcclAlgoSpec> override;
  std::optional<CommCostModel> model;
  int64_t nextBucket = 0;

  /// Parses a byte-size option; `allowZero` for the "0 = none" ones.
  LogicalResult parseBytes(StringRef name, StringRef text, bool allowZero,
                           double &out) {
    std::optional<uint64_t> v = sched::parseByteSize(text.str());
    if (!v || (!allowZero && *v == 0))
      return emitError(getOperation()->getLoc())
             << kPass << ": option " << name << "='" << text
             << "' is not a valid size: expected "
             << (allowZero ? "a non-negative" : "a positive")
             << " byte count with an optional K, M or G suffix";
    out = static_cast<double>(*v);
    return success();
  }

  /// Policy defaults of the size options left empty ("").
  static constexpr StringLiteral kThresholdDefault = "64M";
  static constexpr StringLiteral kDdpCapDefault = "25M";  // bucket_cap_mb
  static constexpr StringLiteral kDdpFirstDefault = "1M"; // first bucket

  LogicalResult parseOptions() {
    Operation *root = getOperation();
    if (policy == "optimal")
      kind = Policy::Optimal;
    else if (policy == "ddp")
      kind = Policy::Ddp;
    else if (policy == "threshold")
      kind = Policy::Threshold;
    else
      return emitError(root->getLoc())
             << kPass << ": option policy='" << policy
             << "' is not valid: expected threshold, ddp or optimal";
    // An option the chosen policy does not read is a mistake, not a no-op:
    // given means different from the pass's own default.
    const BucketSizingOptions defaults;
    if (kind == Policy::Optimal)
      for (auto [name, value, dflt] :
           {std::tuple{"threshold-bytes", &thresholdBytes,
                       &defaults.thresholdBytes},
            std::tuple{"first-bucket-bytes", &firstBucketBytes,
                       &defaults.firstBucketBytes}})
        if (value->getValue() != *dflt)
          return emitError(root->getLoc())
                 << kPass << ": option " << name << "='" << value->getValue()
                 << "' has no effect with policy=optimal (the cost model "
                    "sizes the buckets)";
    if (kind != Policy::Optimal && algo.getValue() != defaults.algo)
      return emitError(root->getLoc())
             << kPass << ": option algo='" << algo
             << "' has no effect with policy=" << policy
             << " (only the cost model of policy=optimal reads it)";
    bool ddp = kind == Policy::Ddp;
    StringRef thresholdText =
        thresholdBytes.empty()
            ? StringRef(ddp ? kDdpCapDefault : kThresholdDefault)
            : StringRef(thresholdBytes.getValue());
    StringRef firstText = firstBucketBytes.empty()
                              ? StringRef(ddp ? kDdpFirstDefault : "0")
                              : StringRef(firstBucketBytes.getValue());
    if (failed(
            parseBytes("threshold-bytes", thresholdText, false, threshold)) ||
        failed(
            parseBytes("first-bucket-bytes", firstText, true, firstBucket)) ||
        failed(parseBytes("max-bucket-bytes", maxBucketBytes, true,
                          caps.maxBucketBytes)))
      return failure();
    if (maxCount < 0)
      return emitError(root->getLoc())
             << kPass << ": option max-count=" << static_cast<int64_t>(maxCount)
             << " is not valid: expected 0 (no limit) or "
                "a positive count";
    caps.maxCount = maxCount;
    computeOpts = {peakTflops, memoryGbps};
    if (failed(verifyComputeOptions(root, kPass, computeOpts)) ||
        failed(verifyRegionDepth(root, kMaxRegionDepth, kPass)) ||
        failed(verifySizesFitIn(root, kPass)))
      return failure();
    if (!algo.empty()) {
      sched::Result<sched::HcclAlgoSpec> spec = sched::parseHcclAlgo(algo);
      if (!spec)
        return emitError(root->getLoc())
               << kPass << ": option algo='" << algo
               << "' is not valid: " << spec.message();
      override = *spec;
    }
    return success();
  }

  /// The cost model, built on first use (only `optimal` needs it).
  FailureOr<CommCostModel *> getModel(Operation *at) {
    if (!model) {
      FailureOr<CommCostModel> m = CommCostModel::get(
          at, /*required=*/true, "comm-bucket-sizing with policy=optimal");
      if (failed(m))
        return failure();
      model = std::move(*m);
      model->setOverride(override);
    }
    return &*model;
  }

  void runOnOperation() override {
    if (failed(parseOptions()))
      return signalPassFailure();
    model.reset();
    nextBucket = 0;
    bool failedAny = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Block *block) {
      if (!failedAny && failed(sizeBlock(*block)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult sizeBlock(Block &block) {
    if (isa_and_nonnull<StartOp>(block.getParentOp()))
      return success();
    auto getModelFn = [&](Operation *at) { return getModel(at); };
    bool optimal = kind == Policy::Optimal;
    FailureOr<SmallVector<BucketStream>> streams = buildBucketStreams(
        block, computeOpts, caps,
        optimal ? llvm::function_ref<FailureOr<CommCostModel *>(Operation *)>(
                      getModelFn)
                : nullptr);
    if (failed(streams))
      return failure();
    for (BucketStream &s : *streams)
      assign(s, optimal ? bucket::planOptimal(s.problem)
                : kind == Policy::Ddp
                    ? bucket::planDdp(s.problem, threshold, firstBucket)
                    : bucket::planThreshold(s.problem, threshold, firstBucket));
    return success();
  }

  /// Writes the plan; buckets holding all-reduces are numbered densely, in
  /// order, after those of earlier streams.
  void assign(const BucketStream &s, const bucket::Plan &plan) {
    llvm::DenseMap<int64_t, int64_t> ids;
    Builder b(&getContext());
    for (auto [i, op] : llvm::enumerate(s.ops)) {
      if (!isa<AllReduceOp>(op))
        continue;
      auto [it, inserted] = ids.try_emplace(plan.bucketOf[i], nextBucket);
      if (inserted) {
        ++nextBucket;
        ++numBuckets;
      }
      op->setAttr(CommDialect::getBucketAttrName(),
                  b.getI64IntegerAttr(it->second));
      ++numBucketed;
    }
  }
};

} // namespace
