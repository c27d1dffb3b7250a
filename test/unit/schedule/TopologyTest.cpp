//===- TopologyTest.cpp - Presets, rank tables, link parameters -----------===//
#include "hccl-mlir/schedule/Topology.h"
#include "hccl-mlir/schedule/Plan.h"

#include <gtest/gtest.h>

using namespace hccl::sched;

namespace {

TEST(Topology, Presets) {
  auto one = Topology::preset("910b-8");
  ASSERT_TRUE(one.isOk());
  EXPECT_EQ(one->worldSize(), 8);
  EXPECT_EQ(one->intra.cls, LinkClass::HCCS);
  EXPECT_DOUBLE_EQ(one->intra.bandwidthGBps, 56.0);
  EXPECT_EQ(one->intra.ports, 7);
  auto four = Topology::preset("910b-8x4");
  ASSERT_TRUE(four.isOk());
  EXPECT_EQ(four->worldSize(), 32);
  EXPECT_EQ(four->servers, 4);
  EXPECT_EQ(four->inter.cls, LinkClass::RoCE);
  EXPECT_DOUBLE_EQ(four->inter.bandwidthGBps, 25.0); // 200 GbE
  EXPECT_TRUE(four->sameServer(8, 15));
  EXPECT_FALSE(four->sameServer(7, 8));
  EXPECT_EQ(&four->linkBetween(0, 9), &four->inter);
  // 910D servers: the 910B's mesh, twice its RoCE bandwidth per NPU.
  auto d = Topology::preset("910d-8x128");
  ASSERT_TRUE(d.isOk());
  EXPECT_EQ(d->worldSize(), 1024);
  EXPECT_EQ(d->name, "910d-8x128");
  EXPECT_EQ(d->intra, one->intra);
  EXPECT_EQ(d->inter.cls, LinkClass::RoCE);
  EXPECT_DOUBLE_EQ(d->inter.bandwidthGBps, 50.0); // 400 Gb/s
  EXPECT_EQ(d->inter.ports, 1);
  EXPECT_EQ(Topology::preset("910d-8")->worldSize(), 8);
  auto host = Topology::preset("host");
  ASSERT_TRUE(host.isOk());
  EXPECT_EQ(host->intra.cls, LinkClass::SHM);
  EXPECT_EQ(Topology::preset("host-3")->worldSize(), 3);
  for (const char *bad : {"910b", "910b-8x0", "910b-8x", "910b-80", "910d-8x",
                          "910d-8y2", "910d-8x4097", "host-0", "h100"}) {
    auto r = Topology::preset(bad);
    ASSERT_FALSE(r.isOk()) << bad;
    EXPECT_NE(r.message().find("accepted forms"), std::string::npos);
  }
}

const char *kTable = R"({
  "version": "1.0", "status": "completed", "server_count": "2",
  "server_list": [
    {"server_id": "10.0.0.1", "device": [
      {"device_id": "0", "device_ip": "192.168.1.1", "rank_id": "0"},
      {"device_id": "1", "device_ip": "192.168.1.2", "rank_id": "1"}]},
    {"server_id": "10.0.0.2", "device": [
      {"device_id": "0", "device_ip": "192.168.2.1", "rank_id": "2"},
      {"device_id": "1", "device_ip": "192.168.2.2", "rank_id": "3"}]}]})";

