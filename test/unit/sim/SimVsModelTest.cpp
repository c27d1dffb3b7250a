//===- SimVsModelTest.cpp - hccl-sim against the cost model ---------------===//
//
// Where the platform has no contention the simulation must reproduce
// lib/schedule's alpha-beta-gamma prices (one transfer = latency + bytes /
// bandwidth; ring and RHD step by step); where links are slowed or shared
// it must be slower by the factor the changed links imply. Expected values
// are computed here from the same Topology and programs, never written in.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Topology.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <tuple>
#include <vector>

using namespace hccl::sched;

namespace {

// Uncontended cases agree to rounding; 1% is the issue's bound.
constexpr double kTolerance = 0.01;

struct SimRun {
  int status = -1;
  std::string out;
};

SimRun runSim(const std::string &args) {
  SimRun r;
  std::string cmd = std::string(HCCL_SIM_BIN) + " " + args + " 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p)
    return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// sim_us of collective 0 (column 7 of the report).
double simUs(const std::string &args) {
  SimRun r = runSim(args);
  EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::vector<std::string> tok;
    for (std::string t; f >> t;)
      tok.push_back(t);
    if (tok.size() >= 8 && tok[0] == "0")
      return std::stod(tok[6]);
  }
  ADD_FAILURE() << "no result line in:\n" << r.out;
  return -1;
}

std::string request(const std::string &coll, const std::string &algo, int64_t p,
                    int64_t n) {
  return "--collective " + coll + " --algo " + algo + " --ranks " +
         std::to_string(p) + " --count " + std::to_string(n);
}

double modelUs(Collective c, Algorithm a, int64_t p, int64_t n,
               const Topology &topo, Algorithm level0 = Algorithm::Ring,
               Algorithm level1 = Algorithm::Ring) {
  GenerateRequest g;
  g.collective = c;
  g.algorithm = a;
  g.level0 = level0;
  g.level1 = level1;
  g.ranks = p;
  g.count = n;
  g.ranksPerServer = topo.devicesPerServer;
  auto prog = generate(g);
  EXPECT_TRUE(prog) << prog.message();
  auto cost = predictCost(*prog, topo);
  EXPECT_TRUE(cost) << cost.message();
  return cost->seconds * 1e6;
}

/// Writes a rank table to `path` (for hccl-sim --rank-table) and reads it
/// as the test's topology.
Topology writeRankTable(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
  auto t = Topology::fromRankTable(text);
  EXPECT_TRUE(t) << t.message();
  return t ? *t : Topology();
}

/// An all-gather of 64 MiB over the 2 ranks of `table`: one transfer each
/// way, latency + bytes / bandwidth of `link`.
void expectOneTransfer(const std::string &table, const LinkParams &link) {
  int64_t n = int64_t(1) << 24;
  double bytes = static_cast<double>(n) * 4;
  double expect = (link.alpha() + bytes * link.beta()) * 1e6;
  double got =
      simUs(request("allgather", "ring", 2, n) + " --rank-table " + table);
  EXPECT_NEAR(got, expect, expect * kTolerance);
}

Topology preset(const std::string &name) {
  auto t = Topology::preset(name);
  EXPECT_TRUE(t) << t.message();
  return *t;
}

TEST(SimVsModel, SingleIntraTransferIsLatencyPlusBytesOverBandwidth) {
  // All-gather over 2 ranks: one step, one transfer each way.
  Topology t = preset("910b-8");
  for (int64_t n : {int64_t(256), int64_t(1) << 20, int64_t(1) << 26}) {
    double bytes = static_cast<double>(n) * 4;
    double expect = (t.intra.alpha() + bytes * t.intra.beta()) * 1e6;
    double got =
        simUs(request("allgather", "ring", 2, n) + " --topology 910b-8");
    EXPECT_NEAR(got, expect, expect * kTolerance) << "n=" << n;
  }
}

TEST(SimVsModel, SingleInterTransferIsLatencyPlusBytesOverBandwidth) {
  // Two servers of one NPU each: the transfer crosses both NICs and the
  // leaf switch.
  std::string table = testing::TempDir() + "/sim-2x1.json";
  Topology t = writeRankTable(table, R"({"status": "completed",
    "version": "1.0", "server_count": "2", "server_list": [
    {"server_id": "a", "device": [{"device_id": "0",
      "device_ip": "10.0.0.1", "rank_id": "0"}]},
    {"server_id": "b", "device": [{"device_id": "0",
      "device_ip": "10.0.0.2", "rank_id": "1"}]}]})");
  ASSERT_EQ(t.servers, 2);
  expectOneTransfer(table, t.inter);
}

