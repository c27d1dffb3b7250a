//===- SizingPropertyTest.cpp - comm-bucket-sizing on random graphs -------===//
//
// The buckets the pass writes are read back and priced with the model the
// pass optimises (the streams buildBucketStreams makes of the original
// block): `optimal` is never predicted slower than `threshold` (several
// thresholds, a 1 MiB first bucket + 25 MiB) or than no fusion, its plan is
// valid, and on small graphs it equals brute-force enumeration of every
// partition. `ddp` writes exactly the planner's planDdp (these graphs mix
// f32 and bf16, so its buckets interleave and are outside the partitions
// into runs that optimal searches; BucketPlannerTest compares the two on
// single-type streams).
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"
#include "PassTestUtil.h"
#include "Timeline.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::comm;
using namespace hccl::testing;
namespace bucket = hccl::bucket;

namespace {

/// The planner streams of the graph's body, priced on its topology.
SmallVector<BucketStream> streamsOf(ModuleOp m, CommCostModel &model,
                                    bucket::Caps caps = {}) {
  Block &body = getGraphFunc(m).getBody().front();
  auto get = [&](Operation *) -> FailureOr<CommCostModel *> { return &model; };
  FailureOr<SmallVector<BucketStream>> s =
      buildBucketStreams(body, ComputeCostOptions{}, caps, get);
  EXPECT_TRUE(succeeded(s));
  return succeeded(s) ? std::move(*s) : SmallVector<BucketStream>();
}

/// The partition a sized clone wrote for `stream` (ops matched by `tid`):
/// a new bucket at every item that cannot fuse or whose id changes.
std::vector<int64_t> planOf(ModuleOp sized, const BucketStream &stream) {
  llvm::DenseMap<int64_t, int64_t> idOfTid;
  sized.walk([&](Operation *op) {
    if (auto tid = op->getAttrOfType<IntegerAttr>("tid"))
      if (auto b =
              op->getAttrOfType<IntegerAttr>(CommDialect::getBucketAttrName()))
        idOfTid[tid.getInt()] = b.getInt();
  });
  std::vector<int64_t> out;
  int64_t cur = -1, prevId = -2;
  for (Operation *op : stream.ops) {
    int64_t tid = op->getAttrOfType<IntegerAttr>("tid").getInt();
    auto it = idOfTid.find(tid);
    int64_t id = it == idOfTid.end() ? -3 : it->second;
    if (id < 0 || id != prevId)
      ++cur;
    prevId = id < 0 ? -2 : id;
    out.push_back(cur);
  }
  return out;
}

/// The bucket ids a sized clone wrote for `stream`'s ops, renumbered in
/// order of first appearance (-1: no bucket), and the same for `plan`.
std::vector<int64_t> grouping(const std::vector<int64_t> &ids) {
  llvm::DenseMap<int64_t, int64_t> dense;
  std::vector<int64_t> out;
  for (int64_t id : ids)
    out.push_back(
        id < 0 ? -1
               : dense.try_emplace(id, static_cast<int64_t>(dense.size()))
                     .first->second);
  return out;
}

std::vector<int64_t> writtenIds(ModuleOp sized, const BucketStream &stream) {
  llvm::DenseMap<int64_t, int64_t> idOfTid;
  sized.walk([&](Operation *op) {
    if (auto tid = op->getAttrOfType<IntegerAttr>("tid"))
      if (auto b =
              op->getAttrOfType<IntegerAttr>(CommDialect::getBucketAttrName()))
        idOfTid[tid.getInt()] = b.getInt();
  });
  std::vector<int64_t> ids;
  for (Operation *op : stream.ops) {
    auto it = idOfTid.find(op->getAttrOfType<IntegerAttr>("tid").getInt());
    ids.push_back(it == idOfTid.end() ? -1 : it->second);
  }
  return grouping(ids);
}

double sizedFinish(ModuleOp m, const BucketStream &s, StringRef options,
                   std::vector<int64_t> *plan = nullptr) {
  OwningOpRef<ModuleOp> c = cloneModule(m);
  std::string diags;
  EXPECT_TRUE(succeeded(
      runPipeline(*c, ("comm-bucket-sizing{" + options + "}").str(), &diags)))
      << diags;
  std::vector<int64_t> p = planOf(*c, s);
  EXPECT_TRUE(bucket::isValidPlan(s.problem, p)) << options.str();
  if (plan)
    *plan = p;
  return bucket::evaluatePlan(s.problem, p);
}

class SizingProperty : public ::testing::TestWithParam<uint64_t> {};

TEST_P(SizingProperty, OptimalNeverPredictedSlower) {
  MLIRContext ctx;
  GraphSpec spec;
  spec.ops = 3000;
  spec.seed = GetParam();
  spec.consumers = GetParam() % 2;
  OwningOpRef<ModuleOp> m = makeRandomGraph(ctx, spec);
  CommCostModel model(getTopology(*m).toSchedule());
  SmallVector<BucketStream> streams = streamsOf(*m, model);
  ASSERT_FALSE(streams.empty());
  int strictlyBetter = 0;
  for (const BucketStream &s : streams) {
    double opt = sizedFinish(*m, s, "policy=optimal");
    // The pass wrote the planner's optimum.
    EXPECT_NEAR(opt, bucket::planOptimal(s.problem).finishSeconds, 1e-9 * opt);
    double slack = 1e-9 * opt;
    EXPECT_LE(opt, bucket::planSingletons(s.problem).finishSeconds + slack);
    double bestOther = bucket::planSingletons(s.problem).finishSeconds;
    for (const char *t :
         {"threshold-bytes=1M", "threshold-bytes=25M", "threshold-bytes=64M",
          "threshold-bytes=1G", "threshold-bytes=25M first-bucket-bytes=1M"}) {
      double thr = sizedFinish(*m, s, t);
      EXPECT_LE(opt, thr + slack) << t;
      bestOther = std::min(bestOther, thr);
    }
    // ddp writes planDdp's buckets (other collectives carry none).
    OwningOpRef<ModuleOp> c = cloneModule(*m);
    std::string diags;
    ASSERT_TRUE(
        succeeded(runPipeline(*c, "comm-bucket-sizing{policy=ddp}", &diags)))
        << diags;
    bucket::Plan ddp = bucket::planDdp(s.problem, 25.0 * 1048576, 1048576);
    std::vector<int64_t> want = ddp.bucketOf;
    for (size_t i = 0; i < want.size(); ++i)
      if (s.problem.items[i].key < 0)
        want[i] = -1;
    EXPECT_EQ(writtenIds(*c, s), grouping(want));
    if (opt < bestOther * (1 - 1e-6))
      ++strictlyBetter;
  }
  // Not vacuous: with dependences in the graph no fixed threshold finds
  // the optimum of some stream. (Without them these graphs are
  // communication-bound and one large bucket, which 1G also gives, wins.)
  if (spec.consumers) {
    EXPECT_GE(strictlyBetter, 1) << "of " << streams.size() << " streams";
  }
}

TEST_P(SizingProperty, CapsHold) {
  MLIRContext ctx;
  GraphSpec spec;
  spec.ops = 2000;
  spec.seed = GetParam() + 50;
  OwningOpRef<ModuleOp> m = makeRandomGraph(ctx, spec);
  CommCostModel model(getTopology(*m).toSchedule());
  bucket::Caps caps{8.0 * 1048576, 3};
  for (const BucketStream &s : streamsOf(*m, model, caps))
    for (const char *policy :
         {"policy=optimal", "policy=threshold", "policy=ddp"}) {
      std::vector<int64_t> plan;
      std::string opts =
          std::string(policy) + " max-count=3 max-bucket-bytes=8M";
      sizedFinish(*m, s, opts, &plan); // validity is checked with the caps
      EXPECT_NEAR(sizedFinish(*m, s,
                              "policy=optimal max-count=3 "
                              "max-bucket-bytes=8M"),
                  bucket::planOptimal(s.problem).finishSeconds, 1e-12);
    }
}

/// The iteration the pipeline predicts (comm-estimate's timeline) after
/// sizing with `sizing`, fusion and overlap scheduling under `limits`.
double pipelineIteration(ModuleOp m, StringRef sizing, StringRef limits) {
  OwningOpRef<ModuleOp> c = cloneModule(m);
  std::string diags;
  std::string pipe =
      ("comm-bucket-sizing{" + sizing +
       "},comm-gradient-fusion,comm-overlap-schedule{" + limits + "}")
          .str();
  EXPECT_TRUE(succeeded(runPipeline(*c, pipe, &diags))) << pipe << diags;
  CommCostModel model(getTopology(*c).toSchedule());
  FailureOr<IterationTimeline> tl =
      simulateRegion(getGraphFunc(*c).getBody(), model, ComputeCostOptions{});
  EXPECT_TRUE(succeeded(tl)) << pipe;
  return succeeded(tl) ? tl->iterationUs : 0.0;
}

// The property of issue 15 item 2, on what the pipeline predicts rather
// than on the planner's own model: sized under the limits comm-overlap-
// schedule enforces, `optimal` is never predicted slower than a threshold
// policy or DDP's buckets under the same limits. The planner's model of the
// limits (BucketPlanner.h, Limits) and the list scheduler are separate
// code, so this fails where the model misses what the scheduler does.
/// The random graph `p` (1..6) of the properties under overlap limits.
OwningOpRef<ModuleOp> limitsGraph(MLIRContext &ctx, int p) {
  GraphSpec spec;
  spec.ops = 1200;
  spec.seed = p + 100;
  spec.consumers = p % 2;
  spec.sideEffects = p % 3 != 0;
  return makeRandomGraph(ctx, spec);
}

TEST_P(SizingProperty, OptimalUnderOverlapLimitsNeverPredictedSlower) {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> m = limitsGraph(ctx, GetParam());
  const int64_t seed = GetParam() + 100;
  for (const char *limits :
       {"max-in-flight=1", "max-in-flight=2", "max-bytes-in-flight=4M",
        "max-in-flight=3 max-bytes-in-flight=16M", "memory-cap=24M"}) {
    double opt = pipelineIteration(
        *m, (std::string("policy=optimal ") + limits), limits);
    ASSERT_GT(opt, 0);
    // The candidates the pass schedules itself: never slower, unless its
    // own prediction on the clone differs from the pipeline's.
    for (const char *other :
         {"policy=threshold threshold-bytes=1M",
          "policy=threshold threshold-bytes=64M",
          "policy=threshold threshold-bytes=1G", "policy=ddp"})
      EXPECT_LE(opt, pipelineIteration(*m, other, limits) * (1 + 1e-9))
          << limits << " against " << other << " (seed " << seed << ")";
    // Thresholds off its grid: within kOffGrid (measured worst: 0.05%,
    // memory-cap=24M against ddp threshold-bytes=50M, seed 104), since the
    // memory cap and the effects the planner does not model are only
    // priced on the candidates (BucketSizing.cpp).
    constexpr double kOffGrid = 0.005;
    for (const char *other : {"policy=threshold threshold-bytes=3M",
                              "policy=threshold threshold-bytes=10M",
                              "policy=threshold threshold-bytes=25M",
                              "policy=threshold threshold-bytes=40M",
                              "policy=threshold threshold-bytes=300M",
                              "policy=ddp threshold-bytes=50M"})
      EXPECT_LE(opt, pipelineIteration(*m, other, limits) * (1 + kOffGrid))
          << limits << " against " << other << " (seed " << seed << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SizingProperty,
                         ::testing::Values(1, 2, 3, 4, 5, 6));

TEST(SizingProperty, SmallGraphsEqualBruteForce) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    MLIRContext ctx;
    GraphSpec spec;
    spec.ops = 26;
    spec.seed = seed;
    spec.commShare = 0.5;
    spec.consumers = seed % 3 != 0;
    OwningOpRef<ModuleOp> m = makeRandomGraph(ctx, spec);
    CommCostModel model(getTopology(*m).toSchedule());
    for (const BucketStream &s : streamsOf(*m, model)) {
      size_t n = s.problem.items.size();
      if (n > 14)
        continue;
      double opt = sizedFinish(*m, s, "policy=optimal");
      double best = std::numeric_limits<double>::infinity();
      std::vector<int64_t> p(n);
      for (uint64_t cuts = 0; cuts < (uint64_t(1) << (n - 1)); ++cuts) {
        for (size_t i = 0, b = 0; i < n; ++i) {
          if (i > 0 && (cuts >> (i - 1) & 1))
            ++b;
          p[i] = static_cast<int64_t>(b);
        }
        if (bucket::isValidPlan(s.problem, p))
          best = std::min(best, bucket::evaluatePlan(s.problem, p));
      }
      EXPECT_NEAR(opt, best, 1e-9 * best) << "seed " << seed;
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

// Sizing under limits prices candidates on clones it erases. Its cost
// model cached prices and placements by the group op's address, and a
// later clone's group could take a freed one's address and its price: the
// chosen buckets then changed from run to run within one process (one run
// in 60 of seed 103 under max-in-flight=2, as the heap happened to lay
// out). CostModelCache.AGroupAtAFreedGroupsPlaceGetsItsOwnPrice pins that
// cause; this checks the property itself on the random graphs.
TEST(SizingDeterminism, SameBucketsEveryRunInOneProcess) {
  for (int p = 1; p <= 6; ++p) {
    MLIRContext ctx;
    OwningOpRef<ModuleOp> m = limitsGraph(ctx, p);
    for (const char *limits : {"max-in-flight=2", "memory-cap=24M"}) {
      std::string pipe =
          std::string("comm-bucket-sizing{policy=optimal ") + limits + "}";
      std::string first;
      for (int run = 0; run < 8; ++run) {
        OwningOpRef<ModuleOp> c = cloneModule(*m);
        std::string diags;
        ASSERT_TRUE(succeeded(runPipeline(*c, pipe, &diags))) << diags;
        std::string out = print(c->getOperation());
        if (run == 0)
          first = out;
        else
          ASSERT_EQ(out, first)
              << pipe << " (seed " << p + 100 << ") changed at run " << run;
      }
    }
  }
}

} // namespace