TEST(Topology, RankTable) {
  auto t = Topology::fromRankTable(kTable);
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->servers, 2);
  EXPECT_EQ(t->devicesPerServer, 2);
  EXPECT_EQ(t->worldSize(), 4);
  EXPECT_TRUE(t->isUniformServerMajor());
  EXPECT_EQ(t->serverOf(3), 1);
  ASSERT_EQ(t->deviceIps.size(), 4u);
  EXPECT_EQ(t->deviceIps[2], "192.168.2.1");
  // Interleaved ranks keep an explicit mapping.
  std::string inter = kTable;
  inter.replace(inter.find("\"rank_id\": \"1\""), 14, "\"rank_id\": \"X\"");
  inter.replace(inter.find("\"rank_id\": \"2\""), 14, "\"rank_id\": \"1\"");
  inter.replace(inter.find("\"rank_id\": \"X\""), 14, "\"rank_id\": \"2\"");
  auto t2 = Topology::fromRankTable(inter);
  ASSERT_TRUE(t2.isOk()) << t2.message();
  EXPECT_FALSE(t2->isUniformServerMajor());
  EXPECT_EQ(t2->serverOf(1), 1);
  EXPECT_EQ(t2->serverOf(2), 0);
  // Link parameters on top.
  auto t3 = Topology::fromRankTable(
      kTable, R"({"inter": {"class": "tcp", "bandwidth_gbps": 1.25,
                 "latency_us": 30}, "reduce_gbps": 8})");
  ASSERT_TRUE(t3.isOk()) << t3.message();
  EXPECT_EQ(t3->inter.cls, LinkClass::TCP);
  EXPECT_DOUBLE_EQ(t3->inter.latencyUs, 30.0);
  EXPECT_DOUBLE_EQ(t3->reduceGBps, 8.0);
}

TEST(Topology, MalformedRankTablesNameTheProblem) {
  struct {
    std::string text;
    const char *expect;
  } cases[] = {
      {"{", "rank table: malformed JSON"},
      {"[]", "rank table: expected a JSON object at the top"},
      {R"({"server_count": "1", "server_list": []})",
       "rank table.version: missing"},
      {R"({"version": "3.0", "server_count": "1", "server_list": []})",
       "rank table.version: unsupported version '3.0'"},
      {R"({"version": 1.0, "server_count": "1", "server_list": []})",
       "rank table.version: expected a string"},
      {R"({"version": "1.0", "status": "initializing", "server_count": "1",
           "server_list": []})",
       "rank table.status: expected \"completed\""},
      {R"({"version": "1.0", "server_count": "two", "server_list": []})",
       "rank table.server_count: expected a positive integer string"},
      {R"({"version": "1.0", "server_count": "2", "server_list": [
           {"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"}]}]})",
       "server_count says 2 servers, list holds 1"},
      {R"({"version": "1.0", "server_count": "1", "server_list": {}})",
       "rank table.server_list: missing or not an array"},
      {R"({"version": "1.0", "server_count": "2", "server_list": [
           {"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"}]},
           {"server_id": "a", "device": [{"device_id": "0", "rank_id": "1"}]}]})",
       "server_list[1].server_id: duplicate server 'a'"},
      {R"({"version": "1.0", "server_count": "1", "server_list": [
           {"server_id": "a", "device": []}]})",
       "server_list[0].device: missing, empty or not an array"},
      {R"({"version": "1.0", "server_count": "1", "server_list": [
           {"server_id": "a", "device": [{"device_id": 0, "rank_id": "0"}]}]})",
       "server_list[0].device[0].device_id: expected a string"},
      {R"({"version": "1.0", "server_count": "1", "server_list": [
           {"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"},
                                         {"device_id": "0", "rank_id": "1"}]}]})",
       "server_list[0].device[1].device_id: duplicate device 0"},
      {R"({"version": "1.0", "server_count": "1", "server_list": [
           {"server_id": "a", "device": [{"device_id": "0", "rank_id": "-1"}]}]})",
       "device[0].rank_id: expected a non-negative integer string"},
      {R"({"version": "1.0", "server_count": "1", "server_list": [
           {"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"},
                                         {"device_id": "1", "rank_id": "0"}]}]})",
       "rank_id: rank 0 appears twice"},
      {R"({"version": "1.0", "server_count": "1", "server_list": [
           {"server_id": "a", "device": [{"device_id": "0", "rank_id": "0"},
                                         {"device_id": "1", "rank_id": "2"}]}]})",
       "rank ids must be 0..1 without gaps; highest is 2"},
      {R"({"version": "1.0", "server_count": "1", "server_list": [
           {"server_id": "a", "device": [{"device_id": "0"}]}]})",
       "device[0].rank_id: missing"},
  };
  for (auto &c : cases) {
    auto r = Topology::fromRankTable(c.text);
    ASSERT_FALSE(r.isOk()) << c.text;
    EXPECT_NE(r.message().find(c.expect), std::string::npos)
        << "got: " << r.message();
  }
}

