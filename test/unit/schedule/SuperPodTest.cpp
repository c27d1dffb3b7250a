//===- SuperPodTest.cpp - Super pods: presets, tiers, prices, layouts -----===//
//
// A super pod joins servers over a scale-up bus: ranks of different servers
// in one pod talk over it, ranks of different pods over the inter-server
// link. Prices are computed here from the topology's own figures.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Placement.h"
#include "hccl-mlir/schedule/Plan.h"
#include "hccl-mlir/schedule/Select.h"
#include "hccl-mlir/schedule/Topology.h"

#include <gtest/gtest.h>

using namespace hccl::sched;

namespace {

Topology preset(const std::string &name) {
  auto t = Topology::preset(name);
  EXPECT_TRUE(t) << name << ": " << t.message();
  return t ? *t : Topology();
}

TEST(SuperPod, PresetGroupsServersInOrder) {
  Topology t = preset("910d-8x5-pod2");
  EXPECT_TRUE(t.hasPods());
  EXPECT_EQ(t.podServers, 2);
  EXPECT_EQ(t.worldSize(), 40);
  EXPECT_EQ(t.podOfServer(0), 0);
  EXPECT_EQ(t.podOfServer(3), 1);
  EXPECT_EQ(t.podOfServer(4), 2); // the last pod holds one server
  EXPECT_EQ(t.tierBetween(0, 7), 0);
  EXPECT_EQ(t.tierBetween(0, 8), 1);
  EXPECT_EQ(t.tierBetween(0, 16), 2);
  EXPECT_EQ(&t.linkBetween(0, 8), &t.scaleUp);
  EXPECT_EQ(&t.linkBetween(0, 16), &t.inter);
  // The 910D's servers and NICs; a bus of 7 HCCS-class links per NPU.
  Topology plain = preset("910d-8x5");
  EXPECT_FALSE(plain.hasPods());
  EXPECT_EQ(plain.tierBetween(0, 8), 2);
  EXPECT_EQ(t.intra, plain.intra);
  EXPECT_EQ(t.inter, plain.inter);
  EXPECT_EQ(t.scaleUp.cls, LinkClass::HCCS);
  EXPECT_EQ(t.scaleUp.ports, 7);
  EXPECT_FALSE(t == plain);
  for (const char *bad : {"910b-8x4-pod2", "910d-8x4-pod0", "910d-8x4-pod",
                          "910d-8x4-podx", "910d-8x4-pod2-pod2"}) {
    auto r = Topology::preset(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.message().find("'910d-8xN-podS'"), std::string::npos);
  }
}

TEST(SuperPod, RankTablePodsOutOfOrderStayAMap) {
  // Pods {node_0, node_2} and {node_1, node_3}.
  const char *table = R"({"version": "1.2", "status": "completed",
    "server_count": "4", "server_list": [
    {"server_id": "node_0", "device": [{"device_id": "0", "rank_id": "0"}]},
    {"server_id": "node_1", "device": [{"device_id": "0", "rank_id": "1"}]},
    {"server_id": "node_2", "device": [{"device_id": "0", "rank_id": "2"}]},
    {"server_id": "node_3", "device": [{"device_id": "0", "rank_id": "3"}]}],
    "super_pod_list": [
      {"super_pod_id": "a", "server_list": [{"server_id": "node_0"},
                                            {"server_id": "node_2"}]},
      {"super_pod_id": "b", "server_list": [
        {"server_id": "node_1"}, {"server_id": "node_3"}]}]})";
  auto t = Topology::fromRankTable(table);
  ASSERT_TRUE(t) << t.message();
  EXPECT_EQ(t->podServers, 0);
  EXPECT_EQ(t->serverPod, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(t->tierBetween(0, 2), 1);
  EXPECT_EQ(t->tierBetween(0, 1), 2);
  // Link parameters may restate the bus.
  auto fast = Topology::fromRankTable(
      table, R"({"scaleup": {"bandwidth_gbps": 90, "latency_us": 3}})");
  ASSERT_TRUE(fast) << fast.message();
  EXPECT_EQ(fast->scaleUp.bandwidthGBps, 90);
  EXPECT_EQ(fast->scaleUp.latencyUs, 3);
  // The plan's topology carries the map and the bus.
  auto back = topologyFromJson(topologyToJson(*fast));
  ASSERT_TRUE(back) << back.message();
  EXPECT_TRUE(*back == *fast);
  EXPECT_EQ(back->tierBetween(0, 2), 1);

  std::string twice = table;
  twice.replace(twice.rfind("\"node_3\""), 8, "\"node_2\"");
  auto r = Topology::fromRankTable(twice);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("super_pod_list[1].server_list[1].server_id: "
                             "server 'node_2' is in two super pods"),
            std::string::npos)
      << r.message();
  std::string missing = table;
  missing.replace(missing.rfind(R"(, {"server_id": "node_3"})"),
                  std::string(R"(, {"server_id": "node_3"})").size(), "");
  r = Topology::fromRankTable(missing);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("server 'node_3' is in no super pod"),
            std::string::npos)
      << r.message();
}