TEST(SimVsModel, RingAndRhdOnOneServerEqualTheCostModel) {
  Topology t = preset("910b-8");
  for (int64_t n : {int64_t(256), int64_t(1) << 18, int64_t(1) << 24})
    for (auto [name, algo] : {std::pair{"ring", Algorithm::Ring},
                              std::pair{"rhd", Algorithm::RHD}}) {
      double expect = modelUs(Collective::AllReduce, algo, 8, n, t);
      double got =
          simUs(request("allreduce", name, 8, n) + " --topology 910b-8");
      EXPECT_NEAR(got, expect, expect * kTolerance) << name << " n=" << n;
    }
}

// host-4: one port per rank on shared memory, where the receiver copies:
// a star broadcast's three receives run at once (the root's sends share no
// port), as the model prices it; the ring and a mesh all-gather, whose
// ranks send what they receive, agree as before.
TEST(SimVsModel, SharedMemoryReceiversCopyAtOnce) {
  Topology t = preset("host-4");
  ASSERT_TRUE(t.intra.receiverCopies());
  const int64_t n = int64_t(1) << 20;
  double star = modelUs(Collective::Broadcast, Algorithm::Star, 4, n, t);
  double bytes = static_cast<double>(n) * 4;
  EXPECT_NEAR(star, (t.intra.alpha() + bytes * t.intra.beta()) * 1e6,
              star * 1e-9);
  EXPECT_NEAR(simUs(request("broadcast", "star", 4, n) + " --topology host-4"),
              star, star * kTolerance);
  for (auto [coll, name, c, a] :
       {std::tuple{"allreduce", "ring", Collective::AllReduce, Algorithm::Ring},
        std::tuple{"allgather", "mesh", Collective::AllGather,
                   Algorithm::MeshTwoShot}}) {
    double expect = modelUs(c, a, 4, n, t);
    EXPECT_NEAR(simUs(request(coll, name, 4, n) + " --topology host-4"), expect,
                expect * kTolerance)
        << coll << " " << name;
  }
}

TEST(SimVsModel, RhdAgainstRingGoesTheWayTheModelSays) {
  Topology t = preset("910b-8");
  for (int64_t n : {int64_t(256), int64_t(1) << 20}) {
    double mRing = modelUs(Collective::AllReduce, Algorithm::Ring, 8, n, t);
    double mRhd = modelUs(Collective::AllReduce, Algorithm::RHD, 8, n, t);
    double sRing =
        simUs(request("allreduce", "ring", 8, n) + " --topology 910b-8");
    double sRhd =
        simUs(request("allreduce", "rhd", 8, n) + " --topology 910b-8");
    ASSERT_NE(mRing, mRhd);
    EXPECT_EQ(sRhd < sRing, mRhd < mRing) << "n=" << n;
  }
}

TEST(SimVsModel, SlowNicSlowsAFlatRingAsThatLinkImplies) {
  // A ring over two servers crosses the NICs of ranks 7 and 15; with rank
  // 7's at half its bandwidth every step waits for that edge, which is the
  // model's ring with every inter-server link at half bandwidth.
  Topology t = preset("910b-8x2");
  Topology half = t;
  half.inter.bandwidthGBps *= 0.5;
  int64_t n = int64_t(1) << 24;
  std::string req =
      request("allreduce", "ring", 16, n) + " --topology 910b-8x2";
  double fast = simUs(req);
  double slow = simUs(req + " --slow-link nic:7:0.5");
  double expectFast = modelUs(Collective::AllReduce, Algorithm::Ring, 16, n, t);
  double expectSlow =
      modelUs(Collective::AllReduce, Algorithm::Ring, 16, n, half);
  EXPECT_NEAR(fast, expectFast, expectFast * kTolerance);
  EXPECT_NEAR(slow, expectSlow, expectSlow * kTolerance);
  EXPECT_GT(slow / fast, 1.5);
  // The hierarchical schedule sends only 1/8 of the data over the NICs, so
  // the same NIC costs it less, in proportion.
  std::string hier =
      request("allreduce", "hierarchical", 16, n) + " --topology 910b-8x2";
  double hFast = simUs(hier), hSlow = simUs(hier + " --slow-link nic:7:0.5");
  EXPECT_LT(hSlow / hFast, slow / fast);
}