TEST(Topology, MalformedLinkParameters) {
  struct {
    const char *text;
    const char *expect;
  } cases[] = {
      {"{", "link parameters: malformed JSON"},
      {R"({"intra": {"class": "nvlink"}})", "intra.class: unknown link class"},
      {R"({"intra": {"bandwidth_gbps": -1}})",
       "intra.bandwidth_gbps: expected a positive number"},
      {R"({"inter": {"ports": 0}})",
       "inter.ports: expected an integer in 1..64"},
      {R"({"inter": {"speed": 1}})", "inter.speed: unknown key"},
      {R"({"color": 1})",
       "link parameters: color: unknown key (expected "
       "intra, inter, scaleup, intra_shape, reduce_gbps, "
       "collective_overhead_us, collective_wakeup_us, "
       "collective_wakeup_idle_us, cache_bytes, past_cache_factor, "
       "compute_steal_us_per_mb, calibrated, version)"},
      {R"({"calibrated": "ahead"})", "calibrated: expected an object"},
      {R"({"collective_wakeup_us": -5})",
       "collective_wakeup_us: expected a number >= 0"},
      {R"({"collective_wakeup_us": 20, "collective_wakeup_idle_us": -1})",
       "collective_wakeup_idle_us: expected a number >= 0"},
      {R"({"collective_wakeup_idle_us": 1000})",
       "a collective wake-up idle needs a collective wake-up"},
      {R"({"cache_bytes": -1})", "cache_bytes: expected a number >= 0"},
      {R"({"cache_bytes": 1048576, "past_cache_factor": 0.5})",
       "past_cache_factor: expected a number >= 1"},
      {R"({"cache_bytes": 1048576, "past_cache_factor": 5000})",
       "past_cache_factor: expected at most 1000"},
      {R"({"past_cache_factor": 2})", "past_cache_factor: needs cache_bytes"},
      // Several knees: two arrays of equal length, bytes ascending.
      {R"({"cache_bytes": [1048576, 8388608], "past_cache_factor": 2})",
       "past_cache_factor: 1 factors for 2 knees in cache_bytes"},
      {R"({"cache_bytes": [8388608, 1048576], "past_cache_factor": [2, 3]})",
       "cache_bytes: the knees must ascend (1048576 after 8388608)"},
      {R"({"cache_bytes": [1048576, 1048576], "past_cache_factor": [2, 3]})",
       "cache_bytes: the knees must ascend"},
      {R"({"cache_bytes": [1048576, -1], "past_cache_factor": [2, 3]})",
       "cache_bytes[1]: expected a number >= 0"},
      {R"({"cache_bytes": [1048576, "8M"], "past_cache_factor": [2, 3]})",
       "cache_bytes[1]: expected a number >= 0"},
      {R"({"cache_bytes": [1, 2], "past_cache_factor": [2, 0.5]})",
       "past_cache_factor[1]: expected a number >= 1"},
      {R"({"cache_bytes": [1, 2], "past_cache_factor": [2, 1001]})",
       "past_cache_factor[1]: expected at most 1000"},
      {R"({"cache_bytes": [0, 2], "past_cache_factor": [2, 3]})",
       "cache_bytes[0]: a knee needs bytes above 0"},
      {R"({"cache_bytes": 0, "past_cache_factor": 2})",
       "cache_bytes: a knee needs bytes above 0"},
      {R"({"cache_bytes": [], "past_cache_factor": []})",
       "cache_bytes: expected a number or 1..8 numbers, one per knee"},
      {R"({"cache_bytes": [1, 2, 3, 4, 5, 6, 7, 8, 9]})",
       "cache_bytes: expected a number or 1..8 numbers"},
      {R"({"compute_steal_us_per_mb": -1})",
       "compute_steal_us_per_mb: expected a number >= 0"},
      {R"({"compute_steal_us_per_mb": 2e6})",
       "compute_steal_us_per_mb: expected at most 1e6"},
      {R"({"compute_steal_us_per_mb": "95"})",
       "compute_steal_us_per_mb: expected a number"},
      {R"({"intra_shape": "torus"})", "intra_shape: expected \"mesh\" or "
                                      "\"ring\""},
      // Figures for a level the topology does not have are a mistake.
      {R"({"scaleup": {"bandwidth_gbps": 90}})",
       "scaleup: the topology has no super pods"},
  };
  for (auto &c : cases) {
    Topology t = *Topology::preset("910b-8");
    Status s = t.applyLinkParams(c.text);
    ASSERT_FALSE(s.isOk()) << c.text;
    EXPECT_NE(s.message().find(c.expect), std::string::npos)
        << "got: " << s.message();
  }
}

