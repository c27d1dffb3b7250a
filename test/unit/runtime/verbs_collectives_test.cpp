//===- verbs_collectives_test.cpp - The collective suite over RoCE --------===//
//
// The runtime's collectives run over the verbs transport on the fake
// libibverbs, element-exact against rt_reference.h:
//  - every link verbs (HCCL_TRANSPORT=verbs), p in {2, 3, 4}: every
//    collective x every algorithm of lib/schedule (plus the API's choice) x
//    counts from 0 to several slot rings (credits wrap many times);
//  - two "servers" (HCCL_FAKE_HOST_ID) of two ranks: shm inside a server,
//    verbs between, hierarchical algorithms included;
//  - HCCL_RDMA_QPS_PER_CONNECTION=4 (chunks striped over queue pairs);
//  - the registration cache: registered and HcclMemAlloc'd buffers go out
//    zero-copy, malloc'd ones through the bounce ring, a deregistered range
//    stops being used;
//  - point-to-point in both directions at once.
//
//===----------------------------------------------------------------------===//
#include "rt_collective_runner.h"
#include "verbs_env.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>

using namespace rtest;

namespace {

const Collective kColls[] = {Collective::AllReduce, Collective::ReduceScatter,
                             Collective::AllGather, Collective::Broadcast,
                             Collective::Reduce,    Collective::AllToAll,
                             Collective::AllToAllV};

/// Every collective x algorithm x count on this communicator.
std::string runMatrix(HcclComm comm, int rank, int p,
                      const std::vector<uint64_t> &counts) {
  int variant = 0;
  for (Collective coll : kColls)
    for (uint64_t count : counts)
      for (const AlgoChoice &a : algoChoices(coll, p)) {
        RunSpec s;
        s.coll = coll;
        s.algo = a;
        // Large counts in fp32 sum; small ones rotate types and operators.
        bool big = count > 4096;
        const DataType smallTypes[] = {DataType::Bf16, DataType::Int32,
                                       DataType::Fp64, DataType::Int8};
        const ReduceOp ops[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max,
                                ReduceOp::Min};
        s.dtype = big ? DataType::Fp32 : smallTypes[variant % 4];
        s.op = hccl::sched::isReduction(coll)
                   ? (big ? ReduceOp::Sum : ops[variant % 4])
                   : ReduceOp::Sum;
        s.count = count;
        s.root = static_cast<int>((count * 3 + 1) % static_cast<uint64_t>(p));
        s.inPlace = supportsInPlace(coll) && variant % 3 == 1;
        s.sharedMem = variant % 2 == 1;
        ++variant;
        std::string err = runOne(comm, rank, p, s);
        if (!err.empty())
          return err;
      }
  return "";
}

class VerbsCollectives : public VerbsFixture {};

} // namespace

TEST_F(VerbsCollectives, EveryAlgorithmOverVerbs) {
  for (int p : {2, 3, 4}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    auto body = [](RankCtx &c) -> std::string {
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      std::string e =
          checkLinks(comm, c.rank, c.size, [](int) { return "verbs"; });
      if (!e.empty())
        return e;
      // 0, 1, odd, 3p+1, and 1.25 M elements (5 MiB of fp32: the 2 MiB
      // receive ring wraps, credits flow back many times).
      std::vector<uint64_t> counts = {
          0, 1, 7, static_cast<uint64_t>(c.size) * 3 + 1, (5u << 20) / 4 + 3};
      e = runMatrix(comm, c.rank, c.size, counts);
      if (!e.empty())
        return e;
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(p, body, verbsOpts()), "");
  }
}

TEST_F(VerbsCollectives, TwoServersUseShmInsideAndVerbsBetween) {
  // Ranks 0,1 on "server A", 2,3 on "server B": the runtime sees a 2-server
  // topology, so hierarchical schedules run (intra-server shm,
  // inter-server verbs).
  auto body = [](RankCtx &c) -> std::string {
    setenv("HCCL_FAKE_HOST_ID", c.rank < 2 ? "serverA" : "serverB", 1);
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    std::string e = checkLinks(comm, c.rank, c.size, [&](int q) {
      return q / 2 == c.rank / 2 ? "shm" : "verbs";
    });
    if (!e.empty())
      return e;
    bool sawHierarchical = false;
    for (Collective coll : kColls)
      for (const AlgoChoice &a : algoChoices(coll, c.size))
        sawHierarchical = sawHierarchical || a.algo == Algorithm::Hierarchical;
    RT_CHECK(sawHierarchical, "no hierarchical algorithm among the candidates");
    std::vector<uint64_t> counts = {1, 13, (3u << 20) / 4 + 1};
    e = runMatrix(comm, c.rank, c.size, counts);
    if (!e.empty())
      return e;
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(4, body, verbsOpts("auto")), "");
}

