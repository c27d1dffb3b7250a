//===- verbs_units_test.cpp - Pieces of the verbs transport ---------------===//
//
// GID selection on GID tables (RoCE v2 IPv4 preferred, HCCL_RDMA_GID_INDEX
// override), queue pair attributes from HCCL's RoCE variables (defaults TC
// 132, SL 4, timeout 20, retry 7; ranges), the registration cache (page
// alignment, hits and misses, reference counts, invalidation), the
// HCCL_IB_HCA filter, the immediate-data encoding, the set-up message, and
// device/port selection through the fake library.
//
//===----------------------------------------------------------------------===//
#include "config/Config.h"
#include "transport/verbs/GidSelect.h"
#include "transport/verbs/HcaFilter.h"
#include "transport/verbs/MrCache.h"
#include "transport/verbs/Protocol.h"
#include "transport/verbs/QpAttrs.h"
#include "transport/verbs/VerbsTransport.h"

#include <arpa/inet.h>
#include <cstring>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/mman.h>

using namespace hccl::rt;
using namespace hccl::rt::verbs;

namespace {

Gid gidOf(const char *text) {
  Gid g{};
  EXPECT_EQ(inet_pton(AF_INET6, text, g.data()), 1) << text;
  return g;
}

GidEntryInfo entry(uint32_t index, const char *addr, GidKind kind) {
  GidEntryInfo e;
  e.index = index;
  e.gid = gidOf(addr);
  e.kind = kind;
  return e;
}

bool has(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// Config from a variable map, as loadConfig reads the environment.
hccl::sched::Result<Config>
configOf(const std::map<std::string, std::string> &vars) {
  return loadConfig([&](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// GID selection
//===----------------------------------------------------------------------===//

TEST(GidSelection, PrefersRoceV2WithAnIpv4Address) {
  // A typical RoCE port: link-local and IPv4-mapped, each as v1 and v2.
  std::vector<GidEntryInfo> t = {entry(0, "fe80::1", GidKind::RoCEv1),
                                 entry(1, "fe80::1", GidKind::RoCEv2),
                                 entry(2, "::ffff:10.1.2.3", GidKind::RoCEv1),
                                 entry(3, "::ffff:10.1.2.3", GidKind::RoCEv2)};
  auto c = selectGid(t, std::nullopt, "dev port 1");
  ASSERT_TRUE(c) << c.status().message();
  EXPECT_EQ(c->index, 3u);
  EXPECT_EQ(c->kind, GidKind::RoCEv2);
  EXPECT_EQ(gidString(c->gid), "::ffff:10.1.2.3");
  // Order in the table does not matter.
  std::swap(t[0], t[3]);
  c = selectGid(t, std::nullopt, "dev port 1");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->index, 3u);
}

TEST(GidSelection, FallbackOrder) {
  // v2 global IPv6 beats v2 link-local; both beat any v1.
  auto c = selectGid({entry(0, "::ffff:10.0.0.1", GidKind::RoCEv1),
                      entry(1, "fe80::5", GidKind::RoCEv2),
                      entry(2, "2001:db8::7", GidKind::RoCEv2)},
                     std::nullopt, "d");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->index, 2u);
  // Only v1: the IPv4 one.
  c = selectGid({entry(0, "fe80::5", GidKind::RoCEv1),
                 entry(4, "::ffff:10.0.0.1", GidKind::RoCEv1)},
                std::nullopt, "d");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->index, 4u);
  // Equal candidates: the lowest index.
  c = selectGid({entry(5, "::ffff:10.0.0.9", GidKind::RoCEv2),
                 entry(2, "::ffff:10.0.0.8", GidKind::RoCEv2)},
                std::nullopt, "d");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->index, 2u);
  // Zero GIDs are unused entries.
  c = selectGid(
      {entry(0, "::", GidKind::RoCEv2), entry(1, "fe80::1", GidKind::RoCEv1)},
      std::nullopt, "d");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->index, 1u);
}

