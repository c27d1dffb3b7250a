//===- RankTableTest.cpp - Every documented rank table form ---------------===//
//
// The inputs under inputs/ranktables are HCCL's documented examples (A2
// version 1.0, A3 super pods version 1.2, Ascend 950 version 2.0 with IP and
// EID addresses, the training series' group_list template), written out as
// files; each must read into the cluster the documentation describes.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Topology.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace hccl::sched;

namespace {

std::string input(const std::string &name) {
  std::ifstream f(std::string(HCCL_RANKTABLE_DIR) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(RankTable, A2Version10WithNamedServers) {
  auto t = Topology::fromRankTable(input("a2-1.0.json"));
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->worldSize(), 4);
  EXPECT_EQ(t->servers, 2);
  EXPECT_EQ(t->serverIds, (std::vector<std::string>{"node_0", "node_1"}));
  EXPECT_EQ(t->serverOf(2), 1);
  EXPECT_EQ(t->deviceIps[3], "192.168.2.9");
  // No host address: node_0 is reached from its own host only.
  EXPECT_EQ(t->hostIps, (std::vector<std::string>{"", ""}));
}

TEST(RankTable, A3Version12SuperPods) {
  auto t = Topology::fromRankTable(input("a3-1.2-superpod.json"));
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->worldSize(), 16);
  EXPECT_EQ(t->servers, 4);
  EXPECT_EQ(t->devicesPerServer, 4);
  EXPECT_TRUE(t->isUniformServerMajor());
  EXPECT_EQ(t->hostIps[0], "172.16.0.100");
  EXPECT_EQ(t->hostIps[3], "172.16.0.103");
  EXPECT_EQ(t->serverOf(9), 2);
  // Its super_pod_list: node_0, node_1 | node_2, node_3, pods of 2 in
  // server order, joined by the scale-up bus.
  EXPECT_EQ(t->podServers, 2);
  EXPECT_TRUE(t->serverPod.empty());
  EXPECT_EQ(t->tierBetween(0, 4), 1);
  EXPECT_EQ(&t->linkBetween(0, 4), &t->scaleUp);
  EXPECT_EQ(t->tierBetween(0, 8), 2);
  EXPECT_EQ(t->scaleUp.cls, LinkClass::HCCS);
  // A super pod naming a server the list lacks.
  std::string bad = input("a3-1.2-superpod.json");
  bad.replace(bad.rfind("\"node_3\""), 8, "\"node_9\"");
  auto r = Topology::fromRankTable(bad);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("super_pod_list[1].server_list[1].server_id: "
                             "server 'node_9' is not in server_list"),
            std::string::npos)
      << r.message();
}

TEST(RankTable, Version20RankList) {
  auto t = Topology::fromRankTable(input("a5-2.0.json"));
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->worldSize(), 4);
  EXPECT_EQ(t->servers, 2); // servers: the lowest layer's instances
  EXPECT_EQ(t->serverIds,
            (std::vector<std::string>{"az0-rack0-pod0", "az0-rack0-pod1"}));
  EXPECT_EQ(t->serverOf(1), 0);
  EXPECT_EQ(t->serverOf(2), 1);
  EXPECT_EQ(t->deviceIps[2], "172.16.1.10");
  EXPECT_EQ(t->hostIps, (std::vector<std::string>{"", ""}));
}

TEST(RankTable, Version20EidWithHostNic) {
  auto t = Topology::fromRankTable(input("a5-2.0-eid.json"));
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->worldSize(), 2);
  EXPECT_EQ(t->servers, 1);
  EXPECT_EQ(t->deviceIps[0], "");              // EIDs are no host address
  EXPECT_EQ(t->hostIps[0], "192.168.100.101"); // the "d2h" port
}

TEST(RankTable, GroupListForm) {
  auto t = Topology::fromRankTable(input("training-grouplist.json"));
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->worldSize(), 4);
  EXPECT_EQ(t->servers, 2);
  EXPECT_EQ(t->serverIds[1], "10.0.0.11");
  EXPECT_EQ(t->serverOf(3), 1);
  EXPECT_EQ(t->deviceIps[1], "192.2.27.6");
  std::string bad = input("training-grouplist.json");
  bad.replace(bad.find("\"instance_count\": \"4\""), 21,
              "\"instance_count\": \"3\"");
  auto r = Topology::fromRankTable(bad);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("instance_count: says \"3\", instance_list "
                             "holds 4"),
            std::string::npos)
      << r.message();
}

TEST(RankTable, MistakesNameTheirPlace) {
  struct {
    const char *text;
    const char *expect;
  } cases[] = {
      {R"({"version": "3.0"})", "unsupported version '3.0'"},
      {R"({"version": "1.2", "server_count": "1", "server_list": [
           {"server_id": "n", "host_ip": "nowhere", "device": [
             {"device_id": "0", "rank_id": "0"}]}]})",
       "server_list[0].host_ip: 'nowhere' is not an IPv4 or IPv6 address"},
      {R"({"version": "2.0", "rank_count": 2, "rank_list": [
           {"rank_id": 0, "device_id": 0, "level_list": [
             {"net_layer": 0, "net_instance_id": "a"}]}]})",
       "rank_count says 2 ranks, list holds 1"},
      {R"({"version": "2.0", "rank_count": 1, "rank_list": [
           {"rank_id": -1, "device_id": 0, "level_list": [
             {"net_layer": 0, "net_instance_id": "a"}]}]})",
       "rank_list[0].rank_id: expected a non-negative integer"},
      {R"({"version": "2.0", "rank_count": 1, "rank_list": [
           {"rank_id": 0, "device_id": 0}]})",
       "rank_list[0].level_list: missing"},
      {R"({"version": "2.0", "rank_count": 1, "rank_list": [
           {"rank_id": 0, "device_id": 0, "level_list": [
             {"net_layer": 0, "net_instance_id": "a", "rank_addr_list": [
               {"addr_type": "IPV4", "addr": "1.2.3"}]}]}]})",
       "rank_addr_list[0].addr: '1.2.3' is not an IPV4 address"},
      {R"({"group_list": [{"instance_list": [
           {"server_id": "s", "devices": [{"device_id": "0"}]},
           {"server_id": "s", "devices": [{"device_id": "0"}]}]}]})",
       "devices[0].device_id: duplicate device 0 on server 's'"},
      // Found by fuzz-rank-table: this threw out of the reader.
      {R"({"group_list": [{"group_name": ["w"], "instance_list": [
           {"server_id": "s", "devices": [{"device_id": "0"}]}]}]})",
       "group_list[0].group_name: expected a string"},
  };
  for (auto &c : cases) {
    auto r = Topology::fromRankTable(c.text);
    ASSERT_FALSE(r.isOk()) << c.text;
    EXPECT_NE(r.message().find(c.expect), std::string::npos)
        << "got: " << r.message();
  }
}

} // namespace
