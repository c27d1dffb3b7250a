//===- OverlapPropertyTest.cpp - comm-overlap-schedule on random graphs ---===//
//
// On random graphs of thousands of ops, with and without fusion first and
// under random limits: the module verifies, no use of a collective's result
// comes before its wait, every start comes after its operands, collectives
// start in their original order, no op is lost or duplicated, the
// in-flight limits hold, and the result is a function of the input alone.
//
//===----------------------------------------------------------------------===//
#include "PassTestUtil.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "gtest/gtest.h"

#include <map>

using namespace mlir;
using namespace mlir::comm;
using namespace hccl::testing;

namespace {

struct Limits {
  int64_t maxInFlight;
  const char *maxBytes;
  double maxBytesValue;
  const char *memCap;
};

std::string pipelineFor(const Limits &l) {
  return std::string("comm-overlap-schedule{max-in-flight=") +
         std::to_string(l.maxInFlight) + " max-bytes-in-flight=" + l.maxBytes +
         " memory-cap=" + l.memCap + "}";
}

/// Ops other than communication, by name (collectives move into starts
/// and are counted by issueOrder).
std::map<std::string, int> opCounts(Block &block) {
  std::map<std::string, int> n;
  for (Operation &op : block)
    if (!isa<StartOp, WaitOp, CollectiveOpInterface>(op))
      ++n[op.getName().getStringRef().str()];
  return n;
}

/// The collectives of `block` in issue order (looking inside comm.start).
SmallVector<Operation *> issueOrder(Block &block) {
  SmallVector<Operation *> out;
  for (Operation &op : block) {
    if (auto s = dyn_cast<StartOp>(op))
      out.push_back(s.getCollective());
    else if (isa<CollectiveOpInterface>(op))
      out.push_back(&op);
  }
  return out;
}

void checkSchedule(Block &block, const Limits &l) {
  int64_t inFlight = 0;
  double bytes = 0;
  llvm::DenseMap<Operation *, double> payload;
  for (Operation &op : block) {
    if (auto start = dyn_cast<StartOp>(op)) {
      Operation *coll = start.getCollective();
      // Operands are defined before the start.
      for (Value v : coll->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (Operation *anc = block.findAncestorOpInBlock(*def)) {
            EXPECT_TRUE(anc->isBeforeInBlock(start)) << "start before operand";
          }
      auto pb = getPayloadBytes(cast<CollectiveOpInterface>(coll));
      payload[start] = pb ? static_cast<double>(*pb) : 0;
      ++inFlight;
      bytes += payload[start];
      if (l.maxInFlight > 0) {
        EXPECT_LE(inFlight, l.maxInFlight);
      }
      if (l.maxBytesValue > 0 && inFlight > 1) {
        EXPECT_LE(bytes, l.maxBytesValue);
      }
      continue;
    }
    if (auto wait = dyn_cast<WaitOp>(op)) {
      --inFlight;
      bytes -= payload.lookup(wait.getStart());
      // Every use of a result comes after the wait.
      for (Value r : wait.getResults())
        for (Operation *user : r.getUsers()) {
          Operation *anc = block.findAncestorOpInBlock(*user);
          ASSERT_TRUE(anc);
          EXPECT_TRUE(wait->isBeforeInBlock(anc)) << "use before its wait";
        }
    }
  }
  EXPECT_EQ(inFlight, 0);
}

class OverlapProperty
    : public ::testing::TestWithParam<std::tuple<uint64_t, int>> {};

TEST_P(OverlapProperty, UsesAfterWaitsOrderKeptLimitsHeld) {
  auto [seed, variant] = GetParam();
  const Limits limits[] = {{0, "0", 0, "0"},
                           {1, "0", 0, "0"},
                           {3, "4M", 4194304.0, "0"},
                           {0, "16M", 16777216.0, "256M"},
                           {2, "0", 0, "64M"}};
  const Limits &l = limits[variant];
  MLIRContext ctx;
  GraphSpec spec;
  spec.ops = 3000;
  spec.seed = seed;
  OwningOpRef<ModuleOp> m = makeRandomGraph(ctx, spec);
  std::string diags;
  if (seed % 2 == 0) { // half the graphs are fused first
    ASSERT_TRUE(succeeded(runPipeline(
        *m, "comm-bucket-sizing{policy=optimal}, comm-gradient-fusion",
        &diags)))
        << diags;
  }
  Block &body = getGraphFunc(*m).getBody().front();
  std::map<std::string, int> before = opCounts(body);
  SmallVector<Operation *> order = issueOrder(body);
  OwningOpRef<ModuleOp> twin = cloneModule(*m);

  ASSERT_TRUE(succeeded(runPipeline(*m, pipelineFor(l), &diags))) << diags;
  ASSERT_TRUE(succeeded(verify(*m)));
  EXPECT_EQ(opCounts(body), before);
  EXPECT_EQ(issueOrder(body), order) << "collectives reordered";
  int64_t starts = 0;
  for (Operation &op : body)
    if (isa<CollectiveOpInterface>(op))
      ADD_FAILURE() << "a collective was left synchronous";
    else if (isa<StartOp>(op))
      ++starts;
  EXPECT_EQ(starts, static_cast<int64_t>(order.size()));
  checkSchedule(body, l);

  // Deterministic: the same input gives the same output.
  ASSERT_TRUE(succeeded(runPipeline(*twin, pipelineFor(l), &diags)));
  EXPECT_EQ(print(*m), print(*twin));
}

INSTANTIATE_TEST_SUITE_P(SeedsAndLimits, OverlapProperty,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4),
                                            ::testing::Range(0, 5)));

TEST(OverlapProperty, HidesCommunicationBehindCompute) {
  // Without consumers every gradient's collective can overlap the rest of
  // the backward pass: every wait must sink below all compute.
  MLIRContext ctx;
  GraphSpec spec;
  spec.ops = 2000;
  spec.seed = 42;
  spec.consumers = false;
  spec.sideEffects = false;
  OwningOpRef<ModuleOp> m = makeRandomGraph(ctx, spec);
  ASSERT_TRUE(succeeded(runPipeline(*m, "comm-overlap-schedule")));
  Block &body = getGraphFunc(*m).getBody().front();
  bool seenWait = false;
  for (Operation &op : body) {
    if (isa<WaitOp>(op))
      seenWait = true;
    else if (seenWait && !isa<func::ReturnOp>(op))
      ADD_FAILURE() << "an op after the first wait: "
                    << op.getName().getStringRef().str();
  }
  EXPECT_TRUE(seenWait);
}

} // namespace
