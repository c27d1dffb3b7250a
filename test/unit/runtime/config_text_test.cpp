//===- config_text_test.cpp - Keyword, address and list HCCL_* variables --===//
#include "config_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using hccl::rt::Config;
using hccl::rt::Deterministic;
using hccl::rt::LogLevel;
using hccl::rt::TransportKind;

namespace {

std::string errorFor(const char *name, const std::string &value) {
  auto r = cfgtest::load({{name, value}});
  return r.isOk() ? std::string() : r.message();
}

void expectError(const char *name, const std::string &value,
                 const std::string &mentions) {
  std::string msg = errorFor(name, value);
  ASSERT_FALSE(msg.empty()) << name << "=" << value << " was accepted";
  EXPECT_EQ(msg.rfind(std::string(name) + "=", 0), 0u) << msg;
  EXPECT_NE(msg.find(mentions), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(ConfigDeterministic, KeywordsAreCaseInsensitive) {
  const std::pair<const char *, Deterministic> cases[] = {
      {"false", Deterministic::False},   {"FALSE", Deterministic::False},
      {"true", Deterministic::True},     {"True", Deterministic::True},
      {"strict", Deterministic::Strict}, {"STRICT", Deterministic::Strict}};
  for (auto &[text, want] : cases) {
    auto r = cfgtest::load({{"HCCL_DETERMINISTIC", text}});
    ASSERT_TRUE(r.isOk()) << text << ": " << r.message();
    EXPECT_EQ(r->deterministic, want) << text;
  }
  EXPECT_EQ(cfgtest::load({})->deterministic, Deterministic::False);
  for (const char *bad : {"1", "yes", "on", "truee", " true"})
    expectError("HCCL_DETERMINISTIC", bad, "false, true or strict");
}

TEST(ConfigLogLevel, Names) {
  const std::pair<const char *, LogLevel> cases[] = {
      {"error", LogLevel::Error},
      {"warn", LogLevel::Warn},
      {"warning", LogLevel::Warn},
      {"INFO", LogLevel::Info},
      {"debug", LogLevel::Debug}};
  for (auto &[text, want] : cases) {
    auto r = cfgtest::load({{"HCCL_LOG_LEVEL", text}});
    ASSERT_TRUE(r.isOk()) << r.message();
    EXPECT_EQ(r->logLevel, want) << text;
  }
  EXPECT_EQ(cfgtest::load({})->logLevel, LogLevel::Warn);
  for (const char *bad : {"3", "trace", "err"})
    expectError("HCCL_LOG_LEVEL", bad, "error, warn, info or debug");
}

TEST(ConfigTransport, Names) {
  const std::pair<const char *, TransportKind> cases[] = {
      {"auto", TransportKind::Auto},
      {"shm", TransportKind::Shm},
      {"TCP", TransportKind::Tcp},
      {"verbs", TransportKind::Verbs}};
  for (auto &[text, want] : cases) {
    auto r = cfgtest::load({{"HCCL_TRANSPORT", text}});
    ASSERT_TRUE(r.isOk()) << r.message();
    EXPECT_EQ(r->transport, want) << text;
  }
  EXPECT_EQ(cfgtest::load({})->transport, TransportKind::Auto);
  for (const char *bad : {"rdma", "ib", "shm,tcp"})
    expectError("HCCL_TRANSPORT", bad, "auto, shm, tcp or verbs");
}

TEST(ConfigWhitelist, ZeroOrOne) {
  EXPECT_TRUE(cfgtest::load({})->whitelistDisable);
  EXPECT_TRUE(cfgtest::load({})->warnings.empty());
  // Enabled without a file: an error, not a whitelist silently not applied.
  auto noFile = cfgtest::load({{"HCCL_WHITELIST_DISABLE", "0"}});
  ASSERT_FALSE(noFile);
  EXPECT_NE(noFile.message().find("set HCCL_WHITELIST_FILE"), std::string::npos)
      << noFile.message();
  auto on = cfgtest::load({{"HCCL_WHITELIST_DISABLE", "0"},
                           {"HCCL_WHITELIST_FILE", "/etc/hccl/whitelist"}});
  ASSERT_TRUE(on);
  EXPECT_FALSE(on->whitelistDisable);
  EXPECT_EQ(on->whitelistFile, "/etc/hccl/whitelist");
  EXPECT_TRUE(on->warnings.empty());
  EXPECT_TRUE(
      cfgtest::load({{"HCCL_WHITELIST_DISABLE", "1"}})->whitelistDisable);
  for (const char *bad : {"2", "true", "-1", "01"})
    expectError("HCCL_WHITELIST_DISABLE", bad, "0 or 1");
}

TEST(ConfigSocketIfname, AcceptsHcclSyntax) {
  for (const char *good : {"eth", "eth,enp", "^docker,lo", "=eth0",
                           "^=eth0,eth1", "enp0s31f6", "veth-a_b.10"}) {
    auto r = cfgtest::load({{"HCCL_SOCKET_IFNAME", good}});
    ASSERT_TRUE(r.isOk()) << good << ": " << r.message();
    EXPECT_EQ(r->socketIfname, good);
  }
  EXPECT_EQ(cfgtest::load({})->socketIfname, "");
}

TEST(ConfigSocketIfname, RejectsMalformedLists) {
  expectError("HCCL_SOCKET_IFNAME", "^", "no interface name");
  expectError("HCCL_SOCKET_IFNAME", "^=", "no interface name");
  expectError("HCCL_SOCKET_IFNAME", "eth,,enp", "interface name 2 is empty");
  expectError("HCCL_SOCKET_IFNAME", "eth,", "interface name 2 is empty");
  expectError("HCCL_SOCKET_IFNAME", ",eth", "interface name 1 is empty");
  expectError("HCCL_SOCKET_IFNAME", "eth0 ", "space");
  expectError("HCCL_SOCKET_IFNAME", "a/b", "'/'");
  expectError("HCCL_SOCKET_IFNAME", "=^eth0", "'^'");
  expectError("HCCL_SOCKET_IFNAME", "abcdefghijklmnop", "15 characters");
}

TEST(ConfigIfIp, Ipv4AndIpv6Literals) {
  for (const char *good : {"127.0.0.1", "10.0.0.255", "::1", "fe80::1"}) {
    auto r = cfgtest::load({{"HCCL_IF_IP", good}});
    ASSERT_TRUE(r.isOk()) << good << ": " << r.message();
    EXPECT_EQ(r->ifIp, good);
  }
  for (const char *bad :
       {"256.1.1.1", "localhost", "1.2.3", "1.2.3.4:80", " 1.2.3.4", "::g"})
    expectError("HCCL_IF_IP", bad, "IPv4 or IPv6 address");
}

TEST(ConfigIbLib, StoredAsGiven) {
  auto r = cfgtest::load({{"HCCL_IB_LIB", "/opt/rdma/libibverbs.so.1"}});
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ(r->ibLib, "/opt/rdma/libibverbs.so.1");
  EXPECT_EQ(cfgtest::load({})->ibLib, "");
}

TEST(ConfigAlgo, ParsedWithTheScheduleParser) {
  auto good = cfgtest::load({{"HCCL_ALGO", "level0:NA;level1:H-D_R"}});
  ASSERT_TRUE(good.isOk()) << good.message();
  EXPECT_EQ(good->algo, "level0:NA;level1:H-D_R");
  auto bad = cfgtest::load({{"HCCL_ALGO", "level7:nonsense"}});
  ASSERT_TRUE(good->algoSpec.has_value());
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.message().rfind("HCCL_ALGO=level7:nonsense: ", 0), 0u)
      << bad.message();
  auto perOp = cfgtest::load(
      {{"HCCL_ALGO", "allreduce=level0:NA;level1:ring/allgather=level0:NA;"
                     "level1:H-D_R"}});
  ASSERT_TRUE(perOp.isOk()) << perOp.message();
  EXPECT_TRUE(
      perOp->algoSpec->forCollective(hccl::sched::Collective::AllReduce).set);
  EXPECT_TRUE(cfgtest::load({})->algo.empty());
}

std::string writeTemp(const std::string &text) {
  char path[] = "/tmp/hccl-algo-table-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()),
            static_cast<ssize_t>(text.size()));
  close(fd);
  return path;
}

TEST(ConfigAlgoTable, ReadsTheTableAndNamesWhatIsWrong) {
  const std::string head =
      R"({"format": "hccl-mlir.algo-table", "version": 1, "topology": "host-4", "entries": [)";
  std::string good = writeTemp(
      head +
      R"({"collective": "broadcast", "ranks": 4, "bytes": 0, "algorithm": "star"}]})");
  auto r = cfgtest::load({{"HCCL_ALGO_TABLE", good}});
  ASSERT_TRUE(r.isOk()) << r.message();
  ASSERT_TRUE(r->algoTable);
  EXPECT_EQ(r->algoTable->entries.size(), 1u);
  EXPECT_EQ(r->algoTableFile, good);
  EXPECT_NE(hccl::rt::formatConfig(*r).find("HCCL_ALGO_TABLE=" + good),
            std::string::npos);
  // Ranks compare the digest: the same bytes agree, other bytes do not.
  std::string same = writeTemp(
      head +
      R"({"collective": "broadcast", "ranks": 4, "bytes": 0, "algorithm": "star"}]})");
  std::string other = writeTemp(
      head +
      R"({"collective": "broadcast", "ranks": 4, "bytes": 0, "algorithm": "ring"}]})");
  EXPECT_EQ(cfgtest::load({{"HCCL_ALGO_TABLE", same}})->algoTableDigest,
            r->algoTableDigest);
  EXPECT_NE(cfgtest::load({{"HCCL_ALGO_TABLE", other}})->algoTableDigest,
            r->algoTableDigest);

  std::string bad = writeTemp(
      head +
      R"({"collective": "broadcast", "ranks": 4, "bytes": 0, "algorithm": "warp"}]})");
  auto e = cfgtest::load({{"HCCL_ALGO_TABLE", bad}});
  ASSERT_FALSE(e.isOk());
  EXPECT_EQ(e.message().rfind("HCCL_ALGO_TABLE=" + bad + ": ", 0), 0u)
      << e.message();
  EXPECT_NE(e.message().find("entries[0].algorithm"), std::string::npos)
      << e.message();
  std::string notJson = writeTemp("{\"format\": ");
  EXPECT_FALSE(cfgtest::load({{"HCCL_ALGO_TABLE", notJson}}).isOk());
  auto missing = cfgtest::load({{"HCCL_ALGO_TABLE", "/nonexistent/t.json"}});
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.message().find("cannot open"), std::string::npos)
      << missing.message();
  for (const std::string &f : {good, same, other, bad, notJson})
    unlink(f.c_str());
}