TEST(SimVsModel, OversubscribedUplinkSharesItsBandwidth) {
  // One server per leaf: the 8 inter-server rings of a hierarchical
  // all-reduce share one uplink of 8 x 25 GB/s / 4, a quarter of a NIC per
  // flow, which is the model with the inter link at a quarter.
  Topology t = preset("910b-8x2");
  Topology quarter = t;
  quarter.inter.bandwidthGBps *= 0.25;
  int64_t n = int64_t(1) << 24;
  std::string req = request("allreduce", "hierarchical", 16, n) +
                    " --topology 910b-8x2 --servers-per-leaf 1";
  double open = simUs(req);
  double shared = simUs(req + " --oversubscription 4");
  double expectOpen =
      modelUs(Collective::AllReduce, Algorithm::Hierarchical, 16, n, t);
  double expectShared =
      modelUs(Collective::AllReduce, Algorithm::Hierarchical, 16, n, quarter);
  EXPECT_NEAR(open, expectOpen, expectOpen * kTolerance);
  EXPECT_NEAR(shared, expectShared, expectShared * kTolerance);
}

TEST(SimVsModel, RailsKeepSameRailTrafficOffTheSpine) {
  // Two servers on a rail-optimised fabric, spine oversubscribed 4:1. The
  // hierarchical all-reduce's inter-server rings join NPUs of one local
  // index, so of one rail: they never climb and run as on an open fabric.
  // A flat ring crosses rails on its edges 7->8 and 15->0, both from rail
  // 7's leaf to rail 0's: they share that leaf's uplink of 2 x 25 / 4 GB/s,
  // a quarter of a NIC each, which is the model with the inter link at a
  // quarter. A route through a peer's NIC (rank 7 over HCCS to rank 0, then
  // rail 0) would stay under one leaf and show no slowdown.
  Topology t = preset("910b-8x2");
  Topology quarter = t;
  quarter.inter.bandwidthGBps *= 0.25;
  int64_t n = int64_t(1) << 24;
  std::string rails = " --topology 910b-8x2 --fabric rail";
  double hier = simUs(request("allreduce", "hierarchical", 16, n) + rails +
                      " --oversubscription 4");
  double expectHier =
      modelUs(Collective::AllReduce, Algorithm::Hierarchical, 16, n, t);
  EXPECT_NEAR(hier, expectHier, expectHier * kTolerance);
  double open = simUs(request("allreduce", "ring", 16, n) + rails);
  double expectOpen = modelUs(Collective::AllReduce, Algorithm::Ring, 16, n, t);
  EXPECT_NEAR(open, expectOpen, expectOpen * kTolerance);
  double climbed = simUs(request("allreduce", "ring", 16, n) + rails +
                         " --oversubscription 4");
  double expectClimbed =
      modelUs(Collective::AllReduce, Algorithm::Ring, 16, n, quarter);
  EXPECT_NEAR(climbed, expectClimbed, expectClimbed * kTolerance);
  // Two NPUs of one server still talk over HCCS, not over two rails.
  Topology one = preset("910b-8");
  double intra = simUs(request("allgather", "ring", 2, n) + rails);
  double expectIntra = (one.intra.alpha() + n * 4.0 * one.intra.beta()) * 1e6;
  EXPECT_NEAR(intra, expectIntra, expectIntra * kTolerance);
}

// At 1:1 a same-rail ring never meets another flow on either fabric, so a
// slow NIC costs the hierarchical all-reduce (one inter-server ring per
// local rank) the same on rails as on the fat tree. The rails' HCCS edges
// carry padding links; when those were two FATPIPE links shared by every
// edge, SimGrid held all HCCS flows to one rate, the servers' rings fell
// out of step, and the slow NIC cost the rails nothing here.
TEST(SimVsModel, RailsPaddingDoesNotCoupleHccsFlows) {
  std::string req = request("allreduce", "hierarchical", 16, int64_t(1) << 24) +
                    " --topology 910b-8x2 --slow-link nic:7:0.5";
  double fatTree = simUs(req);
  double rails = simUs(req + " --fabric rail");
  EXPECT_NEAR(rails, fatTree, fatTree * kTolerance);
}

/// hccl-sim refuses `args` as bad input (exit 2), saying `message`.
void expectRefused(const std::string &args, const std::string &message) {
  SimRun r = runSim(args);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << r.out;
}

