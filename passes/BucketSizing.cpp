//===- BucketSizing.cpp - comm-bucket-sizing ------------------------------===//
//
// Per block, the collectives of each group form one stream (the group's
// communication stream, in block order). Each stream is handed to
// BucketPlanner: all-reduces become items keyed by what fusion needs to
// agree on, any other collective is a fixed-cost item nothing fuses with.
// The chosen partition is written as `comm.bucket`; bucket numbers are
// unique in the operation the pass runs on, in walk order.
//
// Complexity: building the timeline is linear in the block's ops (plus
// their operands); `threshold` is linear in the collectives; `optimal` is
// O(n * A) (BucketPlanner.h), with A the candidate algorithms (<= 10).
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"

#include "hccl-mlir/Passes/Passes.h"

#include "llvm/ADT/MapVector.h"

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

  bool optimal = false;
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

  LogicalResult parseOptions() {
    Operation *root = getOperation();
    if (policy == "optimal")
      optimal = true;
    else if (policy != "threshold")
      return emitError(root->getLoc()) << kPass << ": option policy='" << policy
                               << "' is not valid: expected threshold or "
                                  "optimal";
    if (failed(parseBytes("threshold-bytes", thresholdBytes, false,
                          threshold)) ||
        failed(parseBytes("first-bucket-bytes", firstBucketBytes, true,
                          firstBucket)) ||
        failed(parseBytes("max-bucket-bytes", maxBucketBytes, true,
                          caps.maxBucketBytes)))
      return failure();
    if (maxCount < 0)
      return emitError(root->getLoc()) << kPass << ": option max-count=" << static_cast<int64_t>(maxCount)
                               << " is not valid: expected 0 (no limit) or "
                                  "a positive count";
    caps.maxCount = maxCount;
    computeOpts = {peakTflops, memoryGbps};
    if (failed(verifyComputeOptions(root, kPass, computeOpts)))
      return failure();
    if (!algo.empty()) {
      sched::Result<sched::HcclAlgoSpec> spec = sched::parseHcclAlgo(algo);
      if (!spec)
        return emitError(root->getLoc()) << kPass << ": option algo='" << algo
                                 << "' is not valid: " << spec.message();
      override = *spec;
    }
    return success();
  }

  /// The cost model, built on first use (only `optimal` needs it).
  FailureOr<CommCostModel *> getModel(Operation *at) {
    if (!model) {
      FailureOr<CommCostModel> m =
          CommCostModel::get(at, /*required=*/true,
                             "comm-bucket-sizing with policy=optimal");
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
    bool hasAllReduce = llvm::any_of(
        block, [](Operation &op) { return isa<AllReduceOp>(op); });
    if (!hasAllReduce)
      return success();
    ReadyTimeline tl = buildReadyTimeline(block, computeOpts);

    // One stream per group, in order of first appearance.
    llvm::MapVector<Attribute, SmallVector<int64_t>> streams;
    for (size_t i = 0; i < tl.items.size(); ++i)
      streams[cast<CollectiveOpInterface>(tl.items[i].op).getGroupAttr()]
          .push_back(static_cast<int64_t>(i));
    for (auto &[group, members] : streams)
      if (failed(sizeStream(tl, members)))
        return failure();
    return success();
  }

  LogicalResult sizeStream(const ReadyTimeline &tl, ArrayRef<int64_t> members) {
    bool anyAllReduce = llvm::any_of(members, [&](int64_t g) {
      return isa<AllReduceOp>(tl.items[g].op);
    });
    if (!anyAllReduce)
      return success();

    bucket::Problem prob;
    prob.caps = caps;
    // Fusion keys of this stream: (reduction, element type, pinned algo).
    SmallVector<std::tuple<Attribute, Type, Attribute>> keys;
    llvm::DenseMap<int64_t, int64_t> localOf;
    for (int64_t g : members) {
      const ReadyTimeline::Item &src = tl.items[g];
      bucket::Item item;
      item.ready = src.readySeconds;
      auto dep = localOf.find(src.dependsOn);
      item.dependsOn = dep == localOf.end() ? -1 : dep->second;
      localOf[g] = static_cast<int64_t>(prob.items.size());

      std::optional<double> bytes = hcclBytes(src.op);
      if (auto ar = dyn_cast<AllReduceOp>(src.op)) {
        if (!bytes)
          return ar.emitOpError()
                 << "has a dynamically shaped operand; " << kPass
                 << " needs static sizes";
        item.bytes = *bytes;
        std::tuple<Attribute, Type, Attribute> key{
            ar.getKindAttr(),
            cast<ShapedType>(ar.getInputs().front().getType())
                .getElementType(),
            ar.getAlgoAttr()};
        auto it = llvm::find(keys, key);
        item.key = static_cast<int>(it - keys.begin());
        if (it == keys.end()) {
          keys.push_back(key);
          if (optimal) {
            FailureOr<CommCostModel *> m = getModel(ar);
            if (failed(m))
              return failure();
            FailureOr<bucket::BucketPricer> pr =
                (*m)->allReducePricer(ar, ar.getAlgoAttr());
            if (failed(pr))
              return failure();
            prob.pricers.push_back(std::move(*pr));
          } else {
            prob.pricers.emplace_back();
          }
        }
      } else {
        item.key = -1;
        item.bytes = bytes.value_or(0);
        if (optimal) {
          FailureOr<CommCostModel *> m = getModel(src.op);
          if (failed(m))
            return failure();
          FailureOr<CollectivePrice> pr = (*m)->price(src.op);
          if (failed(pr))
            return failure();
          item.fixedSeconds = pr->seconds;
        }
      }
      prob.items.push_back(item);
    }

    bucket::Plan plan = optimal
                            ? bucket::planOptimal(prob)
                            : bucket::planThreshold(prob, threshold,
                                                    firstBucket);
    // Renumber the buckets that hold all-reduces densely, in order.
    llvm::DenseMap<int64_t, int64_t> ids;
    Builder b(&getContext());
    for (size_t i = 0; i < members.size(); ++i) {
      Operation *op = tl.items[members[i]].op;
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
    return success();
  }
};

} // namespace