TEST(GidSelection, OverrideAndErrors) {
  std::vector<GidEntryInfo> t = {entry(0, "fe80::1", GidKind::RoCEv1),
                                 entry(3, "::ffff:10.1.2.3", GidKind::RoCEv2)};
  auto c = selectGid(t, 0u, "mlx5_0 port 1");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->index, 0u);
  EXPECT_EQ(c->kind, GidKind::RoCEv1);
  c = selectGid(t, 2u, "mlx5_0 port 1");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.status().code(), HCCL_E_PARA);
  EXPECT_TRUE(has(c.status().message(), "HCCL_RDMA_GID_INDEX=2"))
      << c.status().message();
  EXPECT_TRUE(has(c.status().message(), "mlx5_0 port 1"));
  EXPECT_TRUE(has(c.status().message(), "0, 3")) << c.status().message();
  c = selectGid({entry(0, "::", GidKind::RoCEv2)}, std::nullopt, "x");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.status().code(), HCCL_E_NOT_SUPPORT);
}

TEST(GidSelection, AddressClasses) {
  EXPECT_TRUE(gidIsIpv4Mapped(gidOf("::ffff:192.168.0.1")));
  EXPECT_FALSE(gidIsIpv4Mapped(gidOf("fe80::ffff:c0a8:1")));
  EXPECT_TRUE(gidIsLinkLocal(gidOf("fe80::1")));
  EXPECT_FALSE(gidIsLinkLocal(gidOf("2001:db8::1")));
  EXPECT_TRUE(gidIsZero(gidOf("::")));
}

//===----------------------------------------------------------------------===//
// QP attributes
//===----------------------------------------------------------------------===//

TEST(QpAttributes, HcclDefaults) {
  auto cfg = configOf({});
  ASSERT_TRUE(cfg);
  QpSettings s = qpSettingsFrom(*cfg);
  EXPECT_EQ(s.trafficClass, 132);
  EXPECT_EQ(s.serviceLevel, 4);
  EXPECT_EQ(s.timeout, 20);
  EXPECT_EQ(s.retryCnt, 7);
  EXPECT_EQ(cfg->rdmaQpsPerConnection, 1u);
  // 4.096 us x 2^20 x 8 tries: a silent peer fails a request after ~34 s.
  EXPECT_NEAR(retryWindowMs(s), 34359.74, 0.01);
}