// A preset name promises the preset's figures: changed figures make the
// topology custom (else printers that name presets would drop them).
TEST(Topology, ChangedLinkParametersLeaveThePreset) {
  Topology same = *Topology::preset("host-4");
  ASSERT_TRUE(same.applyLinkParams(R"({"reduce_gbps": 4.0})").isOk());
  EXPECT_EQ(same.name, "host-4");
  Topology changed = *Topology::preset("host-4");
  ASSERT_TRUE(
      changed.applyLinkParams(R"({"intra": {"latency_us": 50}})").isOk());
  EXPECT_EQ(changed.name, "");
  EXPECT_EQ(changed.intra.latencyUs, 50.0);
  EXPECT_EQ(changed.devicesPerServer, 4);
}

// A list that fails to read leaves the knees the topology had.
TEST(Topology, ABadKneeListLeavesTheKnees) {
  Topology t = *Topology::preset("host-2");
  ASSERT_TRUE(t.applyLinkParams(R"({"cache_bytes": 1048576,
                                    "past_cache_factor": 2})")
                  .isOk());
  std::vector<CacheKnee> before = t.cacheKnees;
  EXPECT_FALSE(t.applyLinkParams(R"({"cache_bytes": [2097152, 1048576],
                                     "past_cache_factor": [3, 4]})")
                   .isOk());
  EXPECT_TRUE(t.cacheKnees == before);
}

// calibrate_host.py says how it measured; the figures are read, that is not.
TEST(Topology, CalibrationProvenanceIsAcceptedNotPriced) {
  Topology with = *Topology::preset("host-2"), without = with;
  ASSERT_TRUE(with.applyLinkParams(R"({"reduce_gbps": 7,
                                       "calibrated": {"issue": "ahead",
                                                      "ranks": 2}})")
                  .isOk());
  ASSERT_TRUE(without.applyLinkParams(R"({"reduce_gbps": 7})").isOk());
  EXPECT_TRUE(with == without);
}

