//===- PermuteTest.cpp - Collective permute programs ----------------------===//
//
// StableHLO's collective_permute as a step program: every rank sends its
// input to its target and receives its source's; a rank without source
// keeps its output untouched (the runtime zeroes it). The verifier proves
// the generated programs and refuses tables and programs that break it.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Verify.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

using namespace hccl::sched;

namespace {

Result<Program> permute(std::vector<int64_t> targets, int64_t n = 6) {
  GenerateRequest req;
  req.collective = Collective::Permute;
  req.algorithm = Algorithm::Pairwise;
  req.ranks = static_cast<int64_t>(targets.size());
  req.count = n;
  req.permuteTargets = std::move(targets);
  return generate(req);
}

TEST(Permute, GeneratedProgramsAreProven) {
  std::mt19937 rng(7);
  int proven = 0;
  for (int64_t p : {1, 2, 3, 4, 5, 8, 13}) {
    for (int trial = 0; trial < 6; ++trial) {
      // A random partial permutation: some ranks send nowhere, some keep
      // their data (self pairs), some receive nothing.
      std::vector<int64_t> perm(static_cast<size_t>(p));
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<int64_t> targets(static_cast<size_t>(p), -1);
      for (int64_t r = 0; r < p; ++r)
        if (trial == 0 || rng() % 4 != 0)
          targets[static_cast<size_t>(r)] = perm[static_cast<size_t>(r)];
      for (int64_t n : {0, 1, 7}) {
        auto prog = permute(targets, n);
        ASSERT_TRUE(prog.isOk()) << prog.message();
        Status s = prove(*prog);
        EXPECT_TRUE(s.isOk()) << "p=" << p << " n=" << n << ": " << s.message();
        ++proven;
      }
    }
  }
  EXPECT_EQ(proven, 7 * 6 * 3);
  // The pipeline-parallel shift and its one-way form.
  EXPECT_TRUE(prove(*permute({1, 2, 3, 0})).isOk());
  EXPECT_TRUE(prove(*permute({1, 2, 3, -1})).isOk());
}

TEST(Permute, BadTargetsAreErrors) {
  auto twice = permute({1, 1, -1});
  ASSERT_FALSE(twice.isOk());
  EXPECT_NE(twice.message().find("rank 1 is the target of two ranks"),
            std::string::npos)
      << twice.message();
  auto outside = permute({3, 0, 1});
  ASSERT_FALSE(outside.isOk());
  EXPECT_NE(outside.message().find("target 3 is outside -1..2"),
            std::string::npos)
      << outside.message();
  GenerateRequest few;
  few.collective = Collective::Permute;
  few.algorithm = Algorithm::Pairwise;
  few.ranks = 4;
  few.count = 2;
  few.permuteTargets = {1, 0};
  EXPECT_FALSE(generate(few).isOk());
  few.algorithm = Algorithm::Ring;
  few.permuteTargets = {1, 0, 3, 2};
  EXPECT_FALSE(generate(few).isOk());
}

// Tables come from plan files: inconsistent ones are refused, and so is a
// program that writes the output of a rank without source.
TEST(Permute, TheVerifierHoldsTablesAndZerosToTheContract) {
  // 0 -> 1 -> 2, 3 -> 0: rank 2 sends nothing, rank 3 receives nothing.
  auto prog = permute({1, 2, -1, 0});
  ASSERT_TRUE(prog.isOk());
  ASSERT_TRUE(prove(*prog).isOk());

  Program lying = *prog;
  lying.tables[1][1] = 2; // says 1's source is 2, whose target is 2's -1
  Status s = prove(lying);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("does not name it back"), std::string::npos)
      << s.message();

  Program shortTables = *prog;
  shortTables.tables.resize(1);
  EXPECT_FALSE(prove(shortTables).isOk());

  // Rank 3 has no source; a program that copies its input into its output
  // anyway (the copy's `when` edited to r == 3) breaks the zeros the
  // runtime gives it.
  Program writes = *prog;
  Op &copy = writes.phases[0].ops[0];
  ASSERT_EQ(copy.kind, OpKind::Copy);
  copy.when = writes.pool.binary(ExprOp::Eq, writes.pool.var(ExprVar::R),
                                 writes.pool.constant(3));
  Status w = prove(writes);
  ASSERT_FALSE(w.isOk());
  EXPECT_NE(w.message().find("rank 3 has no permute source"), std::string::npos)
      << w.message();
}

TEST(Permute, PricedAsOneExchange) {
  Topology t = *Topology::preset("host-4");
  ClosedFormRequest req;
  req.collective = Collective::Permute;
  req.algorithm = Algorithm::Pairwise;
  req.bytes = 1 << 20;
  req.p = 4;
  auto closed = closedFormCost(req, t);
  ASSERT_TRUE(closed.isOk()) << closed.message();
  auto prog = permute({1, 2, 3, 0}, (1 << 20) / 4);
  ASSERT_TRUE(prog.isOk());
  auto priced = predictCost(*prog, t);
  ASSERT_TRUE(priced.isOk()) << priced.message();
  EXPECT_NEAR(priced->seconds, *closed, 1e-9);
}

} // namespace
