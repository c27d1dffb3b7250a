//===- GenerateTest.cpp - Requests, step counts against theory ------------===//
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Cost.h"

#include <gtest/gtest.h>

using namespace hccl::sched;

namespace {

GenerateRequest req(Collective c, Algorithm a, int64_t p, int64_t n) {
  GenerateRequest q;
  q.collective = c;
  q.algorithm = a;
  q.ranks = p;
  q.count = n;
  return q;
}

int64_t floorLg(int64_t p) {
  int64_t l = 0;
  while ((int64_t(2) << l) <= p)
    ++l;
  return l;
}

// Steps in which some rank sends or receives (local-only steps, like the
// reduction of the mesh algorithms, are not communication rounds).
int64_t rounds(const Program &prog) {
  Topology t = *Topology::preset("host-" + std::to_string(prog.p));
  auto pc = predictCost(prog, t);
  EXPECT_TRUE(pc.isOk()) << pc.message();
  return pc.isOk() ? pc->rounds : -1;
}

TEST(Generate, StepCountsMatchTheory) {
  for (int64_t p = 2; p <= 40; ++p) {
    auto ring = generate(req(Collective::AllReduce, Algorithm::Ring, p, 4096));
    ASSERT_TRUE(ring.isOk());
    EXPECT_EQ(*ring->numSteps(), 2 * (p - 1)) << "ring p=" << p;

    auto rhd = generate(req(Collective::AllReduce, Algorithm::RHD, p, 4096));
    ASSERT_TRUE(rhd.isOk());
    bool pow2 = (p & (p - 1)) == 0;
    EXPECT_EQ(*rhd->numSteps(), 2 * floorLg(p) + (pow2 ? 0 : 2))
        << "rhd p=" << p;

    auto mesh =
        generate(req(Collective::AllReduce, Algorithm::MeshTwoShot, p, 4096));
    ASSERT_TRUE(mesh.isOk());
    EXPECT_EQ(rounds(*mesh), 2) << "mesh two-shot p=" << p;
    EXPECT_EQ(*mesh->numSteps(), 3) << "exchange, local reduce, all-gather";

    auto rd = generate(
        req(Collective::AllReduce, Algorithm::RecursiveDoubling, p, 16));
    ASSERT_TRUE(rd.isOk());
    EXPECT_EQ(rounds(*rd), floorLg(p) + (pow2 ? 0 : 2)) << "rd p=" << p;

    auto rs = generate(req(Collective::ReduceScatter, Algorithm::RHD, p, 64));
    ASSERT_TRUE(rs.isOk());
    EXPECT_EQ(*rs->numSteps(), floorLg(p) + (pow2 ? 0 : 2));
    auto ag = generate(req(Collective::AllGather, Algorithm::RHD, p, 64));
    ASSERT_TRUE(ag.isOk());
    EXPECT_EQ(*ag->numSteps(), floorLg(p) + (pow2 ? 0 : 2));

    int64_t lgUp = 0;
    while ((int64_t(1) << lgUp) < p)
      ++lgUp;
    auto tree = generate(req(Collective::Broadcast, Algorithm::Tree, p, 64));
    ASSERT_TRUE(tree.isOk());
    EXPECT_EQ(*tree->numSteps(), lgUp);
    auto pw = generate(req(Collective::AllToAll, Algorithm::Pairwise, p, 8));
    ASSERT_TRUE(pw.isOk());
    EXPECT_EQ(*pw->numSteps(), p - 1);
    GenerateRequest chain = req(Collective::Broadcast, Algorithm::Ring, p, 64);
    chain.chunks = 5;
    auto ch = generate(chain);
    ASSERT_TRUE(ch.isOk());
    EXPECT_EQ(*ch->numSteps(), 5 + p - 2) << "pipelined chain";
  }
}

TEST(Generate, HierarchicalStepCountsAddUp) {
  GenerateRequest q =
      req(Collective::AllReduce, Algorithm::Hierarchical, 32, 1 << 20);
  q.ranksPerServer = 8;
  q.level0 = Algorithm::Ring;
  q.level1 = Algorithm::RHD;
  auto prog = generate(q);
  ASSERT_TRUE(prog.isOk()) << prog.message();
  // intra RS (7) + inter RHD all-reduce on 4 servers (4) + intra AG (7).
  EXPECT_EQ(*prog->numSteps(), 7 + 4 + 7);
  EXPECT_EQ(prog->level0, Algorithm::Ring);
  EXPECT_EQ(prog->level1, Algorithm::RHD);
  ASSERT_EQ(prog->params.size(), 1u);
  EXPECT_EQ(prog->params[0].name, "m");
  EXPECT_EQ(prog->params[0].value, 8);
}

TEST(Generate, RejectsRequestsItCannotServe) {
  struct Case {
    GenerateRequest q;
    const char *expect;
  };
  std::vector<Case> cases;
  auto add = [&](GenerateRequest q, const char *e) { cases.push_back({q, e}); };
  add(req(Collective::AllReduce, Algorithm::Pairwise, 4, 8),
      "algorithm 'pairwise' cannot serve allreduce (valid: ring, mesh, "
      "mesh_oneshot, rhd, rd, hierarchical)");
  add(req(Collective::AllToAll, Algorithm::Ring, 4, 8),
      "cannot serve alltoall");
  GenerateRequest h =
      req(Collective::AllReduce, Algorithm::Hierarchical, 12, 8);
  h.ranksPerServer = 8;
  add(h, "hierarchical: 12 ranks are not a multiple of 8 ranks per server");
  h.ranksPerServer = 0;
  add(h, "hierarchical: ranks per server must be >= 1");
  h.ranksPerServer = 4;
  h.level0 = Algorithm::RecursiveDoubling;
  add(h, "hierarchical: level0 algorithm 'rd' cannot serve allreduce");
  h.level0 = Algorithm::Ring;
  h.level1 = Algorithm::Tree;
  add(h, "hierarchical: level1 algorithm 'tree' cannot serve allreduce");
  add(req(Collective::AllReduce, Algorithm::Ring, 0, 8),
      "ranks must be in 1..");
  add(req(Collective::AllReduce, Algorithm::Ring, 4, -1),
      "count must be in 0..");
  add(req(Collective::AllReduce, Algorithm::Ring, 4, kMaxCount + 1),
      "count must be in 0..");
  GenerateRequest root = req(Collective::Broadcast, Algorithm::Tree, 4, 8);
  root.root = 4;
  add(root, "root 4 outside 0..3");
  GenerateRequest sl = req(Collective::AllReduce, Algorithm::Ring, 4, 8);
  sl.slices = 0;
  add(sl, "slices must be in 1..");
  GenerateRequest v = req(Collective::AllToAllV, Algorithm::Pairwise, 2, 0);
  v.sendCounts = {1, 2, 3};
  add(v, "alltoallv: send counts hold 3 entries, expected p*p = 4");
  v.sendCounts = {1, -2, 3, 4};
  add(v, "alltoallv: send count [0][1] = -2");
  GenerateRequest sc = req(Collective::AllReduce, Algorithm::Ring, 2, 1);
  sc.sendCounts = {1, 1, 1, 1};
  add(sc, "send counts are only meaningful for alltoallv");
  for (const Case &c : cases) {
    auto r = generate(c.q);
    ASSERT_FALSE(r.isOk()) << c.expect;
    EXPECT_NE(r.message().find(c.expect), std::string::npos)
        << "got: " << r.message();
  }
}

TEST(Generate, MeshMeansStarForRootedCollectives) {
  auto prog =
      generate(req(Collective::Broadcast, Algorithm::MeshTwoShot, 5, 9));
  ASSERT_TRUE(prog.isOk());
  EXPECT_EQ(prog->algorithm, Algorithm::Star);
  EXPECT_EQ(*prog->numSteps(), 1);
}

TEST(Generate, ProgramsAreCompactInP) {
  // The program does not grow with p: rank-parametric expressions.
  for (Algorithm a :
       {Algorithm::Ring, Algorithm::RHD, Algorithm::MeshTwoShot}) {
    auto small = generate(req(Collective::AllReduce, a, 16, 1 << 20));
    auto big = generate(req(Collective::AllReduce, a, 4096, 1 << 20));
    ASSERT_TRUE(small.isOk() && big.isOk());
    size_t opsSmall = 0, opsBig = 0;
    for (auto &ph : small->phases)
      opsSmall += ph.ops.size();
    for (auto &ph : big->phases)
      opsBig += ph.ops.size();
    EXPECT_EQ(opsSmall, opsBig) << algorithmName(a);
    EXPECT_LT(big->pool.size(), 400u) << algorithmName(a);
  }
}

TEST(Generate, AlgorithmListsAreConsistent) {
  for (int c = 0; c < kNumCollectives; ++c) {
    auto algs = algorithmsFor(static_cast<Collective>(c));
    EXPECT_FALSE(algs.empty());
    for (Algorithm a : algs) {
      GenerateRequest q = req(static_cast<Collective>(c), a, 8, 16);
      q.ranksPerServer = 4;
      q.level0 = levelAlgorithmsFor(q.collective, 0).empty()
                     ? Algorithm::Ring
                     : levelAlgorithmsFor(q.collective, 0).front();
      q.level1 = levelAlgorithmsFor(q.collective, 1).empty()
                     ? Algorithm::Ring
                     : levelAlgorithmsFor(q.collective, 1).front();
      if (q.collective == Collective::Permute)
        q.permuteTargets = {1, 2, 3, 4, 5, 6, 7, 0};
      EXPECT_TRUE(generate(q).isOk())
          << collectiveName(q.collective) << " " << algorithmName(a);
    }
  }
}

} // namespace