TEST(SimVsModel, BadFabricIsRefused) {
  expectRefused(request("allreduce", "ring", 16, 1024) +
                    " --topology 910b-8x2 --fabric torus",
                "--fabric 'torus': expected fat-tree or rail");
}

TEST(SimVsModel, StacksWithoutGuardPagesBeyondTheMappingLimit) {
  // A plan needing more actors at once than the process may map with
  // guarded stacks runs on unguarded ones (SimGrid aborted before) and
  // gives the same times. The limit is lowered here instead of building a
  // plan of 30k actors.
  const std::string req =
      request("allgather", "hierarchical", 16, 4096) + " --topology 910b-8x2";
  SimRun guarded = runSim(req + " --max-map-count 1000000");
  SimRun bare = runSim(req + " --max-map-count 4096");
  ASSERT_EQ(guarded.status, 0) << guarded.out;
  ASSERT_EQ(bare.status, 0) << bare.out;
  EXPECT_EQ(guarded.out.find("without guard pages"), std::string::npos)
      << guarded.out;
  // 16 rank actors and one collective each.
  EXPECT_NE(bare.out.find("32 actors at once, beyond vm.max_map_count"),
            std::string::npos)
      << bare.out;
  // Streams are made as collectives need them: one collective, one
  // stream, however many are allowed.
  SimRun many = runSim(req + " --max-map-count 4096 --streams 8");
  EXPECT_NE(many.out.find("32 actors at once"), std::string::npos) << many.out;
  EXPECT_DOUBLE_EQ(simUs(req + " --max-map-count 4096"),
                   simUs(req + " --max-map-count 1000000"));
  SimRun zero = runSim(req + " --max-map-count 0");
  EXPECT_EQ(zero.status, 2) << zero.out;
}

TEST(SimVsModel, MessagesToOnePeerAreOneTransferAtTheSameTime) {
  // A hierarchical all-gather's inner steps send one block per server to
  // the same neighbour: one message each step, and the time the model
  // prices (which counts them as one message too).
  Topology t = preset("910b-8x4");
  SimRun r = runSim(request("allgather", "hierarchical", 32, 64) +
                    " --level0 ring --level1 ring --topology 910b-8x4");
  ASSERT_EQ(r.status, 0) << r.out;
  // 32 ranks x (3 inter + 7 intra steps), one message each.
  EXPECT_NE(r.out.find("32 ranks, 320 steps, 320 transfers"), std::string::npos)
      << r.out;
  double model = modelUs(Collective::AllGather, Algorithm::Hierarchical, 32, 64,
                         t, Algorithm::Ring, Algorithm::Ring);
  EXPECT_NEAR(simUs(request("allgather", "hierarchical", 32, 64) +
                    " --level0 ring --level1 ring --topology 910b-8x4"),
              model, model * kTolerance);
}

TEST(SimVsModel, LatencySpikesOnOneNicDelayEveryRingStep) {
  // A spike on every message through rank 7's NIC: each ring step waits
  // for the edge 7->8, as if every inter-server link had that much more
  // latency. Half the messages: repeatable for a seed, and in between.
  Topology t = preset("910b-8x2");
  Topology later = t;
  later.inter.latencyUs += 10;
  int64_t n = int64_t(1) << 24;
  std::string req =
      request("allreduce", "ring", 16, n) + " --topology 910b-8x2";
  double always = simUs(req + " --jitter nic:7:1:10");
  double expect = modelUs(Collective::AllReduce, Algorithm::Ring, 16, n, later);
  EXPECT_NEAR(always, expect, expect * kTolerance);
  double none = simUs(req);
  double half = simUs(req + " --jitter nic:7:0.5:10 --seed 7");
  EXPECT_EQ(half, simUs(req + " --jitter nic:7:0.5:10 --seed 7"));
  EXPECT_GT(half, none);
  EXPECT_LT(half, always);
}

TEST(SimVsModel, FailedLinkOnTheRouteStopsTheCollective) {
  std::string req =
      request("allreduce", "ring", 8, 1024) + " --topology 910b-8";
  SimRun crossed = runSim(req + " --fail-link hccs:0:1");
  EXPECT_EQ(crossed.status, 1) << crossed.out;
  EXPECT_NE(crossed.out.find("failed link"), std::string::npos) << crossed.out;
  // The ring 0->1->...->7->0 never uses 0<->2.
  SimRun unused = runSim(req + " --fail-link hccs:0:2");
  EXPECT_EQ(unused.status, 0) << unused.out;
}