TEST(QpAttributes, TransitionsCarryTheSettings) {
  auto cfg = configOf({{"HCCL_RDMA_TC", "96"},
                       {"HCCL_RDMA_SL", "3"},
                       {"HCCL_RDMA_TIMEOUT", "14"},
                       {"HCCL_RDMA_RETRY_CNT", "5"}});
  ASSERT_TRUE(cfg) << cfg.message();
  QpSettings s = qpSettingsFrom(*cfg);
  PortAddress local, remote;
  local.port = 1;
  local.gidIndex = 3;
  local.gid = gidOf("::ffff:10.0.0.1");
  local.mtu = IBV_MTU_4096;
  remote.gid = gidOf("::ffff:10.0.0.2");
  remote.mtu = IBV_MTU_1024;
  QpEndpoint peer{0x1234, 0xabcdef}, self{0x99, 0x123456};

  ibv_qp_attr a;
  int mask = 0;
  initAttrs(1, a, mask);
  EXPECT_EQ(a.qp_state, IBV_QPS_INIT);
  EXPECT_EQ(a.port_num, 1);
  EXPECT_TRUE(a.qp_access_flags & IBV_ACCESS_REMOTE_WRITE);
  EXPECT_EQ(mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS);

  rtrAttrs(s, local, remote, peer, a, mask);
  EXPECT_EQ(a.qp_state, IBV_QPS_RTR);
  EXPECT_EQ(a.dest_qp_num, 0x1234u);
  EXPECT_EQ(a.rq_psn, 0xabcdefu);
  EXPECT_EQ(a.path_mtu, IBV_MTU_1024); // the smaller of both ports
  EXPECT_EQ(a.ah_attr.is_global, 1);
  EXPECT_EQ(a.ah_attr.grh.traffic_class, 96);
  EXPECT_EQ(a.ah_attr.sl, 3);
  EXPECT_EQ(a.ah_attr.grh.sgid_index, 3);
  EXPECT_EQ(std::memcmp(a.ah_attr.grh.dgid.raw, remote.gid.data(), 16), 0);
  for (int bit : {IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_DEST_QPN, IBV_QP_RQ_PSN,
                  IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_MIN_RNR_TIMER})
    EXPECT_TRUE(mask & bit) << bit;

  rtsAttrs(s, self, a, mask);
  EXPECT_EQ(a.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(a.timeout, 14);
  EXPECT_EQ(a.retry_cnt, 5);
  EXPECT_EQ(a.rnr_retry, 7);
  EXPECT_EQ(a.sq_psn, 0x123456u);
  for (int bit : {IBV_QP_SQ_PSN, IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT,
                  IBV_QP_RNR_RETRY, IBV_QP_MAX_QP_RD_ATOMIC})
    EXPECT_TRUE(mask & bit) << bit;

  // InfiniBand ports are addressed by LID, without a GRH.
  local.ethernet = false;
  remote.lid = 17;
  rtrAttrs(s, local, remote, peer, a, mask);
  EXPECT_EQ(a.ah_attr.is_global, 0);
  EXPECT_EQ(a.ah_attr.dlid, 17);
}

TEST(QpAttributes, OutOfRangeValuesAreInitErrors) {
  const std::pair<const char *, const char *> bad[] = {
      {"HCCL_RDMA_TC", "130"},
      {"HCCL_RDMA_TC", "256"},
      {"HCCL_RDMA_SL", "8"},
      {"HCCL_RDMA_TIMEOUT", "4"},
      {"HCCL_RDMA_TIMEOUT", "25"},
      {"HCCL_RDMA_RETRY_CNT", "0"},
      {"HCCL_RDMA_RETRY_CNT", "8"},
      {"HCCL_RDMA_QPS_PER_CONNECTION", "0"},
      {"HCCL_RDMA_QPS_PER_CONNECTION", "33"},
      {"HCCL_RDMA_GID_INDEX", "256"},
      {"HCCL_IB_HCA", "mlx5_0:0"},
      {"HCCL_IB_HCA", "mlx5 0"},
      {"HCCL_IB_HCA", "mlx5_0,,mlx5_1"}};
  for (const auto &b : bad) {
    auto cfg = configOf({{b.first, b.second}});
    ASSERT_FALSE(cfg) << b.first << "=" << b.second;
    EXPECT_TRUE(has(cfg.message(), std::string(b.first) + "=" + b.second))
        << cfg.message();
  }
  const std::pair<const char *, const char *> good[] = {
      {"HCCL_RDMA_TC", "0"},
      {"HCCL_RDMA_TC", "252"},
      {"HCCL_RDMA_SL", "7"},
      {"HCCL_RDMA_TIMEOUT", "5"},
      {"HCCL_RDMA_TIMEOUT", "24"},
      {"HCCL_RDMA_RETRY_CNT", "1"},
      {"HCCL_RDMA_QPS_PER_CONNECTION", "32"},
      {"HCCL_IB_HCA", "mlx5_0:1,mlx5_1"},
      {"HCCL_IB_HCA", "^=mlx5_2"}};
  for (const auto &g : good)
    EXPECT_TRUE(configOf({{g.first, g.second}})) << g.first << "=" << g.second;
}

//===----------------------------------------------------------------------===//
// Registration cache
//===----------------------------------------------------------------------===//

namespace {
/// Records every registration instead of pinning memory.
class CountingRegistrar : public MrRegistrar {
public:
  StatusOr<Reg> registerSpan(void *base, size_t len) override {
    spans.emplace_back(reinterpret_cast<uintptr_t>(base), len);
    ++live;
    return Reg{reinterpret_cast<void *>(spans.size()),
               static_cast<uint32_t>(100 + spans.size())};
  }
  void deregister(void *mr) override {
    deregistered.push_back(reinterpret_cast<uintptr_t>(mr));
    --live;
  }
  std::vector<std::pair<uintptr_t, size_t>> spans;
  std::vector<uintptr_t> deregistered;
  int live = 0;
};
} // namespace

TEST(MrCache, RegistersWholePagesAndHitsInside) {
  CountingRegistrar reg;
  MrCache cache(reg, 4096);
  alignas(4096) static char buf[4 * 4096];
  auto h = cache.insert(buf + 10, 5000, /*tag=*/0, /*pinned=*/false);
  ASSERT_TRUE(h);
  ASSERT_EQ(reg.spans.size(), 1u);
  EXPECT_EQ(reg.spans[0].first, reinterpret_cast<uintptr_t>(buf));
  EXPECT_EQ(reg.spans[0].second, 2u * 4096); // [0, 5010) widened to two pages
  cache.release(*h);
  // Inside the pages: a hit with the registration's key, no new pin.
  MrCache::Handle a = cache.acquire(buf + 4096 + 7, 4000);
  ASSERT_TRUE(a);
  EXPECT_EQ(a.lkey, 101u);
  // Past the second page: a miss.
  MrCache::Handle b = cache.acquire(buf + 4096, 4097);
  EXPECT_FALSE(b);
  cache.release(a);
  MrCache::Stats st = cache.stats();
  EXPECT_EQ(st.hits, 1u);
  EXPECT_EQ(st.misses, 1u);
  EXPECT_EQ(st.registrations, 1u);
  EXPECT_EQ(st.live, 1u); // cached after the last release
  EXPECT_EQ(reg.spans.size(), 1u);
}

TEST(MrCache, InvalidationWaitsForHolders) {
  CountingRegistrar reg;
  MrCache cache(reg, 4096);
  alignas(4096) static char buf[4 * 4096];
  auto pinned = cache.insert(buf, 4096, 0, /*pinned=*/true);
  ASSERT_TRUE(pinned);
  cache.release(*pinned); // the entry keeps its own pin
  EXPECT_EQ(reg.live, 1);
  MrCache::Handle held = cache.acquire(buf + 100, 100); // a send in flight
  ASSERT_TRUE(held);
  // Deregistration (overlapping one byte is enough): no new user may take
  // it, but the adapter may still read it for the send in flight.
  EXPECT_EQ(cache.invalidate(buf + 4095, 1), 1u);
  EXPECT_FALSE(cache.acquire(buf + 100, 100));
  EXPECT_EQ(reg.live, 1);
  EXPECT_TRUE(reg.deregistered.empty());
  cache.release(held);
  EXPECT_EQ(reg.live, 0);
  ASSERT_EQ(reg.deregistered.size(), 1u);
  EXPECT_EQ(cache.stats().deregistrations, 1u);
  EXPECT_EQ(cache.stats().live, 0u);
  // A range elsewhere invalidates nothing.
  auto other = cache.insert(buf + 2 * 4096, 10, 0, true);
  ASSERT_TRUE(other);
  cache.release(*other);
  EXPECT_EQ(cache.invalidate(buf, 4096), 0u);
  EXPECT_EQ(reg.live, 1);
}

TEST(MrCache, SweepDropsEntriesWhoseOwnerIsGone) {
  CountingRegistrar reg;
  MrCache cache(reg, 4096);
  alignas(4096) static char buf[4 * 4096];
  auto r7 = cache.insert(buf, 4096, /*tag=*/7, false);
  auto r8 = cache.insert(buf + 4096, 4096, /*tag=*/8, false);
  ASSERT_TRUE(r7 && r8);
  cache.release(*r7);
  cache.release(*r8);
  EXPECT_EQ(
      cache.sweep([](uint64_t tag, uintptr_t, size_t) { return tag != 7; }),
      1u);
  EXPECT_EQ(reg.live, 1);
  EXPECT_FALSE(cache.acquire(buf, 10));
  MrCache::Handle h = cache.acquire(buf + 4096, 10);
  ASSERT_TRUE(h);
  EXPECT_EQ(h.tag, 8u);
  cache.release(h);
  cache.clear();
  EXPECT_EQ(reg.live, 0);
}

//===----------------------------------------------------------------------===//
// HCCL_IB_HCA, immediate data, set-up message
//===----------------------------------------------------------------------===//

TEST(HcaFilter, HcclSocketIfnameSyntax) {
  EXPECT_TRUE(hcaMatches("", "mlx5_0", 1));
  EXPECT_TRUE(hcaMatches("mlx5", "mlx5_3", 1));
  EXPECT_FALSE(hcaMatches("mlx5", "rxe0", 1));
  EXPECT_TRUE(hcaMatches("=mlx5_0", "mlx5_0", 1));
  EXPECT_FALSE(hcaMatches("=mlx5_0", "mlx5_01", 1));
  EXPECT_FALSE(hcaMatches("^mlx5_1", "mlx5_1", 1));
  EXPECT_TRUE(hcaMatches("^mlx5_1", "mlx5_0", 1));
  EXPECT_TRUE(hcaMatches("mlx5_0:2,rxe", "mlx5_0", 2));
  EXPECT_FALSE(hcaMatches("mlx5_0:2,rxe", "mlx5_0", 1));
  EXPECT_TRUE(hcaMatches("mlx5_0:2,rxe", "rxe0", 1));
  EXPECT_FALSE(hcaMatches("^=mlx5_0:1", "mlx5_0", 1));
  EXPECT_TRUE(hcaMatches("^=mlx5_0:1", "mlx5_0", 2));
}

TEST(WireProtocol, ImmediateCarriesSlotAndSize) {
  for (uint32_t slot = 0; slot < kSlots; ++slot)
    for (bool header : {false, true})
      for (uint32_t bytes :
           {0u, 1u, kHeaderBytes, kSlotBytes - 1, kSlotBytes}) {
        ImmFields f = decodeImm(encodeImm(slot, header, bytes));
        EXPECT_EQ(f.slot, slot);
        EXPECT_EQ(f.header, header);
        EXPECT_EQ(f.bytes, bytes);
      }
  // The credit marker is no data slot.
  EXPECT_GE(decodeImm(kCreditImm).slot, kSlots);
}

TEST(WireProtocol, ConnectionInfoRoundTripAndErrors) {
  ConnInfo c;
  c.device = "fakeroce0 port 1";
  c.port.gid = gidOf("::ffff:10.9.8.7");
  c.port.gidIndex = 3;
  c.port.mtu = IBV_MTU_2048;
  c.qps = {{0x101, 0xabc}, {0x102, 0xdef}};
  c.ringAddr = 0x7f0000001000;
  c.ringKey = 77;
  c.creditAddr = 0x7f0000002000;
  c.creditKey = 78;
  auto d = ConnInfo::decode(c.encode(), 3);
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(d->device, c.device);
  EXPECT_EQ(d->port.gid, c.port.gid);
  EXPECT_EQ(d->port.mtu, IBV_MTU_2048);
  ASSERT_EQ(d->qps.size(), 2u);
  EXPECT_EQ(d->qps[1].qpn, 0x102u);
  EXPECT_EQ(d->qps[1].psn, 0xdefu);
  EXPECT_EQ(d->ringAddr, c.ringAddr);
  EXPECT_EQ(d->creditKey, 78u);
  for (const char *bad : {"", "[1,2]", "{\"device\":\"x\"}"}) {
    auto e = ConnInfo::decode(bad, 3);
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.status().code(), HCCL_E_ROCE_CONNECT);
    EXPECT_TRUE(has(e.status().message(), "rank 3")) << e.status().message();
  }
  std::string s = c.encode();
  s.replace(s.find("::ffff:10.9.8.7"), 15, "not-an-address!");
  auto e = ConnInfo::decode(s, 1);
  ASSERT_FALSE(e);
  EXPECT_TRUE(has(e.status().message(), "not-an-address!"));
}