TEST_F(VerbsCollectives, SeveralQueuePairsPerConnection) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    for (int q = 0; q < c.size; ++q) {
      if (q == c.rank)
        continue;
      const auto *vp = verbsPair(comm, q);
      RT_CHECK(vp != nullptr,
               "link to rank " + std::to_string(q) + " is not verbs");
      RT_CHECK(vp->queuePairs() == 4,
               std::to_string(vp->queuePairs()) + " queue pairs");
    }
    for (Algorithm algo : {Algorithm::Ring, Algorithm::RHD}) {
      RunSpec s;
      s.coll = Collective::AllReduce;
      s.algo = AlgoChoice{false, algo, 0};
      s.dtype = DataType::Fp32;
      s.count = (6u << 20) / 4 + 5;
      std::string e = runOne(comm, c.rank, c.size, s);
      if (!e.empty())
        return e;
    }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  RunOptions o = verbsOpts();
  o.env.push_back({"HCCL_RDMA_QPS_PER_CONNECTION", "4"});
  EXPECT_EQ(runRanks(3, body, o), "");
}

TEST_F(VerbsCollectives, RegisteredBuffersAreSentZeroCopy) {
  // Ring all-reduce sends from the output buffer: registered (or
  // HcclMemAlloc'd) memory goes out straight from the user's pages, other
  // memory through the bounce ring; a deregistered range is no longer used.
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    const int peer = 1 - c.rank;
    const size_t n = (4u << 20) / 4;
    auto stats = [&] { return verbsPair(comm, peer)->stats(); };
    auto ringAllReduce = [&](float *in, float *out) -> std::string {
      for (size_t i = 0; i < n; ++i)
        in[i] = static_cast<float>((i % 1000) + c.rank);
      hccl::sched::GenerateRequest req;
      req.collective = Collective::AllReduce;
      req.algorithm = Algorithm::Ring;
      req.ranks = 2;
      req.count = static_cast<int64_t>(n);
      req.dtype = DataType::Fp32;
      req.reduceOp = ReduceOp::Sum;
      auto prog = hccl::sched::generate(req);
      if (!prog)
        return prog.message();
      hccl::rt::Status st = commOf(comm)->runProgram(*prog, {}, in, out);
      if (!st.isOk())
        return st.message();
      for (size_t i = 0; i < n; ++i)
        if (out[i] != static_cast<float>(2 * (i % 1000) + 1))
          return "wrong sum at " + std::to_string(i);
      return "";
    };
    std::vector<float> in(n), out(n);
    // Plain malloc'd memory: bounced.
    auto s0 = stats();
    std::string e = ringAllReduce(in.data(), out.data());
    if (!e.empty())
      return e;
    auto s1 = stats();
    RT_CHECK(s1.bounceChunks > s0.bounceChunks &&
                 s1.zeroCopyChunks == s0.zeroCopyChunks,
             "malloc'd buffers were not bounced");
    // Registered: zero-copy, from the second call on too (cache hit).
    void *hIn = nullptr, *hOut = nullptr;
    RT_OK(HcclCommRegister(comm, out.data(), n * 4, &hOut, 0));
    RT_OK(HcclCommRegister(comm, in.data(), n * 4, &hIn, 0));
    e = ringAllReduce(in.data(), out.data());
    if (!e.empty())
      return e;
    auto s2 = stats();
    RT_CHECK(s2.zeroCopyChunks > s1.zeroCopyChunks &&
                 s2.bounceChunks == s1.bounceChunks,
             "registered buffers were bounced");
    e = ringAllReduce(in.data(), out.data());
    if (!e.empty())
      return e;
    auto s3 = stats();
    RT_CHECK(s3.zeroCopyChunks - s2.zeroCopyChunks ==
                     s2.zeroCopyChunks - s1.zeroCopyChunks &&
                 s3.bounceChunks == s2.bounceChunks,
             "second call on registered buffers not zero-copy");
    // Deregistered: back to the bounce ring.
    RT_OK(HcclCommDeregister(comm, hOut));
    RT_OK(HcclCommDeregister(comm, hIn));
    e = ringAllReduce(in.data(), out.data());
    if (!e.empty())
      return e;
    auto s4 = stats();
    RT_CHECK(s4.bounceChunks > s3.bounceChunks &&
                 s4.zeroCopyChunks == s3.zeroCopyChunks,
             "deregistered buffers are still sent zero-copy");
    // Shareable memory from HcclMemAlloc: zero-copy without registering.
    void *a = nullptr, *b = nullptr;
    RT_OK(HcclMemAlloc(&a, n * 4));
    RT_OK(HcclMemAlloc(&b, n * 4));
    auto s5 = stats();
    e = ringAllReduce(static_cast<float *>(a), static_cast<float *>(b));
    if (!e.empty())
      return e;
    auto s6 = stats();
    RT_CHECK(s6.zeroCopyChunks > s5.zeroCopyChunks &&
                 s6.bounceChunks == s5.bounceChunks,
             "HcclMemAlloc'd buffers were bounced");
    // Freed regions lose their registrations (the next miss sweeps them);
    // new ones are registered afresh, even at a reused address.
    auto m0 = verbsPair(comm, peer)->registrations();
    RT_OK(HcclMemFree(a));
    RT_OK(HcclMemFree(b));
    RT_OK(HcclMemAlloc(&a, n * 4));
    RT_OK(HcclMemAlloc(&b, n * 4));
    e = ringAllReduce(static_cast<float *>(a), static_cast<float *>(b));
    if (!e.empty())
      return e;
    auto m1 = verbsPair(comm, peer)->registrations();
    RT_CHECK(m1.deregistrations >= m0.deregistrations + 1,
             "freed regions still registered");
    RT_CHECK(m1.registrations >= m0.registrations + 1,
             "new region not registered");
    RT_CHECK(stats().bounceChunks == s6.bounceChunks,
             "new regions were bounced");
    RT_OK(HcclMemFree(a));
    RT_OK(HcclMemFree(b));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body, verbsOpts()), "");
}

