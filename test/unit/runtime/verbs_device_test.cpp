//===- verbs_device_test.cpp - Real devices, and life without one ---------===//
//
// RealDevice runs collectives over the system's libibverbs when
// `ibv_devices` lists an RDMA device, and otherwise reports itself SKIPPED
// with the reason (never passed). The other tests check what happens
// without a device or library: one log line and TCP between hosts,
// HCCL_TRANSPORT=verbs failing init with the reason, and per-link
// negotiation when only some ranks have a device.
//
//===----------------------------------------------------------------------===//
#include "rt_collective_runner.h"
#include "verbs_env.h"

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sstream>

using namespace rtest;

namespace {

/// Device names `ibv_devices` prints, or why there are none.
std::vector<std::string> listRdmaDevices(std::string &why) {
  std::vector<std::string> devs;
  FILE *f = popen("ibv_devices 2>&1", "r");
  if (!f) {
    why = "cannot run ibv_devices";
    return devs;
  }
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof(buf), f))
    out += buf;
  int rc = pclose(f);
  std::istringstream in(out);
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first.rfind("------", 0) == 0) {
      table = true;
      continue;
    }
    if (table && !first.empty())
      devs.push_back(first);
  }
  if (devs.empty()) {
    std::string firstLine = out.substr(0, out.find('\n'));
    why = rc != 0 ? "ibv_devices failed (" +
                        (firstLine.empty() ? "not installed?" : firstLine) + ")"
                  : "ibv_devices lists no device";
  }
  return devs;
}

/// Runs `body` with stderr going to a file; returns what was written.
std::string captureStderr(const std::function<std::string()> &body,
                          std::string &err) {
  char path[] = "/tmp/hccl-verbs-stderr-XXXXXX";
  int fd = mkstemp(path);
  int saved = dup(2);
  dup2(fd, 2);
  err = body();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  unlink(path);
  return ss.str();
}

size_t countOf(const std::string &s, const std::string &part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos;
       at = s.find(part, at + 1))
    ++n;
  return n;
}

/// One checked all-reduce of 1 MiB (fp32 sum) on `comm`.
std::string checkedAllReduce(HcclComm comm, int rank, int p) {
  RunSpec s;
  s.coll = Collective::AllReduce;
  s.dtype = DataType::Fp32;
  s.count = (1u << 20) / 4;
  return runOne(comm, rank, p, s);
}

class VerbsDevices : public VerbsFixture {};

} // namespace

TEST(RealDevice, CollectivesOverTheSystemLibibverbs) {
  std::string why;
  std::vector<std::string> devs = listRdmaDevices(why);
  if (devs.empty())
    GTEST_SKIP() << "no RDMA device on this machine: " << why;
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    std::string e =
        checkLinks(comm, c.rank, c.size, [](int) { return "verbs"; });
    if (!e.empty())
      return e;
    for (Algorithm a : {Algorithm::Ring, Algorithm::RHD})
      for (uint64_t count : {uint64_t(1), uint64_t(4099), uint64_t(3) << 20}) {
        RunSpec s;
        s.coll = Collective::AllReduce;
        s.algo = AlgoChoice{false, a, 0};
        s.dtype = DataType::Fp32;
        s.count = count;
        e = runOne(comm, c.rank, c.size, s);
        if (!e.empty())
          return e;
      }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  RunOptions o;
  o.timeoutSec = 120;
  o.env = {{"HCCL_TRANSPORT", "verbs"}, {"HCCL_EXEC_TIMEOUT", "60"}};
  EXPECT_EQ(runRanks(2, body, o), "") << "devices: " << devs[0];
}

TEST_F(VerbsDevices, NoDeviceMeansTcpBetweenHostsAndOneLogLine) {
  auto body = [](RankCtx &c) -> std::string {
    setenv("HCCL_FAKE_HOST_ID", c.rank == 0 ? "hostA" : "hostB", 1);
    std::string err;
    std::string log = captureStderr(
        [&]() -> std::string {
          for (int k = 0; k < 2; ++k) {
            HcclComm comm;
            RT_OK(c.initComm(&comm));
            std::string e =
                checkLinks(comm, c.rank, c.size, [](int) { return "tcp"; });
            if (e.empty())
              e = checkedAllReduce(comm, c.rank, c.size);
            if (!e.empty())
              return e;
            RT_OK(HcclCommDestroy(comm));
          }
          return "";
        },
        err);
    if (!err.empty())
      return err;
    RT_CHECK(countOf(log, "verbs (RoCE) transport unavailable") == 1,
             "log was: " + log);
    RT_CHECK(contains(log, "no RDMA device") &&
                 contains(log, "links between hosts use TCP"),
             log);
    return "";
  };
  RunOptions o = verbsOpts("auto");
  o.env.push_back({"FAKEVERBS_DEVICES", "none"});
  EXPECT_EQ(runRanks(2, body, o), "");
}