// Values that nlohmann's get<>() would have wrapped or truncated: a port of
// 257 read as port 1, a key of 2^32 + 5 as 5, a PSN of 2.5 as 2. Each is
// refused, and the message names the field.
TEST(WireProtocol, OutOfRangeConnectionValuesAreRefused) {
  ConnInfo c;
  c.device = "fakeroce0 port 1";
  c.port.gid = gidOf("::ffff:10.9.8.7");
  c.qps = {{0x101, 0xabc}};
  nlohmann::json good = nlohmann::json::parse(c.encode());
  ASSERT_TRUE(ConnInfo::decode(good.dump(), 2));
  struct Case {
    const char *field;
    nlohmann::json value;
  };
  for (const Case &k : std::vector<Case>{
           {"port", 257},
           {"port", 0},
           {"lid", 65536},
           {"ringKey", 4294967301ull},
           {"creditKey", -1},
           {"slots", 1.5},
           {"mtu", 6},
           {"ringAddr", 18446744073709551615ull},
           {"ethernet", 1},
           {"device", 7},
           {"qps", nlohmann::json::array({nlohmann::json::array({1, 2.5})})},
           {"qps",
            nlohmann::json::array({nlohmann::json::array({16777216, 0})})},
           {"qps", nlohmann::json::array({nlohmann::json::array({1})})},
           {"qps", nlohmann::json::array()},
           {"surplus", 1}}) {
    nlohmann::json j = good;
    j[k.field] = k.value;
    auto e = ConnInfo::decode(j.dump(), 2);
    ASSERT_FALSE(e) << k.field << " = " << k.value.dump() << " was accepted";
    EXPECT_EQ(e.status().code(), HCCL_E_ROCE_CONNECT);
    std::string field = k.field;
    if (field == "qps" && k.value.empty())
      field = "no queue pairs";
    EXPECT_TRUE(has(e.status().message(), field)) << e.status().message();
  }
  for (const char *missing : {"port", "gid", "qps", "ethernet", "creditKey"}) {
    nlohmann::json j = good;
    j.erase(missing);
    auto e = ConnInfo::decode(j.dump(), 2);
    ASSERT_FALSE(e) << missing;
    EXPECT_TRUE(has(e.status().message(), missing)) << e.status().message();
  }
}

