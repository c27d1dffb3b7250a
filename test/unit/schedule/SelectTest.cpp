//===- SelectTest.cpp - HCCL_ALGO parsing and algorithm selection ---------===//
#include "hccl-mlir/schedule/Select.h"
#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace hccl::sched;

namespace {

TEST(HcclAlgo, MapsHcclNames) {
  struct {
    const char *name;
    std::optional<Algorithm> alg;
    bool pipeline;
  } cases[] = {{"ring", Algorithm::Ring, false},
               {"H-D_R", Algorithm::RHD, false},
               {"NHR", Algorithm::RHD, false},
               {"NB", Algorithm::RecursiveDoubling, false},
               {"pipeline", Algorithm::Ring, true},
               {"pairwise", Algorithm::Pairwise, false},
               {"fullmesh", Algorithm::MeshTwoShot, false},
               {"NA", std::nullopt, false},
               {"na", std::nullopt, false},
               {"h-d_r", Algorithm::RHD, false},
               {"rhd", Algorithm::RHD, false},
               {"mesh_oneshot", Algorithm::MeshOneShot, false},
               {"star", Algorithm::Star, false},
               {"tree", Algorithm::Tree, false}};
  for (auto &c : cases) {
    auto r = parseLevelAlgorithm(c.name);
    ASSERT_TRUE(r.isOk()) << c.name << ": " << r.message();
    EXPECT_EQ(r->algorithm, c.alg) << c.name;
    EXPECT_EQ(r->pipeline, c.pipeline) << c.name;
  }
  auto bad = parseLevelAlgorithm("hierarchical");
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("unknown algorithm 'hierarchical' (valid: "
                               "ring, H-D_R, NHR, NB, pipeline, pairwise, "
                               "fullmesh, NA"),
            std::string::npos)
      << bad.message();
}

TEST(HcclAlgo, GlobalForm) {
  auto spec = parseHcclAlgo("level0:NA;level1:H-D_R");
  ASSERT_TRUE(spec.isOk()) << spec.message();
  for (int c = 0; c < kNumCollectives; ++c) {
    const AlgoLevels &lv = spec->forCollective(static_cast<Collective>(c));
    EXPECT_TRUE(lv.set);
    EXPECT_TRUE(lv.global);
    EXPECT_FALSE(lv.level0.algorithm.has_value());
    EXPECT_EQ(lv.level1.algorithm, Algorithm::RHD);
  }
}

TEST(HcclAlgo, PerCollectiveForm) {
  auto spec = parseHcclAlgo(
      "allreduce=level0:NA;level1:ring/allgather=level0:NA;level1:H-D_R");
  ASSERT_TRUE(spec.isOk()) << spec.message();
  EXPECT_EQ(spec->forCollective(Collective::AllReduce).level1.algorithm,
            Algorithm::Ring);
  EXPECT_EQ(spec->forCollective(Collective::AllGather).level1.algorithm,
            Algorithm::RHD);
  EXPECT_FALSE(spec->forCollective(Collective::AllReduce).global);
  EXPECT_FALSE(spec->forCollective(Collective::Broadcast).set);
  // A per-collective item wins over the global one, in either order.
  auto mixed = parseHcclAlgo("level1:ring/alltoall=level1:pairwise");
  ASSERT_TRUE(mixed.isOk()) << mixed.message();
  EXPECT_EQ(mixed->forCollective(Collective::AllToAll).level1.algorithm,
            Algorithm::Pairwise);
  EXPECT_EQ(mixed->forCollective(Collective::AllReduce).level1.algorithm,
            Algorithm::Ring);
  auto snake = parseHcclAlgo(" all_reduce = level1 : NB ");
  ASSERT_TRUE(snake.isOk()) << snake.message();
  EXPECT_EQ(snake->forCollective(Collective::AllReduce).level1.algorithm,
            Algorithm::RecursiveDoubling);
}

TEST(HcclAlgo, RejectsMalformedValues) {
  struct {
    const char *text;
    const char *expect;
  } cases[] = {
      {"", "HCCL_ALGO: empty value"},
      {"level0:foo", "HCCL_ALGO: level0: unknown algorithm 'foo' (valid: ring, "
                     "H-D_R, NHR, NB, pipeline, pairwise, fullmesh, NA"},
      {"gather=level0:NA", "HCCL_ALGO: unknown collective 'gather'"},
      {"level2:ring", "HCCL_ALGO: level2 (inter-superpod) is not supported"},
      {"levelx:ring", "HCCL_ALGO: unknown level 'levelx' (valid: level0, "
                      "level1)"},
      {"level0ring", "HCCL_ALGO: expected 'levelN:ALGORITHM', found "
                     "'level0ring'"},
      {"level0:NA;level0:ring", "HCCL_ALGO: level0 given twice"},
      {"allreduce=", "HCCL_ALGO: no level given in 'allreduce='"},
      {"level0:NA/level1:ring", "more than one item without a collective"},
      {"allreduce=level1:ring//", "HCCL_ALGO: empty item"},
  };
  for (auto &c : cases) {
    auto r = parseHcclAlgo(c.text);
    ASSERT_FALSE(r.isOk()) << "'" << c.text << "' accepted";
    EXPECT_NE(r.message().find(c.expect), std::string::npos)
        << "'" << c.text << "' -> " << r.message();
  }
}