TEST(SuperPod, PlanJsonRoundTripAndRefusals) {
  Topology t = preset("910d-8x4-pod2");
  t.name.clear(); // custom: every figure written out
  t.scaleUp.latencyUs = 2.5;
  auto back = topologyFromJson(topologyToJson(t));
  ASSERT_TRUE(back) << back.message();
  EXPECT_TRUE(*back == t);
  EXPECT_EQ(back->podServers, 2);
  auto stray = topologyFromJson(
      R"({"servers": 2, "devices_per_server": 8, "scaleup": {"ports": 7}})");
  ASSERT_FALSE(stray);
  EXPECT_NE(stray.message().find("topology.scaleup: the topology has no "
                                 "super pods"),
            std::string::npos)
      << stray.message();
}

ConcreteOp send(int64_t peer, int64_t count) {
  ConcreteOp c;
  c.kind = OpKind::Send;
  c.peer = peer;
  c.count = count;
  return c;
}

TEST(SuperPod, StepsArePricedOnTheTierTheyCross) {
  Topology t = preset("910d-8x4-pod2");
  const int64_t count = int64_t(1) << 20;
  const double bytes = static_cast<double>(count) * 4;
  auto price = [&](std::vector<ConcreteOp> ops) {
    return stepCost(ops, 0, {}, 4, 1, t);
  };
  EXPECT_DOUBLE_EQ(price({send(8, count)}),
                   t.scaleUp.alpha() + bytes * t.scaleUp.beta());
  EXPECT_DOUBLE_EQ(price({send(16, count)}),
                   t.inter.alpha() + bytes * t.inter.beta());
  // Fourteen peers over one pod's bus share its 7 ports: two messages
  // each.
  Topology big = preset("910d-8x4-pod4");
  std::vector<ConcreteOp> wide;
  for (int64_t peer = 8; peer < 22; ++peer)
    wide.push_back(send(peer, count));
  EXPECT_DOUBLE_EQ(stepCost(wide, 0, {}, 4, 1, big),
                   2 * (big.scaleUp.alpha() + bytes * big.scaleUp.beta()));
}

