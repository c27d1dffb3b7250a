//===- rt_multihost_test.cpp - Two "hosts" on one machine -----------------===//
//
// Two network namespaces joined by a veth pair stand in for two servers
// (docs/design.md, "Test machines"): ranks in one namespace share memory, ranks
// in different ones talk TCP, and the runtime sees a 2-server topology
// (hierarchical algorithms become candidates). Needs root and iproute2; skipped
// otherwise.
//
//===----------------------------------------------------------------------===//
#include "core/Communicator.h"
#include "rt_collective_runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>

using namespace rtest;

namespace {

class TwoHosts : public testing::Test {
protected:
  void SetUp() override {
    if (geteuid() != 0)
      GTEST_SKIP() << "needs root to create network namespaces";
    tag_ = std::to_string(getpid() % 100000);
    nsA_ = "hcclA" + tag_;
    nsB_ = "hcclB" + tag_;
    std::string vA = "hvA" + tag_, vB = "hvB" + tag_;
    const std::vector<std::string> cmds = {
        "ip netns add " + nsA_,
        "ip netns add " + nsB_,
        "ip link add " + vA + " type veth peer name " + vB,
        "ip link set " + vA + " netns " + nsA_,
        "ip link set " + vB + " netns " + nsB_,
        "ip -n " + nsA_ + " addr add 10.213.0.1/24 dev " + vA,
        "ip -n " + nsB_ + " addr add 10.213.0.2/24 dev " + vB,
        "ip -n " + nsA_ + " link set " + vA + " up",
        "ip -n " + nsB_ + " link set " + vB + " up",
        "ip -n " + nsA_ + " link set lo up",
        "ip -n " + nsB_ + " link set lo up"};
    for (const auto &c : cmds)
      if (std::system((c + " 2>/dev/null").c_str()) != 0) {
        TearDown();
        GTEST_SKIP() << "cannot set up network namespaces (" << c << ")";
      }
    ready_ = true;
  }
  void TearDown() override {
    if (!nsA_.empty()) {
      (void)std::system(("ip netns del " + nsA_ + " 2>/dev/null").c_str());
      (void)std::system(("ip netns del " + nsB_ + " 2>/dev/null").c_str());
    }
  }
  /// Ranks 0..m-1 on host A, m..2m-1 on host B.
  std::string enter(int rank, int m) const {
    const std::string &ns = rank < m ? nsA_ : nsB_;
    int fd = open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
      return "cannot enter namespace " + ns;
    close(fd);
    // Host A names its address, host B its interface (HCCL_SOCKET_IFNAME,
    // exact-name form): both choices are exercised.
    if (rank < m)
      setenv("HCCL_IF_IP", "10.213.0.1", 1);
    else
      setenv("HCCL_SOCKET_IFNAME", ("=hvB" + tag_).c_str(), 1);
    return "";
  }
  std::string tag_, nsA_, nsB_;
  bool ready_ = false;
};

} // namespace

TEST_F(TwoHosts, TransportsFollowTheTopologyAndEveryAlgorithmRuns) {
  const int m = 2, p = 2 * m;
  auto body = [this](RankCtx &c) -> std::string {
    std::string e = enter(c.rank, m);
    if (!e.empty())
      return e;
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    auto *cc = static_cast<hccl::rt::Communicator *>(comm);
    for (int q = 0; q < p; ++q) {
      std::string want =
          q == c.rank ? "self" : (q / m == c.rank / m ? "shm" : "tcp");
      RT_CHECK(want == cc->linkKind(q), "link to rank " + std::to_string(q) +
                                            " is " + cc->linkKind(q) +
                                            ", expected " + want);
    }
    for (Collective coll :
         {Collective::AllReduce, Collective::ReduceScatter,
          Collective::AllGather, Collective::Broadcast, Collective::Reduce,
          Collective::AllToAll, Collective::AllToAllV})
      for (uint64_t count : {uint64_t(1), uint64_t(13), uint64_t(1) << 18})
        for (const AlgoChoice &a : algoChoices(coll, p)) {
          RunSpec s;
          s.coll = coll;
          s.algo = a;
          s.dtype = count > 1000 ? DataType::Fp32 : DataType::Bf16;
          s.op = hccl::sched::isReduction(coll) ? ReduceOp::Sum : ReduceOp::Sum;
          s.count = count;
          s.root = static_cast<int>(count % p);
          s.sharedMem = count > 1000;
          std::string err = runOne(comm, c.rank, p, s);
          if (!err.empty())
            return err;
        }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  RunOptions o;
  o.timeoutSec = 120;
  o.env = {{"HCCL_EXEC_TIMEOUT", "60"}};
  EXPECT_EQ(runRanks(p, body, o), "");
}

TEST_F(TwoHosts, ShmIsRefusedAcrossHosts) {
  auto body = [this](RankCtx &c) -> std::string {
    std::string e = enter(c.rank, 1);
    if (!e.empty())
      return e;
    setenv("HCCL_TRANSPORT", "shm", 1);
    HcclComm comm;
    HcclResult rc = c.initComm(&comm);
    RT_CHECK(rc == HCCL_E_PARA, HcclGetErrorString(rc));
    std::string msg = HcclGetLastErrorMessage();
    RT_CHECK(msg.find("HCCL_TRANSPORT=shm") != std::string::npos, msg);
    return "";
  };
  RunOptions o;
  o.timeoutSec = 60;
  o.env = {{"HCCL_CONNECT_TIMEOUT_MS", "5000"}, {"HCCL_LOG_LEVEL", "error"}};
  EXPECT_EQ(runRanks(2, body, o), "");
}
