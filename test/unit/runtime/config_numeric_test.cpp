//===- config_numeric_test.cpp - Integer HCCL_* variables -----------------===//
//
// Defaults (HCCL's documented values, written out here), both ends of every
// range, one past each end, and malformed numbers, for each integer variable.
//
//===----------------------------------------------------------------------===//
#include "config_env.h"

#include <gtest/gtest.h>

#include <functional>

using hccl::rt::Config;

namespace {

struct IntVar {
  const char *name;
  uint64_t lo, hi;
  /// The parsed value as the Config stores it, in the variable's unit.
  std::function<uint64_t(const Config &)> get;
  uint64_t defaultValue;
  const char *accepted; ///< must appear in the error message
};

std::vector<IntVar> intVars() {
  return {
      {"HCCL_BUFFSIZE", 1, 1u << 20,
       [](const Config &c) { return c.buffSizeMB; }, 200, ">= 1 (MB)"},
      {"HCCL_CONNECT_TIMEOUT", 120, 7200,
       [](const Config &c) { return c.connectTimeoutMs / 1000; }, 120,
       "120..7200"},
      {"HCCL_CONNECT_TIMEOUT_MS", 1, 7200000,
       [](const Config &c) { return c.connectTimeoutMs; }, 120000,
       "1..7200000"},
      {"HCCL_EXEC_TIMEOUT", 0, 2147483647,
       [](const Config &c) { return c.execTimeoutSec; }, 1836, "0..2147483647"},
      {"HCCL_IF_BASE_PORT", 1024, 65520,
       [](const Config &c) { return uint64_t(c.ifBasePort); }, 60000,
       "1024..65520"},
      {"HCCL_RDMA_SL", 0, 7,
       [](const Config &c) { return uint64_t(c.rdmaServiceLevel); }, 4, "0..7"},
      {"HCCL_RDMA_TIMEOUT", 5, 24, // HCCL's widest range
       [](const Config &c) { return uint64_t(c.rdmaTimeout); }, 20, "5..24"},
      {"HCCL_RDMA_RETRY_CNT", 1, 7,
       [](const Config &c) { return uint64_t(c.rdmaRetryCnt); }, 7, "1..7"},
      {"HCCL_RDMA_QPS_PER_CONNECTION", 1, 32,
       [](const Config &c) { return uint64_t(c.rdmaQpsPerConnection); }, 1,
       "1..32"},
      {"HCCL_RDMA_GID_INDEX", 0, 255,
       [](const Config &c) { return uint64_t(c.rdmaGidIndex.value_or(999)); },
       999, "0..255"},
  };
}

class IntVariable : public ::testing::TestWithParam<IntVar> {};

void expectRejected(const IntVar &v, const std::string &value) {
  auto r = cfgtest::load({{v.name, value}});
  ASSERT_FALSE(r.isOk()) << v.name << "=" << value << " was accepted";
  const std::string &msg = r.message();
  EXPECT_EQ(msg.rfind(std::string(v.name) + "=", 0), 0u) << msg;
  EXPECT_NE(msg.find(v.accepted), std::string::npos)
      << "message should give the accepted range: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

TEST_P(IntVariable, DefaultWhenUnsetOrEmpty) {
  const IntVar &v = GetParam();
  auto unset = cfgtest::load({});
  ASSERT_TRUE(unset.isOk()) << unset.message();
  EXPECT_EQ(v.get(*unset), v.defaultValue);
  auto empty = cfgtest::load({{v.name, ""}});
  ASSERT_TRUE(empty.isOk()) << empty.message();
  EXPECT_EQ(v.get(*empty), v.defaultValue);
}

TEST_P(IntVariable, AcceptsBothEndsOfTheRange) {
  const IntVar &v = GetParam();
  for (uint64_t x : {v.lo, v.hi, (v.lo + v.hi) / 2}) {
    auto r = cfgtest::load({{v.name, std::to_string(x)}});
    ASSERT_TRUE(r.isOk()) << v.name << "=" << x << ": " << r.message();
    EXPECT_EQ(v.get(*r), x) << v.name;
  }
  // Leading zeros are still decimal.
  auto r = cfgtest::load({{v.name, "000" + std::to_string(v.hi)}});
  ASSERT_TRUE(r.isOk()) << r.message();
  EXPECT_EQ(v.get(*r), v.hi);
}

TEST_P(IntVariable, RejectsOutOfRange) {
  const IntVar &v = GetParam();
  if (v.lo > 0)
    expectRejected(v, std::to_string(v.lo - 1));
  expectRejected(v, std::to_string(v.hi + 1));
  expectRejected(v, "18446744073709551616"); // 2^64: overflow
  expectRejected(v, "99999999999999999999999999");
}

TEST_P(IntVariable, RejectsMalformedNumbers) {
  const IntVar &v = GetParam();
  std::string mid = std::to_string((v.lo + v.hi) / 2);
  for (std::string bad :
       {std::string("abc"), "-" + mid, "+" + mid, " " + mid, mid + " ",
        mid + "s", mid + ".0", std::string("0x10"), std::string("1e3"),
        std::string("12abc"), std::string("-")}) {
    // HCCL_EXEC_TIMEOUT takes decimals, as HCCL documents (config_hccl_test).
    if (bad == mid + ".0" && std::string(v.name) == "HCCL_EXEC_TIMEOUT")
      continue;
    expectRejected(v, bad);
  }
}

INSTANTIATE_TEST_SUITE_P(All, IntVariable, ::testing::ValuesIn(intVars()),
                         [](const ::testing::TestParamInfo<IntVar> &info) {
                           return std::string(info.param.name);
                         });

TEST(ConfigBuffSize, MessageMatchesHcclWording) {
  auto r = cfgtest::load({{"HCCL_BUFFSIZE", "abc"}});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(),
            "HCCL_BUFFSIZE=abc: expected an integer >= 1 (MB), default 200");
  auto ok = cfgtest::load({{"HCCL_BUFFSIZE", "64"}});
  ASSERT_TRUE(ok.isOk());
  EXPECT_EQ(ok->buffSizeBytes(), 64ull * 1024 * 1024);
}

TEST(ConfigRdmaTc, MustBeAMultipleOfFour) {
  for (const char *good : {"0", "4", "132", "252"}) {
    auto r = cfgtest::load({{"HCCL_RDMA_TC", good}});
    ASSERT_TRUE(r.isOk()) << good << ": " << r.message();
    EXPECT_EQ(r->rdmaTrafficClass, std::stoul(good));
  }
  for (const char *bad : {"1", "130", "253", "255", "256", "-4", "x"}) {
    auto r = cfgtest::load({{"HCCL_RDMA_TC", bad}});
    ASSERT_FALSE(r.isOk()) << bad;
    EXPECT_NE(r.message().find("multiple of 4 in 0..255"), std::string::npos)
        << r.message();
  }
  auto def = cfgtest::load({});
  EXPECT_EQ(def->rdmaTrafficClass, 132u);
}

TEST(ConfigConnectTimeout, SecondsAndMillisecondsAreExclusive) {
  auto s = cfgtest::load({{"HCCL_CONNECT_TIMEOUT", "300"}});
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->connectTimeoutMs, 300000u);
  auto ms = cfgtest::load({{"HCCL_CONNECT_TIMEOUT_MS", "2500"}});
  ASSERT_TRUE(ms.isOk());
  EXPECT_EQ(ms->connectTimeoutMs, 2500u);
  auto both = cfgtest::load(
      {{"HCCL_CONNECT_TIMEOUT", "300"}, {"HCCL_CONNECT_TIMEOUT_MS", "2500"}});
  ASSERT_FALSE(both.isOk());
  EXPECT_NE(both.message().find("both set"), std::string::npos);
  // HCCL's own variable keeps HCCL's lower bound.
  EXPECT_FALSE(cfgtest::load({{"HCCL_CONNECT_TIMEOUT", "5"}}).isOk());
}

TEST(ConfigExecTimeout, ZeroMeansNever) {
  auto r = cfgtest::load({{"HCCL_EXEC_TIMEOUT", "0"}});
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ(r->execTimeoutSec, 0u);
}

} // namespace