//===----------------------------------------------------------------------===//
// Device and port selection (through the fake library)
//===----------------------------------------------------------------------===//

namespace {
class DeviceSelection : public testing::Test {
protected:
  void SetUp() override {
    fabric_ = "vu" + std::to_string(getpid());
    setenv("FAKEVERBS_FABRIC", fabric_.c_str(), 1);
    for (const char *v :
         {"FAKEVERBS_DEVICES", "FAKEVERBS_PORT_DOWN", "FAKEVERBS_GID_TABLE"})
      unsetenv(v);
  }
  void TearDown() override {
    for (const char *v : {"FAKEVERBS_DEVICES", "FAKEVERBS_PORT_DOWN",
                          "FAKEVERBS_GID_TABLE", "FAKEVERBS_FABRIC"})
      unsetenv(v);
    shm_unlink(("/hccl-fakeverbs-" + fabric_).c_str());
  }
  StatusOr<std::unique_ptr<VerbsTransport>>
  open(std::map<std::string, std::string> vars) {
    vars.emplace("HCCL_IB_LIB", HCCL_FAKEVERBS_LIB);
    auto cfg = configOf(vars);
    if (!cfg)
      return errPara(cfg.message());
    return VerbsTransport::open(*cfg, &bell_, 0,
                                [](int, const Status &, bool) {});
  }
  Doorbell bell_{};
  std::string fabric_;
};
} // namespace