TEST(SuperPod, ClosedFormsUseTheBusInsideOnePod) {
  Topology pods = preset("910d-8x4-pod2");
  Topology bus = preset("910d-8x4"); // its inter link made the bus
  bus.inter = pods.scaleUp;
  Topology roce = preset("910d-8x4");
  auto placed = [&](std::vector<int64_t> ranks) {
    auto pl = placeGroup(pods, {ranks});
    EXPECT_TRUE(pl) << pl.message();
    return *pl;
  };
  std::vector<int64_t> inPod, acrossPods;
  for (int64_t r = 0; r < 16; ++r) {
    inPod.push_back(r);          // servers 0, 1: pod 0
    acrossPods.push_back(r + 8); // servers 1, 2: pods 0, 1
  }
  EXPECT_EQ(placed(inPod).pods, 1);
  EXPECT_EQ(placed(acrossPods).pods, 2);
  EXPECT_EQ(placeGroup(roce, {inPod})->pods, 0); // no pods, not counted
  for (Algorithm a : {Algorithm::Ring, Algorithm::Hierarchical}) {
    ClosedFormRequest req;
    req.algorithm = a;
    req.level0 = Algorithm::MeshTwoShot;
    req.bytes = 64e6;
    auto price = [&](const GroupPlacement &pl, const Topology &topo) {
      auto r = placedClosedFormCost(req, pl, topo);
      EXPECT_TRUE(r) << r.message();
      return r ? *r : -1;
    };
    EXPECT_DOUBLE_EQ(price(placed(inPod), pods), price(placed(inPod), bus))
        << algorithmName(a);
    EXPECT_DOUBLE_EQ(price(placed(acrossPods), pods),
                     price(placed(acrossPods), roce))
        << algorithmName(a);
  }
}

std::vector<int64_t> firstRanks(int64_t n) {
  std::vector<int64_t> r;
  for (int64_t i = 0; i < n; ++i)
    r.push_back(i);
  return r;
}

TEST(SuperPod, SelectionSplitsAtThePodWhenItPays) {
  Topology t = preset("910d-8x96-pod48");
  auto pl = placeGroup(t, {firstRanks(768)});
  ASSERT_TRUE(pl) << pl.message();
  EXPECT_EQ(pl->ranksPerServer, 8);
  EXPECT_EQ(pl->ranksPerPod, 384);
  EXPECT_EQ(pl->pods, 2);
  EXPECT_TRUE(pl->podHierarchical());
  SelectRequest req;
  req.placement = *pl;
  req.bytes = 1 << 30;
  auto big = selectAlgorithm(req, t);
  ASSERT_TRUE(big) << big.message();
  // The mesh inside a pod sends most of the data over the bus: cheaper
  // than every split at the server (simulated: 16.2 against 18.2 ms).
  EXPECT_TRUE(big->podSplit);
  EXPECT_EQ(big->algorithm, Algorithm::Hierarchical);
  EXPECT_EQ(big->level0, Algorithm::MeshTwoShot);
  bool serverSplit = false;
  for (const Candidate &c : big->candidates)
    if (c.algorithm == Algorithm::Hierarchical && !c.podSplit) {
      serverSplit = true;
      EXPECT_GT(c.seconds, big->seconds);
    }
  EXPECT_TRUE(serverSplit);
  // 4 KB: 383 messages per NPU cost more than they save.
  req.bytes = 4096;
  auto small = selectAlgorithm(req, t);
  ASSERT_TRUE(small) << small.message();
  EXPECT_FALSE(small->podSplit);
  // HCCL_ALGO's levels name the server split: no pod split under it.
  auto spec = parseHcclAlgo("level0:NA;level1:ring");
  ASSERT_TRUE(spec) << spec.message();
  req.bytes = 1 << 30;
  req.override = &*spec;
  auto pinned = selectAlgorithm(req, t);
  ASSERT_TRUE(pinned) << pinned.message();
  for (const Candidate &c : pinned->candidates)
    EXPECT_FALSE(c.podSplit);
  // No pods, or a group inside one pod: nothing to split at.
  req.override = nullptr;
  Topology plain = preset("910d-8x96");
  req.placement = *placeGroup(plain, {firstRanks(768)});
  auto flat = selectAlgorithm(req, plain);
  ASSERT_TRUE(flat) << flat.message();
  for (const Candidate &c : flat->candidates)
    EXPECT_FALSE(c.podSplit);
  auto onePod = placeGroup(t, {firstRanks(384)});
  EXPECT_EQ(onePod->pods, 1);
  EXPECT_FALSE(onePod->podHierarchical());
  ClosedFormRequest cf;
  cf.algorithm = Algorithm::Hierarchical;
  cf.podSplit = true;
  cf.bytes = 1e6;
  auto refused = placedClosedFormCost(cf, *onePod, t);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("two or more pods"), std::string::npos)
      << refused.message();
}

} // namespace
