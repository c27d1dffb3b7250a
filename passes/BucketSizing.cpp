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
// With `slack-margin`, `optimal` plans with slack where it costs no
// predicted time (BucketPlanner.h, planOptimalWithSlack).
//
// Under the overlap limits (`max-in-flight`, `max-bytes-in-flight`,
// `memory-cap`) `optimal` does not trust its own model alone: the planner
// sees one stream at a time, so it cannot see the in-flight count that all
// groups share, the waits a barrier forces, compute that consumes reduced
// values moving up once a limit makes its wait come early, or the memory
// cap. Each candidate (the planner's plans under the limits and without
// them, DDP's default buckets and a threshold every power of two from 1M
// to 1G) is applied to a clone of the module, nested in it for the time,
// which comm-gradient-fusion and comm-overlap-schedule then schedule under
// the same limits; the candidate whose timeline (comm-estimate's) is the
// shortest wins, the first on ties. That is 14 runs of those two passes,
// each on a clone that is sized again from scratch (the cost model's
// caches carry over: they key groups by their ranks, not by the op).
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"
#include "Timeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
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
  bucket::Limits limits; ///< the counts; the boundaries are per block
  double memoryCapBytes = 0;
  ComputeCostOptions computeOpts;
  std::optional<sched::HcclAlgoSpec> override;
  std::optional<sched::AlgoTable> algoTable;
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
    std::string slackText = llvm::formatv("{0}", slackMargin.getValue());
    if (!(slackMargin >= 0 && slackMargin <= 10))
      return emitError(root->getLoc())
             << kPass << ": option slack-margin=" << slackText
             << " is not valid: expected a fraction from 0 (off) to 10";
    // The default (1) and 0 (off) both leave the other policies unchanged;
    // a pass option cannot tell a given value from its default, so those
    // two pass and any other value is refused.
    if (kind != Policy::Optimal && slackMargin != 0 &&
        slackMargin != defaults.slackMargin)
      return emitError(root->getLoc())
             << kPass << ": option slack-margin=" << slackText
             << " has no effect with policy=" << policy
             << " (only the cost model of policy=optimal keeps slack)";
    if (kind != Policy::Optimal && table.getValue() != defaults.table)
      return emitError(root->getLoc())
             << kPass << ": option table='" << table
             << "' has no effect with policy=" << policy
             << " (only the cost model of policy=optimal reads it)";
    FailureOr<std::optional<sched::AlgoTable>> loaded =
        loadAlgoTable(table, root, kPass);
    if (failed(loaded))
      return failure();
    algoTable = std::move(*loaded);
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
    if (maxInFlight < 0)
      return emitError(root->getLoc())
             << kPass
             << ": option max-in-flight=" << static_cast<int64_t>(maxInFlight)
             << " is not valid: expected 0 (no limit) or a positive count";
    // A limit other than the default 0 (no limit) under another policy.
    // (hasValue() cannot tell: a pipeline sets every option.)
    if (kind != Policy::Optimal)
      for (auto [name, given] :
           {std::pair{"max-in-flight", maxInFlight != defaults.maxInFlight},
            std::pair{"max-bytes-in-flight",
                      maxBytesInFlight.getValue() != defaults.maxBytesInFlight},
            std::pair{"memory-cap",
                      memoryCap.getValue() != defaults.memoryCap}})
        if (given)
          return emitError(root->getLoc())
                 << kPass << ": option " << name
                 << " has no effect with policy=" << policy
                 << " (only policy=optimal sizes under the overlap limits)";
    limits.maxInFlight = maxInFlight;
    if (failed(parseBytes("max-bytes-in-flight", maxBytesInFlight, true,
                          limits.maxBytesInFlight)) ||
        failed(parseBytes("memory-cap", memoryCap, true, memoryCapBytes)))
      return failure();
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
      if (failed(model->setTable(algoTable, table, at, kPass)))
        return failure();
    }
    return &*model;
  }

  /// How a candidate plans one stream.
  using Planner = std::function<bucket::Plan(const bucket::Problem &)>;

  /// The candidates of policy=optimal under the overlap limits, the
  /// planner's own first (BucketSizing.cpp's header).
  std::vector<Planner> candidates() const {
    std::vector<Planner> out;
    double m = slackMargin;
    out.push_back([m](const bucket::Problem &p) {
      return bucket::planOptimalWithSlack(p, m);
    });
    out.push_back([m](const bucket::Problem &p) {
      bucket::Problem blind = p;
      blind.limits = {};
      return bucket::planOptimalWithSlack(blind, m);
    });
    out.push_back([](const bucket::Problem &p) {
      return bucket::planDdp(p, 25.0 * (1 << 20), 1 << 20);
    });
    for (double t = 1 << 20; t <= double(1 << 30); t *= 2)
      out.push_back([t](const bucket::Problem &p) {
        return bucket::planThreshold(p, t, 0);
      });
    return out;
  }

  bool underLimits() const {
    return kind == Policy::Optimal && (limits.any() || memoryCapBytes > 0);
  }

  void runOnOperation() override {
    if (failed(parseOptions()))
      return signalPassFailure();
    model.reset();
    Operation *root = getOperation();
    Planner chosen;
    if (underLimits() && isa<ModuleOp>(root)) {
      FailureOr<Planner> best = chooseOnSchedule(cast<ModuleOp>(root));
      if (failed(best))
        return signalPassFailure();
      chosen = *best;
    }
    nextBucket = 0;
    if (failed(sizeAll(root, chosen, /*record=*/true)))
      signalPassFailure();
  }

  /// Sizes every block under `root` with `planner` (null: the policy's).
  LogicalResult sizeAll(Operation *root, const Planner &planner, bool record) {
    bool failedAny = false;
    root->walk<WalkOrder::PreOrder>([&](Block *block) {
      if (!failedAny && failed(sizeBlock(*block, planner, record)))
        failedAny = true;
    });
    return failure(failedAny);
  }

  /// The candidate whose plan comm-overlap-schedule turns into the
  /// shortest predicted iteration under the limits.
  FailureOr<Planner> chooseOnSchedule(ModuleOp root) {
    std::vector<Planner> cands = candidates();
    OverlapScheduleOptions o;
    o.maxInFlight = maxInFlight;
    o.maxBytesInFlight = maxBytesInFlight;
    o.memoryCap = memoryCap;
    o.peakTflops = peakTflops;
    o.memoryGbps = memoryGbps;
    double bestUs = std::numeric_limits<double>::infinity();
    size_t best = 0;
    for (size_t c = 0; c < cands.size(); ++c) {
      FailureOr<double> us = predictOnClone(root, cands[c], o);
      if (failed(us))
        return failure();
      ++numCandidates;
      if (*us < bestUs * (1 - 1e-12)) {
        bestUs = *us;
        best = c;
      }
    }
    return cands[best];
  }

  /// Sizes a clone of `root` with `planner`, fuses and schedules it under
  /// the limits and returns the sum of its functions' iterations. The clone
  /// is nested in `root` while it lives, as dynamic pipelines require.
  FailureOr<double> predictOnClone(ModuleOp root, const Planner &planner,
                                   const OverlapScheduleOptions &o) {
    OpBuilder b(root.getContext());
    b.setInsertionPointToEnd(root.getBody());
    auto clone = cast<ModuleOp>(b.clone(*root.getOperation()));
    auto erase = llvm::make_scope_exit([&] { clone.erase(); });
    if (failed(sizeAll(clone, planner, /*record=*/false)))
      return failure();
    // The clone's warnings (a memory cap not met) are the real run's to
    // give, once; its errors still go out.
    ScopedDiagnosticHandler quiet(root.getContext(), [](Diagnostic &d) {
      return success(d.getSeverity() != DiagnosticSeverity::Error);
    });
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createGradientFusion());
    pm.addPass(createOverlapSchedule(o));
    if (failed(runPipeline(pm, clone)))
      return failure();
    FailureOr<CommCostModel *> m = getModel(root);
    if (failed(m))
      return failure();
    double total = 0;
    for (auto fn : clone.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      FailureOr<IterationTimeline> tl =
          simulateRegion(fn.getBody(), **m, computeOpts);
      if (failed(tl))
        return failure();
      total += tl->iterationUs;
    }
    return total;
  }

  LogicalResult sizeBlock(Block &block, const Planner &planner, bool record) {
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
    for (BucketStream &s : *streams) {
      s.problem.limits.maxInFlight = limits.maxInFlight;
      s.problem.limits.maxBytesInFlight = limits.maxBytesInFlight;
    }
    for (BucketStream &s : *streams) {
      bucket::Plan plan =
          planner   ? planner(s.problem)
          : optimal ? bucket::planOptimalWithSlack(s.problem, slackMargin)
          : kind == Policy::Ddp
              ? bucket::planDdp(s.problem, threshold, firstBucket)
              : bucket::planThreshold(s.problem, threshold, firstBucket);
      if (record && plan.margin > 0)
        ++numSlackStreams;
      assign(s, plan, record);
    }
    return success();
  }

  /// Writes the plan; buckets holding all-reduces are numbered densely, in
  /// order, after those of earlier streams.
  void assign(const BucketStream &s, const bucket::Plan &plan, bool record) {
    llvm::DenseMap<int64_t, int64_t> ids;
    Builder b(&getContext());
    for (auto [i, op] : llvm::enumerate(s.ops)) {
      if (!isa<AllReduceOp>(op))
        continue;
      auto [it, inserted] = ids.try_emplace(plan.bucketOf[i], nextBucket);
      if (inserted) {
        ++nextBucket;
        if (record)
          ++numBuckets;
      }
      op->setAttr(CommDialect::getBucketAttrName(),
                  b.getI64IntegerAttr(it->second));
      if (record)
        ++numBucketed;
    }
  }
};

} // namespace
