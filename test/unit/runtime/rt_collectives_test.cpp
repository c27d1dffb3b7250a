//===- rt_collectives_test.cpp - Every collective x algorithm x type ------===//
//
// The matrix of issue 5, run by p forked ranks per case and checked
// element-exact on every rank against rt_reference.h:
//
//   small counts {0, 1, 7, p*3+1}: full cross product of algorithm (every
//   generator of lib/schedule plus the C API's own choice) x data type (all
//   12) x operator (4 for reductions) x in/out-of-place, on shm with
//   p in {1,2,3,4,5,8}; buffers alternate between malloc (FIFO path) and
//   HcclMemAlloc (zero-copy path);
//
//   4 MiB (the collective's total data): every algorithm x {fp32 sum
//   (both placements, both buffer kinds), bf16 prod, int32 max} at
//   p in {2,5,8}.
//
// TCP runs the same small-count matrix on fewer types at p in {2,3,5} and
// 4 MiB fp32 sum at p in {2,3}.
//
//===----------------------------------------------------------------------===//
#include "rt_collective_runner.h"

#include <gtest/gtest.h>

using namespace rtest;
using hccl::sched::kNumDataTypes;

namespace {

std::vector<ReduceOp> opsFor(Collective c) {
  if (hccl::sched::isReduction(c))
    return {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min};
  return {ReduceOp::Sum};
}

std::vector<DataType> allTypes() {
  std::vector<DataType> v;
  for (int t = 0; t < kNumDataTypes; ++t)
    v.push_back(static_cast<DataType>(t));
  return v;
}

/// The root used for a rooted collective (varies with the count).
int rootFor(Collective c, int p, uint64_t count) {
  if (c != Collective::Broadcast && c != Collective::Reduce)
    return 0;
  return static_cast<int>((count * 3 + 1) % static_cast<uint64_t>(p));
}

struct MatrixCase {
  Collective coll;
  int p;
  bool tcp;
};

std::string caseName(const testing::TestParamInfo<MatrixCase> &i) {
  return std::string(hccl::sched::collectiveName(i.param.coll)) + "_p" +
         std::to_string(i.param.p) + (i.param.tcp ? "_tcp" : "_shm");
}

Body smallMatrix(Collective c, const std::vector<DataType> &types) {
  return [c, types](RankCtx &ctx) -> std::string {
    HcclComm comm;
    RT_OK(ctx.initComm(&comm));
    const int p = ctx.size;
    std::vector<uint64_t> counts = {0, 1, 7, static_cast<uint64_t>(p) * 3 + 1};
    int variant = 0;
    for (uint64_t count : counts)
      for (DataType t : types)
        for (ReduceOp op : opsFor(c)) {
          int root = rootFor(c, p, count);
          std::vector<bool> mask;
          Bytes expect =
              expectedOutput(c, p, ctx.rank, count, root, t, op, &mask);
          for (const AlgoChoice &a : algoChoices(c, p))
            for (bool inPlace : {false, true}) {
              if (inPlace && !supportsInPlace(c))
                continue;
              RunSpec s;
              s.coll = c;
              s.algo = a;
              s.dtype = t;
              s.op = op;
              s.count = count;
              s.root = root;
              s.inPlace = inPlace;
              s.sharedMem = (variant++ % 2) == 1;
              s.nullOutputOffRoot = s.sharedMem;
              std::string err = runOne(comm, ctx.rank, p, s, &expect, &mask);
              if (!err.empty())
                return err;
            }
        }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
}

Body largeMatrix(Collective c, bool fewTypes) {
  return [c, fewTypes](RankCtx &ctx) -> std::string {
    HcclComm comm;
    RT_OK(ctx.initComm(&comm));
    const int p = ctx.size;
    struct Combo {
      DataType t;
      ReduceOp op;
      bool bothPlacements;
    };
    std::vector<Combo> combos = {{DataType::Fp32, ReduceOp::Sum, true}};
    if (!fewTypes) {
      combos.push_back({DataType::Bf16, ReduceOp::Prod, false});
      combos.push_back({DataType::Int32, ReduceOp::Max, false});
    }
    for (const Combo &cb : combos) {
      size_t es = hccl::sched::dataTypeSize(cb.t);
      uint64_t total = (4u << 20) / es;
      bool perRank = c == Collective::ReduceScatter ||
                     c == Collective::AllGather || c == Collective::AllToAll ||
                     c == Collective::AllToAllV;
      uint64_t count = perRank ? total / static_cast<uint64_t>(p) : total;
      ReduceOp op = hccl::sched::isReduction(c) ? cb.op : ReduceOp::Sum;
      int root = rootFor(c, p, count);
      std::vector<bool> mask;
      Bytes expect =
          expectedOutput(c, p, ctx.rank, count, root, cb.t, op, &mask);
      for (const AlgoChoice &a : algoChoices(c, p))
        for (bool inPlace : {false, true})
          for (bool shared : {false, true}) {
            if (inPlace && !supportsInPlace(c))
              continue;
            if (!cb.bothPlacements && (inPlace || shared))
              continue;
            RunSpec s;
            s.coll = c;
            s.algo = a;
            s.dtype = cb.t;
            s.op = op;
            s.count = count;
            s.root = root;
            s.inPlace = inPlace;
            s.sharedMem = shared;
            std::string err = runOne(comm, ctx.rank, p, s, &expect, &mask);
            if (!err.empty())
              return err;
          }
    }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
}

const Collective kColls[] = {Collective::AllReduce, Collective::ReduceScatter,
                             Collective::AllGather, Collective::Broadcast,
                             Collective::Reduce,    Collective::AllToAll,
                             Collective::AllToAllV};

std::vector<MatrixCase> smallCases() {
  std::vector<MatrixCase> v;
  for (Collective c : kColls) {
    for (int p : {1, 2, 3, 4, 5, 8})
      v.push_back({c, p, false});
    for (int p : {2, 3, 5})
      v.push_back({c, p, true});
  }
  return v;
}

std::vector<MatrixCase> largeCases() {
  std::vector<MatrixCase> v;
  for (Collective c : kColls) {
    for (int p : {2, 5, 8})
      v.push_back({c, p, false});
    for (int p : {2, 3})
      v.push_back({c, p, true});
  }
  return v;
}

RunOptions optionsFor(const MatrixCase &m) {
  RunOptions o;
  o.timeoutSec = 300;
  // A bug shows as an error naming the stuck peer, not as a hang.
  o.env.push_back({"HCCL_EXEC_TIMEOUT", "60"});
  if (m.tcp)
    o.env.push_back({"HCCL_TRANSPORT", "tcp"});
  return o;
}

} // namespace

class SmallCounts : public testing::TestWithParam<MatrixCase> {};

TEST_P(SmallCounts, MatchesReference) {
  const MatrixCase &m = GetParam();
  std::vector<DataType> types = allTypes();
  if (m.tcp)
    types = {DataType::Int8, DataType::Fp32, DataType::Bf16, DataType::Uint64};
  EXPECT_EQ(runRanks(m.p, smallMatrix(m.coll, types), optionsFor(m)), "");
}

INSTANTIATE_TEST_SUITE_P(Collectives, SmallCounts,
                         testing::ValuesIn(smallCases()), caseName);

class FourMiB : public testing::TestWithParam<MatrixCase> {};

TEST_P(FourMiB, MatchesReference) {
  const MatrixCase &m = GetParam();
  EXPECT_EQ(runRanks(m.p, largeMatrix(m.coll, m.tcp), optionsFor(m)), "");
}

INSTANTIATE_TEST_SUITE_P(Collectives, FourMiB, testing::ValuesIn(largeCases()),
                         caseName);