// --borrow-nic (HCCL's rail borrowing): rank 7's traffic to the other
// server leaves through rank 6's NIC, and its peer's arrives through its
// own backup's (both ends switch). The flat ring's one edge out of rank 7
// (7 -> 8) then crosses HCCS 7->6, NIC 6, NIC 9 and HCCS 9->8: the same
// bottleneck bandwidth and two more HCCS latencies, and no other edge of
// the ring uses those NICs. So it costs exactly the model's ring with the
// inter-server latency two HCCS hops longer.
TEST(SimVsModel, BorrowedNicAddsTwoHccsHopsToTheFlatRing) {
  Topology t = preset("910b-8x2");
  Topology longer = t;
  longer.inter.latencyUs += 2 * t.intra.latencyUs;
  int64_t n = int64_t(1) << 22;
  std::string req =
      request("allreduce", "ring", 16, n) + " --topology 910b-8x2";
  double borrowed = simUs(req + " --fail-link nic:7 --borrow-nic");
  double expect =
      modelUs(Collective::AllReduce, Algorithm::Ring, 16, n, longer);
  EXPECT_NEAR(borrowed, expect, expect * kTolerance);
  EXPECT_GT(borrowed,
            modelUs(Collective::AllReduce, Algorithm::Ring, 16, n, t) *
                (1 + kTolerance));
}

// The hierarchical all-reduce runs one inter-server ring per local rank:
// rank 6's and rank 7's rings both go through NIC 6 once rank 7 borrows
// it, so both move at half a NIC ("port conflict" in HCCL's words), a loss
// the flat ring does not have.
TEST(SimVsModel, BorrowedNicIsSharedByTheHierarchicalRings) {
  int64_t n = int64_t(1) << 24;
  std::string req =
      request("allreduce", "hierarchical", 16, n) + " --topology 910b-8x2";
  double fast = simUs(req);
  double borrowed = simUs(req + " --fail-link nic:7 --borrow-nic");
  double halfNic = simUs(req + " --slow-link nic:7:0.5");
  EXPECT_GT(borrowed / fast, 1.05);
  // What it loses is the half NIC's loss, within the two HCCS latencies
  // per step the detour adds.
  EXPECT_NEAR(borrowed, halfNic, halfNic * 0.05);
  std::string flat =
      request("allreduce", "ring", 16, n) + " --topology 910b-8x2";
  EXPECT_LT(simUs(flat + " --fail-link nic:7 --borrow-nic") / simUs(flat),
            1.05);
}

// A latency spike belongs to the NIC a message crosses: borrowed, rank
// 7's messages to the other server cross NIC 6 (and the peer's backup),
// not its failed own.
TEST(SimVsModel, JitterOnTheBorrowedNicDelaysTheBorrowedMessages) {
  std::string req = request("allreduce", "ring", 16, 1 << 18) +
                    " --topology 910b-8x2 --fail-link nic:7 --borrow-nic";
  double plain = simUs(req);
  EXPECT_GT(simUs(req + " --jitter nic:6:1:100"), plain + 100);
  EXPECT_DOUBLE_EQ(simUs(req + " --jitter nic:7:1:100"), plain);
}

TEST(SimVsModel, BorrowingNeedsOneFailedNicAndAWorkingDetour) {
  std::string req =
      request("allreduce", "ring", 16, 1 << 16) + " --topology 910b-8x2";
  SimRun none = runSim(req + " --borrow-nic");
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_NE(none.out.find("no NIC failed"), std::string::npos) << none.out;
  SimRun two = runSim(req + " --fail-link nic:7,nic:15 --borrow-nic");
  EXPECT_EQ(two.status, 2) << two.out;
  EXPECT_NE(two.out.find("one NIC per communicator"), std::string::npos)
      << two.out;
  // The detour's HCCS link failed too: the collective cannot complete,
  // and no rank hangs.
  SimRun detour = runSim(req + " --fail-link nic:7,hccs:7:6 --borrow-nic");
  EXPECT_EQ(detour.status, 1) << detour.out;
  EXPECT_NE(detour.out.find("failed link"), std::string::npos) << detour.out;
  // Without borrowing the failed NIC stops the ring.
  EXPECT_EQ(runSim(req + " --fail-link nic:7").status, 1);
}