TEST_F(DeviceSelection, FirstActivePortAndAutomaticGid) {
  setenv("FAKEVERBS_DEVICES", "roce0,roce1", 1);
  setenv("FAKEVERBS_PORT_DOWN", "roce0", 1);
  auto t = open({});
  ASSERT_TRUE(t) << t.status().message();
  EXPECT_TRUE(has((*t)->describe(), "roce1 port 1")) << (*t)->describe();
  EXPECT_TRUE(has((*t)->describe(), "GID 3 ::ffff:10.")) << (*t)->describe();
}

TEST_F(DeviceSelection, WhitelistAndGidOverride) {
  setenv("FAKEVERBS_DEVICES", "roce0,roce1", 1);
  auto t = open({{"HCCL_IB_HCA", "=roce1"}, {"HCCL_RDMA_GID_INDEX", "1"}});
  ASSERT_TRUE(t) << t.status().message();
  EXPECT_TRUE(has((*t)->describe(), "roce1 port 1, GID 1 fe80::"))
      << (*t)->describe();
  t = open({{"HCCL_IB_HCA", "^roce"}});
  ASSERT_FALSE(t);
  EXPECT_EQ(t.status().code(), HCCL_E_NOT_SUPPORT);
  EXPECT_TRUE(has(t.status().message(), "excluded by HCCL_IB_HCA=^roce"))
      << t.status().message();
  t = open({{"HCCL_RDMA_GID_INDEX", "9"}});
  ASSERT_FALSE(t);
  EXPECT_EQ(t.status().code(), HCCL_E_PARA);
  EXPECT_TRUE(has(t.status().message(), "HCCL_RDMA_GID_INDEX=9"))
      << t.status().message();
}

