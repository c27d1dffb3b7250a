//===- AlgoTableTest.cpp - Algorithm tables: reading and size bands -------===//
#include "hccl-mlir/schedule/AlgoTable.h"

#include <gtest/gtest.h>

using namespace hccl::sched;

namespace {

std::string doc(const std::string &entries,
                const std::string &head = R"("format": "hccl-mlir.algo-table",
                  "version": 1, "topology": "910b-8x2")") {
  return "{" + head + ", \"entries\": [" + entries + "]}";
}

const char *kEntries = R"(
  {"collective": "allreduce", "ranks": 16, "bytes": 1024, "algorithm": "ring"},
  {"collective": "allreduce", "ranks": 16, "bytes": 1048576,
   "algorithm": "hierarchical", "level0": "mesh", "level1": "rhd"},
  {"collective": "all_gather", "ranks": 16, "bytes": 0, "algorithm": "rhd"},
  {"collective": "allreduce", "ranks": 8, "bytes": 0, "algorithm": "mesh"})";

TEST(AlgoTable, SizeBandsPickTheLargestEntryNotAbove) {
  auto t = parseAlgoTable(doc(kEntries));
  ASSERT_TRUE(t) << t.message();
  EXPECT_EQ(t->topology, "910b-8x2");
  ASSERT_EQ(t->entries.size(), 4u);
  auto algo = [&](Collective c, int64_t p, double bytes) {
    const AlgoTableEntry *e = t->lookup(c, p, bytes);
    return e ? std::string(algorithmName(e->algorithm)) : std::string("none");
  };
  // Below the first entry: the smallest one decides.
  EXPECT_EQ(algo(Collective::AllReduce, 16, 4), "ring");
  EXPECT_EQ(algo(Collective::AllReduce, 16, 1024), "ring");
  EXPECT_EQ(algo(Collective::AllReduce, 16, 1048575), "ring");
  EXPECT_EQ(algo(Collective::AllReduce, 16, 1048576), "hierarchical");
  EXPECT_EQ(algo(Collective::AllReduce, 16, 1e12), "hierarchical");
  const AlgoTableEntry *h = t->lookup(Collective::AllReduce, 16, 4e6);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->level0, Algorithm::MeshTwoShot);
  EXPECT_EQ(h->level1, Algorithm::RHD);
  // Group size and collective must match; snake_case names read too.
  EXPECT_EQ(algo(Collective::AllReduce, 8, 1e9), "mesh");
  EXPECT_EQ(algo(Collective::AllGather, 16, 5), "rhd");
  EXPECT_EQ(algo(Collective::AllReduce, 32, 1e6), "none");
  EXPECT_EQ(algo(Collective::ReduceScatter, 16, 1e6), "none");
}

TEST(AlgoTable, SimulatedTimesPriceBetweenTheirSizes) {
  auto t = parseAlgoTable(doc(R"(
    {"collective": "allreduce", "ranks": 16, "bytes": 1000, "algorithm": "ring",
     "sim_us": 10},
    {"collective": "allreduce", "ranks": 16, "bytes": 0, "algorithm": "ring",
     "sim_us": 5},
    {"collective": "allreduce", "ranks": 16, "bytes": 3000, "algorithm": "rhd",
     "sim_us": 30},
    {"collective": "allgather", "ranks": 16, "bytes": 0, "algorithm": "rhd"})"));
  ASSERT_TRUE(t) << t.message();
  auto pts = t->simulatedTimes(Collective::AllReduce, 16);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[0].first, 0);
  EXPECT_DOUBLE_EQ(pts[0].second, 5e-6);
  EXPECT_DOUBLE_EQ(interpolateTime(pts, 0), 5e-6);
  EXPECT_DOUBLE_EQ(interpolateTime(pts, 500), 7.5e-6);
  EXPECT_DOUBLE_EQ(interpolateTime(pts, 2000), 20e-6);
  // Past the last size, the last segment's slope (10 us per 1000 B).
  EXPECT_DOUBLE_EQ(interpolateTime(pts, 5000), 50e-6);
  // Below the first size, its time (a collective costs its latency).
  auto high = std::vector<std::pair<double, double>>{{100, 1e-6}, {200, 2e-6}};
  EXPECT_DOUBLE_EQ(interpolateTime(high, 10), 1e-6);
  // An entry without sim_us: the group has no simulated prices at all.
  EXPECT_TRUE(t->simulatedTimes(Collective::AllGather, 16).empty());
  EXPECT_TRUE(t->simulatedTimes(Collective::AllReduce, 8).empty());
}

TEST(AlgoTable, ErrorsNameTheJsonPath) {
  struct Case {
    std::string text, message;
  } cases[] = {
      {"not json", "algorithm table: malformed JSON"},
      {doc("", R"("format": "other", "version": 1, "topology": "t")"),
       "format: expected \"hccl-mlir.algo-table\", found \"other\""},
      {doc("", R"("format": "hccl-mlir.algo-table", "version": 2,
               "topology": "t")"),
       "version: expected an integer in 1..1, found 2"},
      {doc("", R"("format": "hccl-mlir.algo-table", "version": 1)"),
       "topology: missing"},
      {doc(R"({"collective": "allreduce", "ranks": 2, "bytes": 0,
              "algorithm": "warp"})"),
       "entries[0].algorithm: unknown algorithm 'warp'"},
      {doc(R"({"collective": "scan", "ranks": 2, "bytes": 0,
              "algorithm": "ring"})"),
       "entries[0].collective: unknown collective 'scan'"},
      {doc(R"({"collective": "allreduce", "ranks": 2, "bytes": -1,
              "algorithm": "ring"})"),
       "entries[0].bytes:"},
      {doc(R"({"collective": "allreduce", "ranks": 16, "bytes": 0,
              "algorithm": "hierarchical", "level0": "mesh"})"),
       "entries[0].level1: missing"},
      {doc(R"({"collective": "allreduce", "ranks": 2, "bytes": 8,
              "algorithm": "ring", "speed": 1})"),
       "entries[0].speed: unknown key"},
      {doc(R"({"collective": "allreduce", "ranks": 2, "bytes": 8,
              "algorithm": "ring", "sim_us": "fast"})"),
       "entries[0].sim_us:"},
      {doc(R"({"collective": "allreduce", "ranks": 2, "bytes": 8,
              "algorithm": "ring"},
             {"collective": "all_reduce", "ranks": 2, "bytes": 8,
              "algorithm": "rhd"})"),
       "entries[1]: a second entry for all_reduce on 2 ranks at 8.0 bytes"},
  };
  for (const Case &c : cases) {
    auto t = parseAlgoTable(c.text);
    ASSERT_FALSE(t) << c.text;
    EXPECT_NE(t.message().find(c.message), std::string::npos)
        << "got: " << t.message() << "\nwant: " << c.message;
  }
}

} // namespace