TEST_F(VerbsCollectives, PointToPointLargeMessages) {
  // Calls on a communicator run in issue order, so rank 0 sends first and
  // rank 1 receives first; 8 MiB each way is four turns of the slot ring.
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    const size_t n = (8u << 20) / 4;
    std::vector<int32_t> out(n), in(n, -1);
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<int32_t>(i * 2 + static_cast<size_t>(c.rank));
    uint32_t peer = static_cast<uint32_t>(1 - c.rank);
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (c.rank == 0))
        RT_OK(
            HcclSend(out.data(), n, HCCL_DATA_TYPE_INT32, peer, comm, nullptr));
      else
        RT_OK(
            HcclRecv(in.data(), n, HCCL_DATA_TYPE_INT32, peer, comm, nullptr));
    }
    for (size_t i = 0; i < n; ++i)
      RT_CHECK(in[i] == static_cast<int32_t>(i * 2 + peer),
               "element " + std::to_string(i));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body, verbsOpts()), "");
}

namespace {
int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}
} // namespace

TEST_F(VerbsCollectives, RankTableWithTwoServers) {
  // HCCL's rank table (two servers of two devices) through
  // HcclCommInitClusterInfo; the processes stand for the servers'
  // hosts through HCCL_FAKE_HOST_ID.
  static std::string table;
  table = "/tmp/hccl-verbs-ranktable-" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(table);
    f << R"({"version":"1.0","status":"completed","server_count":"2","server_list":[)"
      << R"({"server_id":"127.0.0.1","device":[{"device_id":"0","device_ip":"192.168.1.0","rank_id":"0"},)"
      << R"({"device_id":"1","device_ip":"192.168.1.1","rank_id":"1"}]},)"
      << R"({"server_id":"127.0.0.2","device":[{"device_id":"0","device_ip":"192.168.1.2","rank_id":"2"},)"
      << R"({"device_id":"1","device_ip":"192.168.1.3","rank_id":"3"}]}]})";
  }
  static int port;
  port = freePort();
  auto body = [](RankCtx &c) -> std::string {
    setenv("HCCL_IF_BASE_PORT", std::to_string(port).c_str(), 1);
    setenv("HCCL_FAKE_HOST_ID", c.rank < 2 ? "127.0.0.1" : "127.0.0.2", 1);
    HcclComm comm;
    RT_OK(HcclCommInitClusterInfo(table.c_str(), static_cast<uint32_t>(c.rank),
                                  &comm));
    std::string e = checkLinks(comm, c.rank, c.size, [&](int q) {
      return q / 2 == c.rank / 2 ? "shm" : "verbs";
    });
    if (!e.empty())
      return e;
    for (const AlgoChoice &a : algoChoices(Collective::AllReduce, c.size)) {
      RunSpec s;
      s.coll = Collective::AllReduce;
      s.algo = a;
      s.count = (2u << 20) / 4 + 1;
      e = runOne(comm, c.rank, c.size, s);
      if (!e.empty())
        return e;
    }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(4, body, verbsOpts("auto")), "");
  std::remove(table.c_str());
}