TEST_F(DeviceSelection, CustomGidTableWithoutRoceV2Ipv4) {
  setenv("FAKEVERBS_GID_TABLE", "v1/host6;v1/host4;empty;v2/host6", 1);
  auto t = open({});
  ASSERT_TRUE(t) << t.status().message();
  EXPECT_TRUE(has((*t)->describe(), "GID 3 fe80::")) << (*t)->describe();
}

TEST_F(DeviceSelection, MissingLibraryOrDeviceSaysWhy) {
  auto t = open({{"HCCL_IB_LIB", "/nonexistent/libibverbs.so.1"}});
  // (emplace keeps the given HCCL_IB_LIB)
  ASSERT_FALSE(t);
  EXPECT_EQ(t.status().code(), HCCL_E_NOT_SUPPORT);
  EXPECT_TRUE(has(t.status().message(), "/nonexistent/libibverbs.so.1"))
      << t.status().message();
  setenv("FAKEVERBS_DEVICES", "none", 1);
  t = open({});
  ASSERT_FALSE(t);
  EXPECT_TRUE(has(t.status().message(), "no RDMA device"))
      << t.status().message();
  unsetenv("FAKEVERBS_DEVICES");
  setenv("FAKEVERBS_PORT_DOWN", "fakeroce0", 1);
  t = open({});
  ASSERT_FALSE(t);
  EXPECT_TRUE(has(t.status().message(), "fakeroce0 port 1 is not active"))
      << t.status().message();
  // A library without libibverbs' functions.
  t = open({{"HCCL_IB_LIB", "libc.so.6"}});
  ASSERT_FALSE(t);
  EXPECT_TRUE(has(t.status().message(), "lacks libibverbs functions"))
      << t.status().message();
}
