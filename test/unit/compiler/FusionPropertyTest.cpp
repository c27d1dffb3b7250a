//===- FusionPropertyTest.cpp - comm-gradient-fusion on random graphs -----===//
//
// On random graphs of thousands of ops with adversarial bucket assignments
// (members that depend on each other, side-effecting users in between,
// mixed keys): the module still verifies (so SSA dominance holds and no
// cycle was made), the multiset of reduced tensors is unchanged, and every
// fused op only joins members of one key.
//
//===----------------------------------------------------------------------===//
#include "PassTestUtil.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "gtest/gtest.h"

#include "llvm/ADT/DenseMap.h"

#include <random>

using namespace mlir;
using namespace mlir::comm;
using namespace hccl::testing;

namespace {

/// Names values independently of how all-reduces are grouped: a value
/// made by an op that is not an all-reduce is that op's result (by its
/// `tid`); a result of
/// an all-reduce is "the reduction (group, kind) of the name of the input
/// in the same slot" (fusion keeps slots in order).
class ValueNames {
public:
  int64_t of(Value v) {
    auto it = cache.find(v);
    if (it != cache.end())
      return it->second;
    std::tuple<int64_t, int64_t, int64_t, std::string> key;
    if (auto ar = v.getDefiningOp<AllReduceOp>()) {
      unsigned slot = cast<OpResult>(v).getResultNumber();
      key = {1, of(ar.getInputs()[slot]), static_cast<int64_t>(ar.getKind()),
             ar.getGroup().str()};
    } else if (Operation *def = v.getDefiningOp()) {
      auto tid = def->getAttrOfType<IntegerAttr>("tid");
      key = {2, tid ? tid.getInt() : reinterpret_cast<intptr_t>(def),
             cast<OpResult>(v).getResultNumber(), ""};
    } else {
      key = {3, cast<BlockArgument>(v).getArgNumber(), 0, ""};
    }
    auto [slot, inserted] = interned.try_emplace(key, interned.size());
    cache[v] = slot->second;
    return slot->second;
  }

  /// Forget values (they may be erased) but keep the names.
  void resetValues() { cache.clear(); }

private:
  llvm::DenseMap<Value, int64_t> cache;
  std::map<std::tuple<int64_t, int64_t, int64_t, std::string>, int64_t>
      interned;
};

/// The reduced tensors: (name, group, reduction) -> how often reduced.
using ReducedSet = std::map<std::tuple<int64_t, std::string, int>, int>;

ReducedSet reducedTensors(ModuleOp m, ValueNames &names) {
  ReducedSet out;
  m.walk([&](AllReduceOp ar) {
    for (Value v : ar.getInputs())
      ++out[{names.of(v), ar.getGroup().str(), static_cast<int>(ar.getKind())}];
  });
  return out;
}

/// Assigns buckets in runs of 1..8 consecutive all-reduces, sometimes
/// reopening an earlier bucket, regardless of keys and dependences.
void assignBuckets(ModuleOp m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  int64_t bucket = 0, left = 0;
  Builder b(m.getContext());
  m.walk([&](AllReduceOp ar) {
    if (left == 0) {
      ++bucket;
      left = std::uniform_int_distribution<int64_t>(1, 8)(rng);
    }
    --left;
    int64_t id = bucket;
    if (std::uniform_real_distribution<double>(0, 1)(rng) < 0.05)
      id = std::uniform_int_distribution<int64_t>(0, bucket)(rng);
    ar->setAttr(CommDialect::getBucketAttrName(), b.getI64IntegerAttr(id));
  });
}

int64_t countAllReduces(ModuleOp m) {
  int64_t n = 0;
  m.walk([&](AllReduceOp) { ++n; });
  return n;
}

class FusionProperty : public ::testing::TestWithParam<uint64_t> {};

TEST_P(FusionProperty, NoCycleSameReducedTensors) {
  MLIRContext ctx;
  GraphSpec spec;
  spec.ops = 3000;
  spec.seed = GetParam();
  OwningOpRef<ModuleOp> m = makeRandomGraph(ctx, spec);
  ASSERT_TRUE(succeeded(verify(*m)));
  assignBuckets(*m, GetParam() * 7919);
  // Names are kept across the pass (interned; fused results map back).
  ValueNames names;
  ReducedSet before = reducedTensors(*m, names);
  int64_t opsBefore = countAllReduces(*m);

  std::string diags;
  ASSERT_TRUE(succeeded(runPipeline(*m, "comm-gradient-fusion", &diags)))
      << diags;
  ASSERT_TRUE(succeeded(verify(*m))) << "fusion broke dominance / made a cycle";
  names.resetValues();
  EXPECT_EQ(reducedTensors(*m, names), before);
  int64_t opsAfter = countAllReduces(*m);
  EXPECT_LT(opsAfter, opsBefore) << "nothing was fused";

  // A fused op joins one key only.
  m->walk([&](AllReduceOp ar) {
    Type et = cast<RankedTensorType>(ar.getInputs().front().getType())
                  .getElementType();
    for (Value v : ar.getInputs())
      EXPECT_EQ(cast<RankedTensorType>(v.getType()).getElementType(), et);
  });
}

TEST_P(FusionProperty, AfterSizingEveryBucketFusesCompletely) {
  // Sizing never puts a dependent member in a bucket, so fusion never has
  // to split: one all_reduce per bucket id afterwards.
  MLIRContext ctx;
  GraphSpec spec;
  spec.ops = 3000;
  spec.seed = GetParam() + 100;
  OwningOpRef<ModuleOp> m = makeRandomGraph(ctx, spec);
  ValueNames names;
  ReducedSet before = reducedTensors(*m, names);
  // threshold-bytes only where the policy reads it (optimal refuses it).
  for (const char *sizing :
       {"policy=threshold threshold-bytes=16M", "policy=optimal"}) {
    OwningOpRef<ModuleOp> c = cloneModule(*m);
    std::string pipeline =
        std::string("comm-bucket-sizing{") + sizing + "}, comm-gradient-fusion";
    std::string diags;
    ASSERT_TRUE(succeeded(runPipeline(*c, pipeline, &diags))) << diags;
    ASSERT_TRUE(succeeded(verify(*c)));
    llvm::DenseMap<int64_t, int> perBucket;
    c->walk([&](AllReduceOp ar) {
      auto b = ar->getAttrOfType<IntegerAttr>(CommDialect::getBucketAttrName());
      ASSERT_TRUE(b);
      ++perBucket[b.getInt()];
    });
    for (auto &[id, n] : perBucket)
      EXPECT_EQ(n, 1) << sizing << ": bucket " << id << " was split";
    // Same tensors reduced (names are structural: op tids, block args and
    // reductions of named values, so they carry over to the clone).
    names.resetValues();
    EXPECT_EQ(reducedTensors(*c, names), before) << sizing;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, FusionProperty,
                         ::testing::Values(1, 2, 3, 4, 5, 6));

} // namespace