TEST_F(VerbsDevices, MissingLibraryMeansTcp) {
  auto body = [](RankCtx &c) -> std::string {
    setenv("HCCL_FAKE_HOST_ID", c.rank == 0 ? "hostA" : "hostB", 1);
    std::string err;
    std::string log = captureStderr(
        [&]() -> std::string {
          HcclComm comm;
          RT_OK(c.initComm(&comm));
          std::string e =
              checkLinks(comm, c.rank, c.size, [](int) { return "tcp"; });
          if (e.empty())
            e = checkedAllReduce(comm, c.rank, c.size);
          if (!e.empty())
            return e;
          RT_OK(HcclCommDestroy(comm));
          return "";
        },
        err);
    if (!err.empty())
      return err;
    RT_CHECK(
        contains(log, "cannot load /nonexistent/libibverbs.so.1 (HCCL_IB_LIB)"),
        log);
    return "";
  };
  RunOptions o = verbsOpts("auto");
  for (auto &kv : o.env)
    if (kv.first == "HCCL_IB_LIB")
      kv.second = "/nonexistent/libibverbs.so.1";
  EXPECT_EQ(runRanks(2, body, o), "");
}

TEST_F(VerbsDevices, SystemLibraryChoosesByWhatItFinds) {
  // HCCL_IB_LIB unset: rdma-core's library. Verbs where it lists a device,
  // TCP where it does not (these build machines have no RDMA device).
  std::string why;
  bool haveDevice = !listRdmaDevices(why).empty();
  auto body = [haveDevice](RankCtx &c) -> std::string {
    setenv("HCCL_FAKE_HOST_ID", c.rank == 0 ? "hostA" : "hostB", 1);
    unsetenv("HCCL_IB_LIB");
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    std::string e = checkLinks(comm, c.rank, c.size, [&](int) {
      return haveDevice ? "verbs" : "tcp";
    });
    if (e.empty())
      e = checkedAllReduce(comm, c.rank, c.size);
    if (!e.empty())
      return e;
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  RunOptions o = verbsOpts("auto");
  o.env.push_back({"HCCL_LOG_LEVEL", "error"});
  EXPECT_EQ(runRanks(2, body, o), "");
}

TEST_F(VerbsDevices, VerbsRequiredWithoutDeviceFailsInit) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    HcclResult rc = c.initComm(&comm);
    std::string msg = HcclGetLastErrorMessage();
    RT_CHECK(rc == HCCL_E_NOT_SUPPORT,
             std::string(HcclGetErrorString(rc)) + ": " + msg);
    RT_CHECK(contains(msg, "HCCL_TRANSPORT=verbs") &&
                 contains(msg, "no RDMA device"),
             msg);
    return "";
  };
  RunOptions o = verbsOpts("verbs");
  o.env.push_back({"FAKEVERBS_DEVICES", "none"});
  o.env.push_back({"HCCL_CONNECT_TIMEOUT_MS", "10000"});
  o.env.push_back({"HCCL_LOG_LEVEL", "error"});
  EXPECT_EQ(runRanks(2, body, o), "");
}

TEST_F(VerbsDevices, LinksNegotiateWhenOnlySomeRanksHaveADevice) {
  // Three hosts; rank 2 has no device. Links 0-1 are verbs, links to rank 2
  // TCP, and the collectives still agree.
  auto body = [](RankCtx &c) -> std::string {
    setenv("HCCL_FAKE_HOST_ID", ("host" + std::to_string(c.rank)).c_str(), 1);
    if (c.rank == 2)
      setenv("FAKEVERBS_DEVICES", "none", 1);
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    std::string e = checkLinks(comm, c.rank, c.size, [&](int q) {
      return (q == 2 || c.rank == 2) ? "tcp" : "verbs";
    });
    if (e.empty())
      e = checkedAllReduce(comm, c.rank, c.size);
    if (!e.empty())
      return e;
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  RunOptions o = verbsOpts("auto");
  o.env.push_back({"HCCL_LOG_LEVEL", "error"});
  EXPECT_EQ(runRanks(3, body, o), "");
}

TEST_F(VerbsDevices, VerbsRequiredFailsWhenAPeerHasNoDevice) {
  auto body = [](RankCtx &c) -> std::string {
    if (c.rank == 1)
      setenv("FAKEVERBS_DEVICES", "none", 1);
    HcclComm comm;
    HcclResult rc = c.initComm(&comm);
    std::string msg = HcclGetLastErrorMessage();
    // Both ends of the link say why: rank 1 of itself, rank 0 quoting
    // rank 1's offer.
    RT_CHECK(rc == HCCL_E_NOT_SUPPORT,
             std::string(HcclGetErrorString(rc)) + ": " + msg);
    RT_CHECK(contains(msg, "HCCL_TRANSPORT=verbs") &&
                 contains(msg, "no RDMA device"),
             msg);
    RT_CHECK(contains(msg, c.rank == 1 ? "this rank" : "rank 1"), msg);
    return "";
  };
  RunOptions o = verbsOpts("verbs");
  o.env.push_back({"HCCL_CONNECT_TIMEOUT_MS", "2000"});
  o.env.push_back({"HCCL_LOG_LEVEL", "error"});
  EXPECT_EQ(runRanks(2, body, o), "");
}