double best(const Selection &s) {
  double m = INFINITY;
  for (const Candidate &c : s.candidates)
    m = std::min(m, c.seconds);
  return m;
}

TEST(Select, PicksTheCheapestCandidate) {
  Topology t = *Topology::preset("910b-8");
  for (double bytes : {8.0, 4096.0, 1048576.0, 268435456.0}) {
    SelectRequest r;
    r.collective = Collective::AllReduce;
    r.bytes = bytes;
    r.p = 8;
    auto s = selectAlgorithm(r, t);
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_FALSE(s->overridden);
    // One server: only flat algorithms are candidates, all of them priced.
    EXPECT_EQ(s->candidates.size(), 5u);
    EXPECT_DOUBLE_EQ(s->seconds, best(*s));
    // Each candidate's price is its closed form.
    for (const Candidate &c : s->candidates) {
      ClosedFormRequest cf;
      cf.algorithm = c.algorithm;
      cf.bytes = bytes;
      cf.p = 8;
      EXPECT_DOUBLE_EQ(c.seconds, *closedFormCost(cf, t));
    }
    if (bytes <= 8) {
      EXPECT_NE(s->algorithm, Algorithm::Ring) << "latency bound";
    }
    if (bytes >= 268435456.0) {
      EXPECT_NE(s->algorithm, Algorithm::MeshOneShot) << "bandwidth bound";
      EXPECT_NE(s->algorithm, Algorithm::RecursiveDoubling);
    }
  }
}

// At 2 ranks ring, the two-shot mesh and RHD are one exchange each way
// twice, priced alike up to rounding. The choice must not follow the
// rounding from size to size (it picked the mesh for a 16 KB all-reduce
// and ring for 8 and 32 KB): a tie goes to the first candidate.
TEST(Select, RoundingDoesNotBreakTies) {
  Topology t = *Topology::preset("host-2");
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter,
                       Collective::AllGather}) {
    for (double bytes = 1024; bytes <= 64.0 * 1048576; bytes *= 2) {
      SelectRequest r;
      r.collective = c;
      r.bytes = bytes;
      r.p = 2;
      auto s = selectAlgorithm(r, t);
      ASSERT_TRUE(s.isOk()) << s.message();
      double ring = NAN, mesh = NAN;
      for (const Candidate &cand : s->candidates) {
        if (cand.algorithm == Algorithm::Ring)
          ring = cand.seconds;
        if (cand.algorithm == Algorithm::MeshTwoShot)
          mesh = cand.seconds;
      }
      ASSERT_FALSE(std::isnan(ring) || std::isnan(mesh));
      // The premise: the two are priced alike (to rounding) here.
      ASSERT_NEAR(ring, mesh, 1e-12 * ring) << collectiveName(c) << bytes;
      EXPECT_NE(s->algorithm, Algorithm::MeshTwoShot)
          << collectiveName(c) << " of " << bytes << " bytes";
      if (s->algorithm != Algorithm::Ring) {
        EXPECT_LT(s->seconds, ring * (1 - 1e-9))
            << collectiveName(c) << " of " << bytes
            << " bytes: a tie with ring went to "
            << algorithmName(s->algorithm);
      }
    }
  }
}

TEST(Select, MultiServerConsidersHierarchical) {
  Topology t = *Topology::preset("910b-8x4");
  SelectRequest r;
  r.collective = Collective::AllReduce;
  r.bytes = 64.0 * 1024 * 1024;
  r.p = 32;
  auto s = selectAlgorithm(r, t);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(s->algorithm, Algorithm::Hierarchical)
      << "1/8 of the data on RoCE beats any flat algorithm";
  EXPECT_EQ(s->candidates.size(), 5u + 3u * 5u);
  EXPECT_DOUBLE_EQ(s->seconds, best(*s));
}