// A plan's "topology" and a link-parameter file carry the same figures and
// are read by one reader: each value is accepted by both, with the same
// result, or rejected by both with the same message. A zero-latency link
// is a valid model input (a pure-bandwidth study); negative is not.
TEST(Topology, PlanAndLinkParameterReadersAgree) {
  const char *fields[] = {
      R"("inter": {"latency_us": 0})",
      R"("inter": {"latency_us": 2.5, "ports": 64})",
      R"("inter": {"latency_us": -1})",
      R"("inter": {"latency_us": "1"})",
      R"("intra": {"bandwidth_gbps": 1e-12})",
      R"("intra": {"bandwidth_gbps": 0})",
      R"("intra": {"bandwidth_gbps": -3})",
      R"("intra": {"ports": 0})",
      R"("intra": {"ports": 1.5})",
      R"("intra": {"class": "tcp"})",
      R"("intra": {"class": "nvlink"})",
      R"("intra": {"speed": 1})",
      R"("intra": [1])",
      R"("intra_shape": "ring")",
      R"("intra_shape": "torus")",
      R"("reduce_gbps": 0)",
      R"("reduce_gbps": 8)",
      R"("cache_bytes": 1048576, "past_cache_factor": 2)",
      R"("cache_bytes": [1048576, 33554432], "past_cache_factor": [2, 3.5])",
      R"("cache_bytes": [1048576], "past_cache_factor": 2)",
      R"("cache_bytes": [1048576, 33554432])",
      R"("cache_bytes": 0, "past_cache_factor": 1)",
      R"("cache_bytes": [0], "past_cache_factor": [1])",
      R"("cache_bytes": [1048576, 33554432], "past_cache_factor": [2])",
      R"("cache_bytes": [33554432, 1048576], "past_cache_factor": [2, 3])",
      R"("cache_bytes": [1048576, 0], "past_cache_factor": [2, 3])",
      R"("cache_bytes": [1, 2], "past_cache_factor": [2, 1001])",
  };
  for (const char *f : fields) {
    Topology file = *Topology::preset("910b-8x2");
    Status fs = file.applyLinkParams(std::string("{") + f + "}");
    auto plan =
        topologyFromJson(std::string(R"({"name": "910b-8x2", )") + f + "}");
    ASSERT_EQ(fs.isOk(), plan.isOk())
        << f << "\n  link parameters: " << (fs ? "ok" : fs.message())
        << "\n  plan: " << (plan ? "ok" : plan.message());
    if (fs) {
      EXPECT_TRUE(file.intra == plan->intra && file.inter == plan->inter &&
                  file.intraShape == plan->intraShape &&
                  file.reduceGBps == plan->reduceGBps &&
                  file.cacheKnees == plan->cacheKnees)
          << f;
      continue;
    }
    const std::string fp = "link parameters: ", pp = "topology.";
    ASSERT_EQ(fs.message().rfind(fp, 0), 0u) << fs.message();
    ASSERT_EQ(plan.message().rfind(pp, 0), 0u) << plan.message();
    EXPECT_EQ(fs.message().substr(fp.size()), plan.message().substr(pp.size()))
        << f;
  }
  Topology t = *Topology::preset("910b-8x2");
  ASSERT_TRUE(t.applyLinkParams(R"({"inter": {"latency_us": 0}})").isOk());
  EXPECT_EQ(t.inter.latencyUs, 0.0);
  Status neg = t.applyLinkParams(R"({"inter": {"latency_us": -1}})");
  EXPECT_EQ(neg.message(), "link parameters: inter.latency_us: expected a "
                           "number >= 0, found -1");
}

TEST(Topology, JsonRoundTrip) {
  Topology t = *Topology::preset("910b-8x2");
  t.intra.latencyUs = 0.75;
  auto back = topologyFromJson(topologyToJson(t));
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_TRUE(*back == t);
  auto bad = topologyFromJson(R"({"servers": 0})");
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find(
                "topology.servers: expected an integer in 1..1048576, found 0"),
            std::string::npos)
      << bad.message();
}

TEST(Topology, Hosts) {
  // One host is the host-N preset.
  auto one = Topology::hosts({0, 0, 0});
  ASSERT_TRUE(one.isOk()) << one.message();
  EXPECT_EQ(*one, *Topology::preset("host-3"));
  // Hosts as servers, the preset's TCP link between them.
  auto two = Topology::hosts({0, 0, 1, 1});
  ASSERT_TRUE(two.isOk()) << two.message();
  EXPECT_EQ(two->servers, 2);
  EXPECT_EQ(two->devicesPerServer, 2);
  EXPECT_TRUE(two->rankServer.empty()) << "server-major needs no mapping";
  EXPECT_EQ(two->inter, Topology::preset("host-4")->inter);
  EXPECT_EQ(two->inter.cls, LinkClass::TCP);
  EXPECT_EQ(two->intra.cls, LinkClass::SHM);
  auto mixed = Topology::hosts({0, 1, 0});
  ASSERT_TRUE(mixed.isOk());
  EXPECT_EQ(mixed->rankServer, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(mixed->devicesPerServer, 2);
  EXPECT_EQ(mixed->serverOf(2), 0);
  for (std::vector<int> bad : {std::vector<int>{}, {0, 2, 2}, {0, -1}})
    EXPECT_FALSE(Topology::hosts(bad).isOk());
}

} // namespace