// Super pods: a message between two servers of one pod crosses the pod's
// switch at one scale-up link's bandwidth, however wide the NPU's port.
// (SimGrid 3.32 dropped the per-message cap while the TCP window was 0:
// this pair then moved at the port's 7 links, 3x too fast.)
TEST(SimVsModel, ScaleUpMessageMovesAtOneLinksBandwidth) {
  std::string table = testing::TempDir() + "/sim-pod-2x1.json";
  Topology t = writeRankTable(table, R"({"status": "completed",
    "version": "1.2", "server_count": "2", "server_list": [
    {"server_id": "a", "device": [{"device_id": "0", "super_device_id": "0",
      "device_ip": "10.0.0.1", "rank_id": "0"}]},
    {"server_id": "b", "device": [{"device_id": "0", "super_device_id": "1",
      "device_ip": "10.0.0.2", "rank_id": "1"}]}],
    "super_pod_list": [{"super_pod_id": "7", "server_list": [
      {"server_id": "a"}, {"server_id": "b"}]}]})");
  ASSERT_EQ(t.tierBetween(0, 1), 1);
  expectOneTransfer(table, t.scaleUp);
}

TEST(SimVsModel, SuperPodsEqualTheCostModel) {
  // Rings and RHD inside one pod (every server pair on the scale-up bus)
  // and across two (the pods meet over RoCE), flat and hierarchical.
  const int64_t n = int64_t(1) << 22;
  for (const char *name : {"910d-8x4-pod4", "910d-8x4-pod2"}) {
    Topology t = preset(name);
    std::string top = std::string(" --topology ") + name;
    for (Algorithm a : {Algorithm::Ring, Algorithm::RHD}) {
      double model = modelUs(Collective::AllReduce, a, 32, n, t);
      double sim = simUs(request("allreduce", algorithmName(a), 32, n) + top);
      EXPECT_NEAR(sim, model, model * kTolerance)
          << name << " " << algorithmName(a);
    }
    double model = modelUs(Collective::AllReduce, Algorithm::Hierarchical, 32,
                           n, t, Algorithm::MeshTwoShot, Algorithm::Ring);
    double sim = simUs(request("allreduce", "hierarchical", 32, n) +
                       " --level0 mesh --level1 ring" + top);
    EXPECT_NEAR(sim, model, model * kTolerance) << name << " hierarchical";
  }
  // One pod beats RoCE between the same servers: 56 GB/s per link against
  // 50 per NIC, and the pod's ring never waits on a NIC.
  const std::string ring = request("allreduce", "ring", 32, n);
  EXPECT_LT(simUs(ring + " --topology 910d-8x4-pod4"),
            simUs(ring + " --topology 910d-8x4"));
  // Two pods: the ring's steps over RoCE bound it as without pods.
  EXPECT_NEAR(simUs(ring + " --topology 910d-8x4-pod2"),
              simUs(ring + " --topology 910d-8x4"),
              simUs(ring + " --topology 910d-8x4") * kTolerance);
}

TEST(SimVsModel, SlowBusPortSlowsTheStepsThatCrossIt) {
  // Rank 8's port on the pod's bus at 0.1: 39.2 GB/s, below the 56 of one
  // link. Its ring steps to rank 7 go at that, and a ring is as slow as
  // its slowest step: the same ring with every bus link at 39.2 GB/s.
  const std::string ring = request("allreduce", "ring", 32, int64_t(1) << 22) +
                           " --topology 910d-8x4-pod4";
  Topology t = preset("910d-8x4-pod4");
  const double slowGBps = 0.1 * t.scaleUp.bandwidthGBps * t.scaleUp.ports;
  std::string links = testing::TempDir() + "/sim-slow-bus.json";
  std::ofstream(links) << R"({"scaleup": {"bandwidth_gbps": )" << slowGBps
                       << "}}";
  double slowPort = simUs(ring + " --slow-link ub:8:0.1");
  double slowBus = simUs(ring + " --link-params " + links);
  EXPECT_GT(slowPort, 1.2 * simUs(ring));
  EXPECT_NEAR(slowPort, slowBus, slowBus * kTolerance);
  // A port at half its bandwidth (196 GB/s) is no slower than a link.
  EXPECT_NEAR(simUs(ring + " --slow-link ub:8:0.5"), simUs(ring),
              simUs(ring) * kTolerance);
  // A failed port stops the ring; a topology without pods has no ports.
  EXPECT_EQ(runSim(ring + " --fail-link ub:8").status, 1);
  expectRefused(request("allreduce", "ring", 32, 1024) +
                    " --topology 910d-8x4 --fail-link ub:8",
                "bus ports exist only in super pods");
}

} // namespace