TEST(Select, HonoursOverrides) {
  Topology one = *Topology::preset("910b-8");
  auto ringOnly = parseHcclAlgo("level0:ring");
  SelectRequest r;
  r.collective = Collective::AllReduce;
  r.bytes = 8;
  r.p = 8;
  r.override = &*ringOnly;
  auto s = selectAlgorithm(r, one);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_TRUE(s->overridden);
  EXPECT_EQ(s->algorithm, Algorithm::Ring);
  ASSERT_EQ(s->candidates.size(), 1u);

  Topology four = *Topology::preset("910b-8x4");
  auto hdr = parseHcclAlgo("level0:NA;level1:H-D_R");
  r.p = 32;
  r.bytes = 1 << 20;
  r.override = &*hdr;
  s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(s->algorithm, Algorithm::Hierarchical);
  EXPECT_EQ(s->level1, Algorithm::RHD);
  EXPECT_EQ(s->candidates.size(), 3u) << "level0 automatic over 3 choices";

  auto pipe = parseHcclAlgo("level1:pipeline");
  r.override = &*pipe;
  s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->algorithm, Algorithm::Hierarchical);
  EXPECT_EQ(s->level0, Algorithm::Ring);
  EXPECT_EQ(s->level1, Algorithm::Ring);

  // Global form: pairwise does not apply to all-reduce (automatic there)
  // but decides all-to-all.
  auto pw = parseHcclAlgo("level0:NA;level1:pairwise");
  r.override = &*pw;
  s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk()) << s.message();
  r.collective = Collective::AllToAll;
  s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(s->algorithm, Algorithm::Pairwise);
  // Per-collective form naming an impossible algorithm is an error.
  auto badSpec = parseHcclAlgo("allreduce=level1:pairwise");
  r.collective = Collective::AllReduce;
  r.override = &*badSpec;
  s = selectAlgorithm(r, four);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("HCCL_ALGO: level1 algorithm 'pairwise' cannot "
                             "serve allreduce"),
            std::string::npos)
      << s.message();
}

TEST(Select, FollowsThePlacement) {
  Topology four = *Topology::preset("910b-8x4");
  SelectRequest r;
  r.collective = Collective::AllReduce;
  r.bytes = 64.0 * 1024 * 1024;
  // One rank per server: a hierarchy is its level-1 algorithm, run flat.
  r.placement = *placeGroup(four, {{0, 8, 16, 24}});
  auto s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_NE(s->algorithm, Algorithm::Hierarchical);
  for (const Candidate &c : s->candidates)
    EXPECT_NE(c.algorithm, Algorithm::Hierarchical);
  // Flat across servers: priced on the inter-server link.
  for (const Candidate &c : s->candidates) {
    ClosedFormRequest cf;
    cf.algorithm = c.algorithm;
    cf.bytes = r.bytes;
    cf.p = 4;
    cf.ranksPerServer = 1;
    EXPECT_DOUBLE_EQ(c.seconds, *closedFormCost(cf, four));
  }
  // Two per server but interleaved: no hierarchical candidate.
  r.placement = *placeGroup(four, {{0, 8, 1, 9}});
  s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk()) << s.message();
  for (const Candidate &c : s->candidates)
    EXPECT_NE(c.algorithm, Algorithm::Hierarchical);
  // The same two per server in server-major order: hierarchical ones too.
  r.placement = *placeGroup(four, {{0, 1, 8, 9}});
  s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_TRUE(std::any_of(s->candidates.begin(), s->candidates.end(),
                          [](const Candidate &c) {
                            return c.algorithm == Algorithm::Hierarchical;
                          }));
  // Without a placement: p ranks server-major as before.
  r.placement.reset();
  r.p = 32;
  s = selectAlgorithm(r, four);
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->candidates.size(), 5u + 3u * 5u);
}

TEST(Placement, PlacesGroups) {
  Topology t = *Topology::preset("910b-8x2");
  auto one = placeGroup(t, {{2, 3, 4}});
  ASSERT_TRUE(one.isOk());
  EXPECT_EQ(*one, (GroupPlacement{3, 3, 1}));
  EXPECT_EQ(one->levelRanks(), 3);
  auto even = placeGroup(t, {{0, 1, 8, 9}, {2, 3, 10, 11}});
  ASSERT_TRUE(even.isOk());
  EXPECT_EQ(*even, (GroupPlacement{4, 2, 2}));
  EXPECT_TRUE(even->hierarchical());
  // Runs of different lengths in two subgroups.
  auto mixed = placeGroup(t, {{0, 1, 8, 9}, {2, 10, 11, 12}});
  ASSERT_TRUE(mixed.isOk());
  EXPECT_EQ(mixed->ranksPerServer, 0);
  EXPECT_EQ(mixed->levelRanks(), 1);
  // A server visited twice.
  auto twice = placeGroup(t, {{0, 8, 1, 9}});
  ASSERT_TRUE(twice.isOk());
  EXPECT_EQ(twice->ranksPerServer, 0);
  EXPECT_FALSE(twice->hierarchical());
  auto ragged = placeGroup(t, {{0, 1}, {2}});
  ASSERT_FALSE(ragged.isOk());
  EXPECT_NE(ragged.message().find("differ in size"), std::string::npos);
  ASSERT_FALSE(placeGroup(t, {}).isOk());
  auto outside = placeGroup(t, {{0, -1}});
  ASSERT_FALSE(outside.isOk());
  EXPECT_NE(outside.message().find("rank -1 does not fit"), std::string::npos);
  EXPECT_EQ(serverMajorPlacement(8, 8), (GroupPlacement{8, 8, 1}));
  EXPECT_EQ(serverMajorPlacement(32, 8), (GroupPlacement{32, 8, 4}));
  EXPECT_EQ(serverMajorPlacement(12, 8), (GroupPlacement{12, 0, 2}));
}

} // namespace