namespace {
int countDir(const char *path) {
  int n = 0;
  if (DIR *d = opendir(path)) {
    while (readdir(d))
      ++n;
    closedir(d);
  }
  return n;
}
} // namespace

TEST_F(VerbsCollectives, DestroyReleasesThreadsDescriptorsAndQueuePairs) {
  // After the first communicator (which loads the library once per
  // process), creating and destroying one leaves no thread (event thread,
  // the fake adapter's thread) and no descriptor (completion channel, async
  // pipe, queue pair memfds, bootstrap sockets) behind.
  auto body = [](RankCtx &c) -> std::string {
    auto once = [&]() -> std::string {
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      RunSpec s;
      s.coll = Collective::AllReduce;
      s.count = (1u << 20) / 4;
      std::string e = runOne(comm, c.rank, c.size, s);
      if (!e.empty())
        return e;
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    std::string e = once();
    if (!e.empty())
      return e;
    int threads0 = countDir("/proc/self/task"),
        fds0 = countDir("/proc/self/fd");
    for (int i = 0; i < 3; ++i) {
      e = once();
      if (!e.empty())
        return e;
    }
    RT_CHECK(countDir("/proc/self/task") == threads0,
             std::to_string(countDir("/proc/self/task")) + " threads, " +
                 std::to_string(threads0) + " before");
    RT_CHECK(countDir("/proc/self/fd") == fds0,
             std::to_string(countDir("/proc/self/fd")) + " descriptors, " +
                 std::to_string(fds0) + " before");
    return "";
  };
  EXPECT_EQ(runRanks(3, body, verbsOpts()), "");
}

TEST_F(VerbsCollectives, SplitCommunicatorsOverVerbs) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm world;
    RT_OK(c.initComm(&world));
    HcclComm sub = nullptr;
    // Ranks {0, 2} and {1, 3}, in reverse key order.
    RT_OK(HcclCommSplit(world, c.rank % 2, -c.rank, &sub));
    RT_CHECK(sub != nullptr, "no sub-communicator");
    uint32_t r = 0, n = 0;
    RT_OK(HcclGetRankId(sub, &r));
    RT_OK(HcclGetRankSize(sub, &n));
    RT_CHECK(n == 2, "size " + std::to_string(n));
    RT_CHECK(verbsPair(sub, 1 - static_cast<int>(r)) != nullptr,
             "sub link is not verbs");
    for (Collective coll : {Collective::AllReduce, Collective::AllGather}) {
      RunSpec s;
      s.coll = coll;
      s.count = 100003;
      std::string e = runOne(sub, static_cast<int>(r), 2, s);
      if (!e.empty())
        return e;
    }
    RT_OK(HcclCommDestroy(sub));
    RT_OK(HcclCommDestroy(world));
    return "";
  };
  EXPECT_EQ(runRanks(4, body, verbsOpts()), "");
}