TEST(ConfigErrors, EveryInvalidVariableIsReportedOnOneLine) {
  auto r = cfgtest::load({{"HCCL_BUFFSIZE", "0"},
                          {"HCCL_RDMA_SL", "9"},
                          {"HCCL_TRANSPORT", "carrier-pigeon"},
                          {"HCCL_IF_BASE_PORT", "60000"}});
  ASSERT_FALSE(r.isOk());
  const std::string &m = r.message();
  EXPECT_NE(m.find("HCCL_BUFFSIZE=0: "), std::string::npos) << m;
  EXPECT_NE(m.find("HCCL_RDMA_SL=9: "), std::string::npos) << m;
  EXPECT_NE(m.find("HCCL_TRANSPORT=carrier-pigeon: "), std::string::npos) << m;
  EXPECT_EQ(m.find("HCCL_IF_BASE_PORT"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

TEST(ConfigErrors, ControlCharactersAndLongValuesAreEscaped) {
  std::string msg = errorFor("HCCL_BUFFSIZE", "12\n34\x1b");
  EXPECT_NE(msg.find("HCCL_BUFFSIZE=12\\x0a34\\x1b:"), std::string::npos)
      << msg;
  std::string longValue(500, '7');
  msg = errorFor("HCCL_RDMA_SL", longValue);
  EXPECT_LT(msg.size(), 200u) << "long values are cut: " << msg;
  EXPECT_NE(msg.find("..."), std::string::npos);
  // Cut in the middle: a long path keeps its file name.
  std::string path = "/" + std::string(200, 'd') + "/tables/bad.json";
  msg = errorFor("HCCL_ALGO_TABLE", path);
  EXPECT_NE(msg.find("HCCL_ALGO_TABLE=/ddd"), std::string::npos) << msg;
  EXPECT_NE(msg.find("...dddddddd/tables/bad.json:"), std::string::npos) << msg;
}

TEST(ConfigUnknown, ListsHcclVariablesTheRuntimeDoesNotRead) {
  const char *envp[] = {"PATH=/usr/bin",
                        "HCCL_BUFSIZE=300",
                        "HCCL_BUFFSIZE=300",
                        "HCCL_ROOT_INFO_FILE=/x",
                        "HCCL_INTRA_PCIE_ENABLE=1",
                        "HCCL_ALGO=",
                        "XHCCL_FOO=1",
                        nullptr};
  auto unknown = hccl::rt::unknownHcclVariables(envp);
  ASSERT_EQ(unknown.size(), 2u);
  EXPECT_EQ(unknown[0], "HCCL_BUFSIZE");
  EXPECT_EQ(unknown[1], "HCCL_INTRA_PCIE_ENABLE");
  EXPECT_TRUE(hccl::rt::unknownHcclVariables(nullptr).empty());
}

TEST(ConfigFormat, ShowsEveryVariableWithItsValue) {
  auto r = cfgtest::load({{"HCCL_BUFFSIZE", "64"},
                          {"HCCL_DETERMINISTIC", "strict"},
                          {"HCCL_RDMA_GID_INDEX", "3"}});
  ASSERT_TRUE(r.isOk());
  std::string s = hccl::rt::formatConfig(*r);
  for (const std::string &name : hccl::rt::configVariableNames())
    EXPECT_NE(s.find(name), std::string::npos) << name << " missing in " << s;
  EXPECT_NE(s.find("HCCL_BUFFSIZE=64 "), std::string::npos) << s;
  EXPECT_NE(s.find("HCCL_DETERMINISTIC=strict "), std::string::npos) << s;
  EXPECT_NE(s.find("HCCL_RDMA_GID_INDEX=3 "), std::string::npos) << s;
}

TEST(ConfigDocs, EveryVariableIsDocumented) {
  std::ifstream in(HCCL_SOURCE_DIR "/docs/env-vars.md");
  ASSERT_TRUE(in) << "docs/env-vars.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  for (const std::string &name : hccl::rt::configVariableNames())
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos)
        << name << " is not documented in docs/env-vars.md";
}

} // namespace
