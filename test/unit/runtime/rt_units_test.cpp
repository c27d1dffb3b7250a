//===- rt_units_test.cpp - Pieces of the runtime, in process --------------===//
#include "bootstrap/Launcher.h"
#include "bootstrap/Rendezvous.h"
#include "bootstrap/RootInfo.h"
#include "common/CacheSize.h"
#include "common/CpuMove.h"
#include "common/HostLoad.h"
#include "common/Socket.h"
#include "core/AlgorithmPolicy.h"
#include "core/InlineTask.h"
#include "core/IssueOrder.h"
#include "core/LocalWork.h"
#include "core/ProgramCache.h"
#include "core/RankInfo.h"
#include "core/Stream.h"
#include "core/TeePlan.h"
#include "core/WaitPolicy.h"
#include "hccl-mlir/schedule/Generate.h"
#include "transport/Transport.h"
#include "transport/shm/Regions.h"
#include "transport/shm/Segment.h"
#include "transport/shm/ShmPair.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <mutex>
#include <sched.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

using namespace hccl::rt;
namespace sched = hccl::sched;

TEST(RootInfo, RoundTripsAndRejectsCorruption) {
  RootInfoData d;
  d.uid = Uid::random();
  d.ip = "10.1.2.3";
  d.port = 60123;
  HcclRootInfo blob;
  encodeRootInfo(d, blob.internal);
  auto back = decodeRootInfo(blob.internal);
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back->ip, "10.1.2.3");
  EXPECT_EQ(back->port, 60123);
  EXPECT_TRUE(back->uid == d.uid);
  for (size_t i : {size_t(0), size_t(9), size_t(20), size_t(40), size_t(90)}) {
    HcclRootInfo bad = blob;
    bad.internal[i] ^= 0x10;
    auto r = decodeRootInfo(bad.internal);
    EXPECT_FALSE(r.isOk()) << "byte " << i;
    EXPECT_EQ(r.status().code(), HCCL_E_PARA);
  }
}

TEST(RootInfo, DerivedIdsAreDeterministicAndDistinct) {
  Uid u = Uid::random();
  EXPECT_TRUE(u.derive("split", 1, 2) == u.derive("split", 1, 2));
  EXPECT_FALSE(u.derive("split", 1, 2) == u.derive("split", 1, 3));
  EXPECT_FALSE(u.derive("split", 1, 2) == u.derive("sub", 1, 2));
  EXPECT_FALSE(Uid::random() == Uid::random());
  EXPECT_EQ(u.hex().size(), 32u);
}

// The root's reply to a joining rank. "E" with code 0 read as a failure
// whose status is success (StatusOr without a value): init went on with no
// rank table. Codes outside HcclResult's errors are malformed replies.
TEST(Rendezvous, ReplyDecodingRefusesNonErrorVerdicts) {
  auto reply = [](char kind, int32_t code, const std::string &rest) {
    std::string s(1, kind);
    s.append(reinterpret_cast<const char *>(&code), 4);
    return s + rest;
  };
  for (int32_t code : {0, -1, 1042, 123456}) {
    auto r = decodeRendezvousReply(reply('E', code, "x"), 2);
    EXPECT_FALSE(r.isOk()) << code;
    EXPECT_EQ(r.status().code(), HCCL_E_INTERNAL) << code;
  }
  auto v =
      decodeRendezvousReply(reply('E', HCCL_E_TIMEOUT, "rank 1 missing"), 2);
  EXPECT_EQ(v.status().code(), HCCL_E_TIMEOUT);
  EXPECT_EQ(v.status().message(), "rank 1 missing");
  int32_t one = 1;
  std::string entry(reinterpret_cast<const char *>(&one), 4);
  auto t = decodeRendezvousReply(reply('T', 2, entry + "a" + entry + "b"), 2);
  ASSERT_TRUE(t.isOk()) << t.status().message();
  EXPECT_EQ(*t, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(
      decodeRendezvousReply(reply('T', 2, entry + "a" + entry), 2).isOk());
  EXPECT_FALSE(decodeRendezvousReply(reply('T', 3, entry + "a"), 2).isOk());
}

// A rank's description comes from another process. A value of the wrong
// type or out of its field's range is refused naming the field: nlohmann's
// get<uint32_t>() on 8.9e85 was undefined behaviour, and integers wrapped
// (port 70000 read as 4464). Found by test/fuzz/runtime's rendezvous
// target (corpus/rendezvous/crash-nslots-float-out-of-range).
TEST(Rendezvous, RankDescriptionsAreTypeAndRangeChecked) {
  RankInfo r;
  r.rank = 3;
  r.hostId = "boot/net1/pid2";
  r.hostname = "node";
  r.pid = 4001;
  r.ip = "10.0.0.2";
  r.port = 60001;
  r.segFd = 7;
  r.nSlots = 8;
  r.slotBytes = 524288;
  r.settings = "algo=;det=0";
  r.cores = 96;
  const std::string good = r.encode();
  auto back = RankInfo::decode(good);
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back->rank, 3);
  EXPECT_EQ(back->port, 60001);
  EXPECT_EQ(back->segFd, 7);
  EXPECT_EQ(back->nSlots, 8u);
  EXPECT_EQ(back->slotBytes, 524288u);
  EXPECT_EQ(back->settings, r.settings);
  EXPECT_EQ(back->cores, 96);
  // `good` with one field's value replaced.
  auto with = [&](const std::string &key, const std::string &value) {
    std::string k = "\"" + key + "\":";
    size_t at = good.find(k);
    EXPECT_NE(at, std::string::npos) << key;
    size_t from = at + k.size(), to = good.find_first_of(",}", from);
    return good.substr(0, from) + value + good.substr(to);
  };
  const std::pair<const char *, const char *> bad[] = {
      {"nSlots", "8.9e85"},   {"nSlots", "4294967296"}, {"nSlots", "-1"},
      {"slotBytes", "1e10"},  {"port", "70000"},        {"port", "-1"},
      {"rank", "4294967299"}, {"rank", "1.5"},          {"rank", "-3"},
      {"pid", "\"4001\""},    {"segFd", "-2"},          {"ip", "17"},
      {"settings", "null"},   {"cores", "0"},           {"cores", "2e9"},
  };
  for (const auto &[key, value] : bad) {
    auto d = RankInfo::decode(with(key, value));
    ASSERT_FALSE(d.isOk()) << key << " = " << value;
    EXPECT_EQ(d.status().code(), HCCL_E_INTERNAL);
    EXPECT_NE(d.status().message().find(key), std::string::npos)
        << d.status().message();
  }
  std::string noPort = good;
  noPort.erase(noPort.find("\"port\""), std::string("\"port\":60001,").size());
  auto missing = RankInfo::decode(noPort);
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.status().message().find("port: missing"), std::string::npos)
      << missing.status().message();
  EXPECT_FALSE(RankInfo::decode("[1]").isOk());
  EXPECT_FALSE(RankInfo::decode("{\"rank\":").isOk());
}

TEST(Socket, IfnameMatchingFollowsHcclSyntax) {
  EXPECT_TRUE(ifnameMatches("eth", "eth0"));
  EXPECT_TRUE(ifnameMatches("eth,enp", "enp3s0"));
  EXPECT_FALSE(ifnameMatches("eth,enp", "lo"));
  EXPECT_FALSE(ifnameMatches("^eth", "eth1"));
  EXPECT_TRUE(ifnameMatches("^eth", "ib0"));
  EXPECT_TRUE(ifnameMatches("=eth0", "eth0"));
  EXPECT_FALSE(ifnameMatches("=eth0", "eth01"));
  EXPECT_FALSE(ifnameMatches("^=eth0", "eth0"));
  EXPECT_TRUE(ifnameMatches("^=eth0", "eth01"));
}

TEST(Socket, AddressesAndInterfaceChoice) {
  auto a = SockAddr::parse("127.0.0.1", 80);
  ASSERT_TRUE(a.isOk());
  EXPECT_EQ(a->str(), "127.0.0.1:80");
  EXPECT_TRUE(a->isLoopback());
  auto b = SockAddr::parse("::1", 81);
  ASSERT_TRUE(b.isOk());
  EXPECT_EQ(b->str(), "[::1]:81");
  EXPECT_FALSE(SockAddr::parse("300.1.1.1", 1).isOk());
  auto ip = chooseLocalIp("127.0.0.1", "");
  ASSERT_TRUE(ip.isOk());
  EXPECT_EQ(*ip, "127.0.0.1");
  auto lo = chooseLocalIp("", "=lo");
  ASSERT_TRUE(lo.isOk()) << lo.status().message();
  EXPECT_EQ(*lo, "127.0.0.1");
  auto none = chooseLocalIp("", "=nosuchif9");
  EXPECT_FALSE(none.isOk());
  EXPECT_NE(none.status().message().find(
                "HCCL_SOCKET_IFNAME==nosuchif9: no interface matches"),
            std::string::npos)
      << none.status().message();
  EXPECT_FALSE(chooseLocalIp("not-an-ip", "").isOk());
}

TEST(Socket, ListenOnAPortRangeSkipsBusyPorts) {
  auto first = listenOn("127.0.0.1", 0, 1);
  ASSERT_TRUE(first.isOk());
  uint16_t busy = first->second.port();
  auto second = listenOn("127.0.0.1", busy, 16);
  ASSERT_TRUE(second.isOk()) << second.status().message();
  EXPECT_NE(second->second.port(), busy);
  auto exact = listenOn("127.0.0.1", busy, 1);
  EXPECT_FALSE(exact.isOk());
}

// A socket bound to a local port and connected to that same port is
// connected to itself (a simultaneous open); connectTo must not hand such a
// socket out as a connection to the listener that has yet to bind there.
TEST(Socket, ASelfConnectionIsToldFromARealOne) {
  Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(s.valid());
  auto me = SockAddr::parse("127.0.0.1", 0);
  ASSERT_TRUE(me);
  ASSERT_EQ(
      ::bind(s.get(), reinterpret_cast<const sockaddr *>(&me->ss), me->len), 0);
  sockaddr_storage bound{};
  socklen_t blen = sizeof(bound);
  ASSERT_EQ(::getsockname(s.get(), reinterpret_cast<sockaddr *>(&bound), &blen),
            0);
  ASSERT_EQ(
      ::connect(s.get(), reinterpret_cast<const sockaddr *>(&bound), blen), 0)
      << std::strerror(errno);
  EXPECT_TRUE(isSelfConnected(s.get()));

  auto l = listenOn("127.0.0.1", 0, 1);
  ASSERT_TRUE(l);
  auto c = connectTo(l->second, Deadline::afterSeconds(5));
  ASSERT_TRUE(c) << c.status().message();
  EXPECT_FALSE(isSelfConnected(c->get()));
  EXPECT_FALSE(isSelfConnected(l->first.get())); // not connected at all
}

TEST(Launcher, ReadsEachLauncher) {
  std::map<std::string, std::string> env;
  auto get = [&env](const char *n) -> const char * {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  env = {{"OMPI_COMM_WORLD_RANK", "3"},
         {"OMPI_COMM_WORLD_SIZE", "4"},
         {"MASTER_ADDR", "h0"},
         {"MASTER_PORT", "29500"},
         {"RANK", "0"},
         {"WORLD_SIZE", "1"}};
  auto e = readLaunchEnv(get);
  ASSERT_TRUE(e.isOk()) << e.status().message();
  EXPECT_EQ(e->source, "Open MPI"); // takes precedence over torchrun's
  EXPECT_EQ(e->rank, 3);
  EXPECT_EQ(e->size, 4);
  EXPECT_EQ(e->masterPort, 29500);
  env = {
      {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"HCCL_ROOT_INFO_FILE", "/tmp/x"}};
  e = readLaunchEnv(get);
  ASSERT_TRUE(e.isOk()) << e.status().message();
  EXPECT_EQ(e->source, "PMI");
  EXPECT_EQ(e->rootInfoFile, "/tmp/x");
  env = {{"RANK", "0"}, {"WORLD_SIZE", "1"}};
  EXPECT_TRUE(readLaunchEnv(get).isOk()); // one rank needs no rendezvous
  for (auto bad : std::vector<std::map<std::string, std::string>>{
           {{"RANK", "1"}},
           {{"RANK", "-1"}, {"WORLD_SIZE", "2"}},
           {{"RANK", "0"}, {"WORLD_SIZE", "0"}},
           {{"RANK", "0"},
            {"WORLD_SIZE", "2"},
            {"MASTER_ADDR", "a"},
            {"MASTER_PORT", "x"}},
           {{"RANK", "0"}, {"WORLD_SIZE", "99999999999"}},
       }) {
    env = bad;
    auto r = readLaunchEnv(get);
    EXPECT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), HCCL_E_PARA);
  }
}

TEST(Wire, MismatchMessagesNameBothCalls) {
  WireHeader want, got;
  want.call.kind = CallKind::AllReduce;
  want.call.seq = 7;
  want.call.count = 100;
  want.call.dtype = static_cast<uint8_t>(sched::DataType::Fp32);
  got = want;
  got.call.count = 200;
  std::string m = describeMismatch(3, want, got);
  EXPECT_NE(m.find("allreduce #7 (count 100, fp32, sum"), std::string::npos)
      << m;
  EXPECT_NE(m.find("rank 3 sent data for allreduce #7 (count 200"),
            std::string::npos)
      << m;
  got = want;
  got.bytes = 4;
  EXPECT_NE(describeMismatch(1, want, got).find("4 bytes"), std::string::npos);
  got.magic = 0;
  EXPECT_NE(describeMismatch(1, want, got).find("bad magic"),
            std::string::npos);
}

TEST(Wire, ApplyIncomingCopiesOrReduces) {
  // Plain, and streamed (a write a peer reads next): the same bytes.
  for (bool streamed : {false, true}) {
    float acc[4] = {1, 2, 3, 4}, dst[4] = {0}, in[2] = {10, 20};
    RecvOp op;
    op.dst = dst;
    op.acc = acc;
    op.dtype = sched::DataType::Fp32;
    op.op = sched::ReduceOp::Max;
    op.nontemporal = streamed;
    ASSERT_TRUE(applyIncoming(op, 8, in, 8));
    EXPECT_EQ(dst[2], 10.0f);
    EXPECT_EQ(dst[3], 20.0f);
    EXPECT_EQ(dst[0], 0.0f);
    op.acc = nullptr;
    ASSERT_TRUE(applyIncoming(op, 0, in, 8));
    EXPECT_EQ(dst[0], 10.0f);
    EXPECT_EQ(dst[1], 20.0f);
  }
}

TEST(LocalWork, PiecesGiveTheSameResultAsOneShot) {
  const size_t n = 100003;
  std::vector<int32_t> src(3 * n), dst(n), ref(n);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<int32_t>(i * 2654435761u);
  for (size_t i = 0; i < n; ++i)
    ref[i] = static_cast<int32_t>(static_cast<uint32_t>(src[i]) + // wraps
                                  static_cast<uint32_t>(src[n + i]) +
                                  static_cast<uint32_t>(src[2 * n + i]));
  for (bool streamed : {false, true}) {
    std::vector<int32_t> copy(n, -1);
    std::fill(dst.begin(), dst.end(), 0);
    LocalWork w;
    w.items.push_back({sched::OpKind::Reduce,
                       reinterpret_cast<char *>(dst.data()),
                       reinterpret_cast<const char *>(src.data()), n * 4, n * 4,
                       3, 0, streamed});
    w.items.push_back({sched::OpKind::Copy,
                       reinterpret_cast<char *>(copy.data()) + 1,
                       reinterpret_cast<const char *>(src.data()) + 1,
                       n * 4 - 1, 0, 1, 0, streamed});
    int steps = 0;
    while (w.pending()) {
      ASSERT_TRUE(
          w.step(4096, 4, sched::DataType::Int32, sched::ReduceOp::Sum));
      ++steps;
    }
    EXPECT_GT(steps, 50);
    EXPECT_EQ(dst, ref) << (streamed ? "streamed" : "plain");
    EXPECT_EQ(std::memcmp(reinterpret_cast<const char *>(copy.data()) + 1,
                          reinterpret_cast<const char *>(src.data()) + 1,
                          n * 4 - 1),
              0)
        << (streamed ? "streamed" : "plain") << " copy at an odd address";
    EXPECT_EQ(copy[0] & 0xff, -1 & 0xff) << "the byte before is untouched";
  }
}

// The push's copy (docs/runtime.md, "The push") waits until its send is
// settled, then writes the block into both outputs piece by piece. Once
// this rank's abort record is set (an aborting peer sets it) it stops
// writing into the peer's buffer at the next piece: the push is Stopped,
// never marked written (so the send is never announced and the call fails
// on the abort), and the peer's buffer keeps only the pieces written
// before. This rank's own output is still completed.
TEST(LocalWork, AnAbortStopsThePushAtTheNextPiece) {
  const size_t n = 64 << 10;
  std::vector<unsigned char> src(n), own(n, 0), peer(n, 0);
  for (size_t i = 0; i < n; ++i)
    src[i] = static_cast<unsigned char>(i * 7 + 1);
  SendOp s;
  s.pushCapable = true;
  s.push = SendOp::Push::Undecided;
  std::atomic<uint32_t> abortFlag{0};
  LocalWork w;
  w.abortFlag = &abortFlag;
  w.items.push_back({sched::OpKind::Copy, reinterpret_cast<char *>(own.data()),
                     reinterpret_cast<const char *>(src.data()), n, 0, 1, 0,
                     false, &s});
  EXPECT_TRUE(w.blocked()) << "waits for the push to be settled";
  ASSERT_TRUE(w.step(4096, 1, sched::DataType::Int8, sched::ReduceOp::Sum));
  EXPECT_EQ(w.items[0].done, 0u) << "nothing copied while undecided";
  s.push = SendOp::Push::Push;
  s.pushDst = reinterpret_cast<char *>(peer.data());
  ASSERT_TRUE(w.step(4096, 1, sched::DataType::Int8, sched::ReduceOp::Sum));
  EXPECT_EQ(std::memcmp(peer.data(), src.data(), 4096), 0) << "pushed piece";
  abortFlag.store(1);
  while (w.pending())
    ASSERT_TRUE(w.step(4096, 1, sched::DataType::Int8, sched::ReduceOp::Sum));
  EXPECT_EQ(s.push, SendOp::Push::Stopped);
  EXPECT_FALSE(s.pushWritten) << "never announced";
  EXPECT_EQ(own, src) << "this rank's own output is complete";
  EXPECT_EQ(peer[4096], 0) << "nothing written into the peer after the abort";
  EXPECT_EQ(peer[n - 1], 0);
  // Without the abort the same copy writes both whole and marks it.
  SendOp s2;
  s2.pushCapable = true;
  s2.push = SendOp::Push::Push;
  std::vector<unsigned char> own2(n, 0), peer2(n, 0);
  s2.pushDst = reinterpret_cast<char *>(peer2.data());
  abortFlag.store(0);
  LocalWork w2;
  w2.abortFlag = &abortFlag;
  w2.items.push_back(
      {sched::OpKind::Copy, reinterpret_cast<char *>(own2.data()),
       reinterpret_cast<const char *>(src.data()), n, 0, 1, 0, false, &s2});
  while (w2.pending())
    ASSERT_TRUE(w2.step(4096, 1, sched::DataType::Int8, sched::ReduceOp::Sum));
  EXPECT_TRUE(s2.pushWritten);
  EXPECT_EQ(own2, src);
  EXPECT_EQ(peer2, src);
}

/// Rank `rank`'s part of a `p`-rank all-reduce of `count` fp32 elements.
sched::Result<sched::RankProgram> rankProgram(sched::Collective c,
                                              sched::Algorithm a, int64_t p,
                                              int64_t rank, int64_t count) {
  sched::GenerateRequest req;
  req.collective = c;
  req.algorithm = a;
  req.ranks = p;
  req.count = count;
  auto prog = sched::generate(req);
  if (!prog)
    return prog.status();
  return sched::expandRank(*prog, rank);
}

sched::Result<sched::RankProgram> allReduceRank(sched::Algorithm a, int64_t p,
                                                int64_t rank, int64_t count) {
  return rankProgram(sched::Collective::AllReduce, a, p, rank, count);
}

/// The first step with ops.
size_t firstBusyStep(const sched::RankProgram &rp) {
  size_t s = 0;
  while (s < rp.steps.size() && rp.steps[s].numOps == 0)
    ++s;
  return s;
}

TEST(TeePlan, TwoRankAllReduceOffersAndTakesInBothPlacements) {
  // Ring and RHD of 2 ranks: step 0 sends half of the input and reduces
  // the other half into the output; step 1 sends that half and receives the
  // peer's. Both ranks offer their step-1 destination and take the peer's
  // offer, out of place and in place. (The two-shot mesh receives into
  // scratch and reduces locally, in rank order: nothing for the tee, below.)
  std::vector<float> in(1000), out(1000);
  for (auto algo : {sched::Algorithm::Ring, sched::Algorithm::RHD})
    for (int64_t rank : {0, 1})
      for (bool inPlace : {false, true}) {
        auto rp = allReduceRank(algo, 2, rank, 1000);
        ASSERT_TRUE(rp.isOk()) << rp.message();
        const char *bufs[3] = {
            reinterpret_cast<char *>(in.data()),
            reinterpret_cast<char *>(inPlace ? in.data() : out.data()),
            nullptr};
        TeePlan plan;
        size_t s0 = firstBusyStep(*rp);
        planTees(*rp, s0, bufs, 4, plan);
        const auto &st = rp->steps[s0];
        ASSERT_EQ(plan.offer.size(), st.numOps);
        int offers = 0, takes = 0;
        for (uint32_t i = 0; i < st.numOps; ++i) {
          const auto &op = rp->ops[st.firstOp + i];
          if (plan.offer[i] >= 0) {
            ++offers;
            EXPECT_EQ(op.kind, sched::OpKind::Send);
            const auto &r = rp->ops[static_cast<size_t>(plan.offer[i])];
            EXPECT_EQ(r.kind, sched::OpKind::Recv);
            EXPECT_EQ(r.peer, op.peer);
          }
          if (plan.take[i]) {
            ++takes;
            EXPECT_EQ(op.kind, sched::OpKind::RecvReduce);
          }
        }
        std::string where = std::string(sched::algorithmName(algo)) + " rank " +
                            std::to_string(rank) + (inPlace ? " in place" : "");
        EXPECT_EQ(offers, 1) << where;
        EXPECT_EQ(takes, 1) << where;
        // The last step has no next step: nothing to tee.
        planTees(*rp, rp->steps.size() - 1, bufs, 4, plan);
        for (size_t i = 0; i < plan.offer.size(); ++i)
          EXPECT_TRUE(plan.offer[i] < 0 && !plan.take[i]) << where;
      }
}

TEST(TeePlan, RhdTeesItsLastHalvingIntoItsFirstDoubling) {
  // RHD's last halving and first doubling have the same partner: the
  // halving's Send reads exactly the range the doubling's Recv writes (the
  // partner's reduction lands where it read from), and the doubling sends
  // exactly what the halving reduced. One offer and one take per rank in
  // the core of p' = 2^k ranks; ranks folded away (p = 3, 6) have none.
  for (int64_t p : {3, 4, 6, 8}) {
    int offers = 0, takes = 0;
    for (int64_t rank = 0; rank < p; ++rank) {
      auto rp = allReduceRank(sched::Algorithm::RHD, p, rank, 1000);
      ASSERT_TRUE(rp.isOk()) << rp.message();
      std::vector<float> in(1000), out(1000);
      const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                             reinterpret_cast<char *>(out.data()), nullptr};
      TeePlan plan;
      int mine = 0;
      for (size_t s = 0; s < rp->steps.size(); ++s) {
        planTees(*rp, s, bufs, 4, plan);
        for (size_t i = 0; i < plan.offer.size(); ++i) {
          mine += plan.offer[i] >= 0;
          offers += plan.offer[i] >= 0;
          takes += plan.take[i];
        }
      }
      EXPECT_LE(mine, 1) << "p=" << p << " rank " << rank;
    }
    int core = 1;
    while (core * 2 <= p)
      core *= 2;
    EXPECT_EQ(offers, core) << "p=" << p;
    EXPECT_EQ(takes, core) << "p=" << p;
  }
}

TEST(TeePlan, MeshTwoShotAtTwoRanksHasNothingToTee) {
  auto rp = allReduceRank(sched::Algorithm::MeshTwoShot, 2, 0, 1000);
  ASSERT_TRUE(rp.isOk()) << rp.message();
  std::vector<float> in(1000), out(1000), scratch(1000);
  const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                         reinterpret_cast<char *>(out.data()),
                         reinterpret_cast<char *>(scratch.data())};
  TeePlan plan;
  int takes = 0;
  for (size_t s = 0; s < rp->steps.size(); ++s) {
    planTees(*rp, s, bufs, 4, plan);
    for (size_t i = 0; i < plan.take.size(); ++i)
      takes += plan.take[i];
  }
  EXPECT_EQ(takes, 0) << "its reduction is local, from scratch";
}

TEST(TeePlan, RefusesWhenTheStepTouchesTheOfferedDestination) {
  // Hand-made rank program: step 0 sends input[0, 4) to 1 and reduces from
  // 1 into output[0, 4); step 1 sends output[0, 4) and receives into
  // output[4, 8). A copy in step 0 that writes output[6] makes the offer
  // unsafe (the peer could write there before the copy does).
  sched::RankProgram rp;
  rp.rank = 0;
  rp.bufferSize = {8, 8, 0};
  auto op = [](sched::OpKind k, int64_t peer, sched::BufferId db, int64_t doff,
               sched::BufferId sb, int64_t soff) {
    sched::ConcreteOp o;
    o.kind = k;
    o.peer = peer;
    o.dstBuf = db;
    o.dstOff = doff;
    o.srcBuf = sb;
    o.srcOff = soff;
    o.count = 4;
    return o;
  };
  using B = sched::BufferId;
  rp.ops = {op(sched::OpKind::Send, 1, B::Output, 0, B::Input, 4),
            op(sched::OpKind::RecvReduce, 1, B::Output, 0, B::Input, 0),
            op(sched::OpKind::Send, 1, B::Output, 0, B::Output, 0),
            op(sched::OpKind::Recv, 1, B::Output, 4, B::Input, 0)};
  rp.steps = {{0, 0, 0, 2}, {0, 1, 2, 2}};
  std::vector<float> in(8), out(8);
  const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                         reinterpret_cast<char *>(out.data()), nullptr};
  TeePlan plan;
  planTees(rp, 0, bufs, 4, plan);
  EXPECT_EQ(plan.offer[0], 3);
  EXPECT_TRUE(plan.take[1]);

  sched::ConcreteOp copy =
      op(sched::OpKind::Copy, -1, B::Output, 6, B::Input, 0);
  copy.count = 1;
  rp.ops.insert(rp.ops.begin() + 2, copy);
  rp.steps = {{0, 0, 0, 3}, {0, 1, 3, 2}};
  planTees(rp, 0, bufs, 4, plan);
  EXPECT_EQ(plan.offer[0], -1) << "a step-0 write into the offered range";
  EXPECT_TRUE(plan.take[1]);

  // The next send is not the reduced range: no take.
  rp.ops.erase(rp.ops.begin() + 2);
  rp.steps = {{0, 0, 0, 2}, {0, 1, 2, 2}};
  rp.ops[2].srcOff = 1;
  planTees(rp, 0, bufs, 4, plan);
  EXPECT_FALSE(plan.take[1]);
  // Two sends to the peer in step 0: ordinals would not line up.
  rp.ops[2].srcOff = 0;
  rp.ops.insert(rp.ops.begin() + 1,
                op(sched::OpKind::Send, 1, B::Output, 0, B::Input, 0));
  rp.steps = {{0, 0, 0, 3}, {0, 1, 3, 2}};
  planTees(rp, 0, bufs, 4, plan);
  for (size_t i = 0; i < plan.offer.size(); ++i)
    EXPECT_TRUE(plan.offer[i] < 0 && !plan.take[i]) << "op " << i;
}

/// Pushes and offers-now planned in step `s` of `rp` on `bufs`: how many
/// sends push (checked to name a Copy reading exactly their source) and
/// how many offer this step's own receive.
std::pair<int, int> countPushes(const sched::RankProgram &rp, size_t s,
                                const char *const bufs[3]) {
  TeePlan plan;
  planTees(rp, s, bufs, 4, plan);
  const auto &st = rp.steps[s];
  int pushes = 0, offersNow = 0;
  for (uint32_t i = 0; i < plan.push.size(); ++i) {
    const auto &op = rp.ops[st.firstOp + i];
    if (plan.push[i] >= 0) {
      ++pushes;
      EXPECT_EQ(op.kind, sched::OpKind::Send);
      const auto &c = rp.ops[static_cast<size_t>(plan.push[i])];
      EXPECT_EQ(c.kind, sched::OpKind::Copy);
      EXPECT_TRUE(c.srcBuf == op.srcBuf && c.srcOff == op.srcOff &&
                  c.count == op.count);
    }
    int64_t o = plan.offer[i];
    if (o >= static_cast<int64_t>(st.firstOp) &&
        o < static_cast<int64_t>(st.firstOp + st.numOps)) {
      ++offersNow;
      EXPECT_EQ(rp.ops[static_cast<size_t>(o)].kind, sched::OpKind::Recv);
      EXPECT_EQ(rp.ops[static_cast<size_t>(o)].peer, op.peer);
    }
  }
  return {pushes, offersNow};
}

TEST(TeePlan, ExchangesWithOnePartnerPushWhereACopyReadsTheSentBlock) {
  // Ring, mesh and RHD of 2 ranks: one step copies the rank's block into
  // its output, sends the same block and receives the peer's. The send
  // pushes through the copy and offers the receive's destination. In place
  // (the input is the rank's block of the output) the copy writes what it
  // reads: nothing to push through, and so no offer either.
  for (auto algo : {sched::Algorithm::Ring, sched::Algorithm::MeshTwoShot,
                    sched::Algorithm::RHD})
    for (int64_t rank : {0, 1})
      for (bool inPlace : {false, true}) {
        auto rp =
            rankProgram(sched::Collective::AllGather, algo, 2, rank, 1000);
        ASSERT_TRUE(rp.isOk()) << rp.message();
        std::vector<float> in(1000), out(2000);
        const char *bufs[3] = {
            reinterpret_cast<char *>(inPlace ? out.data() + rank * 1000
                                             : in.data()),
            reinterpret_cast<char *>(out.data()), nullptr};
        size_t s0 = firstBusyStep(*rp);
        std::string where = std::string(sched::algorithmName(algo)) + " rank " +
                            std::to_string(rank) + (inPlace ? " in place" : "");
        EXPECT_EQ(countPushes(*rp, s0, bufs),
                  inPlace ? std::make_pair(0, 0) : std::make_pair(1, 1))
            << where;
      }
  // A 4-rank ring sends to one neighbour and receives from the other:
  // nothing to push (the peer of the offer would not be the pusher).
  for (int64_t rank = 0; rank < 4; ++rank) {
    auto rp = rankProgram(sched::Collective::AllGather, sched::Algorithm::Ring,
                          4, rank, 100);
    ASSERT_TRUE(rp.isOk()) << rp.message();
    std::vector<float> in(100), out(400);
    const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                           reinterpret_cast<char *>(out.data()), nullptr};
    for (size_t s = 0; s < rp->steps.size(); ++s) {
      if (rp->steps[s].numOps > 0) {
        EXPECT_EQ(countPushes(*rp, s, bufs), std::make_pair(0, 0))
            << "rank " << rank << " step " << s;
      }
    }
  }
  // RHD at 4 ranks: its first exchange (one partner, the rank's own block
  // copied and sent) pushes; its second sends two blocks from the output
  // (no copy reads them). A 3-rank mesh talks to two peers in its step,
  // and its copy reads what goes to both: a push would wait for an offer
  // from a peer that does not push back, so none is planned.
  for (int64_t rank = 0; rank < 4; ++rank) {
    auto rp = rankProgram(sched::Collective::AllGather, sched::Algorithm::RHD,
                          4, rank, 100);
    ASSERT_TRUE(rp.isOk()) << rp.message();
    std::vector<float> in(100), out(400);
    const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                           reinterpret_cast<char *>(out.data()), nullptr};
    int pushes = 0;
    for (size_t s = 0; s < rp->steps.size(); ++s)
      if (rp->steps[s].numOps > 0)
        pushes += countPushes(*rp, s, bufs).first;
    EXPECT_EQ(pushes, 1) << "rhd rank " << rank;
    auto mesh = rankProgram(sched::Collective::AllGather,
                            sched::Algorithm::MeshTwoShot, 3, rank % 3, 100);
    ASSERT_TRUE(mesh.isOk()) << mesh.message();
    for (size_t s = 0; s < mesh->steps.size(); ++s) {
      if (mesh->steps[s].numOps > 0) {
        EXPECT_EQ(countPushes(*mesh, s, bufs), std::make_pair(0, 0))
            << "mesh of 3, rank " << rank % 3;
      }
    }
  }
  // The one-shot all-reduce of 2 ranks copies its input into its slot of
  // scratch and sends the same input: it pushes into the peer's scratch.
  for (int64_t rank : {0, 1}) {
    auto os = allReduceRank(sched::Algorithm::MeshOneShot, 2, rank, 1000);
    ASSERT_TRUE(os.isOk()) << os.message();
    std::vector<float> in(1000), out(1000), scratch(2000);
    const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                           reinterpret_cast<char *>(out.data()),
                           reinterpret_cast<char *>(scratch.data())};
    EXPECT_EQ(countPushes(*os, firstBusyStep(*os), bufs), std::make_pair(1, 1))
        << "one-shot rank " << rank;
  }
  // The 2-rank ring all-reduce's steps have no copy: no push, and no offer
  // of a receive of the same step (their offers are the tee's, a step
  // ahead).
  auto ar = allReduceRank(sched::Algorithm::Ring, 2, 0, 1000);
  ASSERT_TRUE(ar.isOk());
  std::vector<float> in(1000), out(1000);
  const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                         reinterpret_cast<char *>(out.data()), nullptr};
  for (size_t s = 0; s < ar->steps.size(); ++s) {
    if (ar->steps[s].numOps > 0) {
      EXPECT_EQ(countPushes(*ar, s, bufs), std::make_pair(0, 0)) << s;
    }
  }
}

TEST(TeePlan, PushNeedsACopyOfExactlyTheSentRangeAndAnUntouchedReceive) {
  // Hand-made step: copy input[0, 4) to output[0, 4), send input[0, 4) to
  // 1, receive from 1 into output[4, 8).
  sched::RankProgram rp;
  rp.rank = 0;
  rp.bufferSize = {4, 8, 0};
  auto op = [](sched::OpKind k, int64_t peer, sched::BufferId db, int64_t doff,
               sched::BufferId sb, int64_t soff, int64_t count) {
    sched::ConcreteOp o;
    o.kind = k;
    o.peer = peer;
    o.dstBuf = db;
    o.dstOff = doff;
    o.srcBuf = sb;
    o.srcOff = soff;
    o.count = count;
    return o;
  };
  using B = sched::BufferId;
  using K = sched::OpKind;
  auto reset = [&] {
    rp.ops = {op(K::Copy, -1, B::Output, 0, B::Input, 0, 4),
              op(K::Send, 1, B::Output, 0, B::Input, 0, 4),
              op(K::Recv, 1, B::Output, 4, B::Input, 0, 4)};
    rp.steps = {{0, 0, 0, 3}};
  };
  std::vector<float> in(4), out(8);
  const char *bufs[3] = {reinterpret_cast<char *>(in.data()),
                         reinterpret_cast<char *>(out.data()), nullptr};
  reset();
  EXPECT_EQ(countPushes(rp, 0, bufs), std::make_pair(1, 1));
  // The copy reads a different range than the send: no push, and then no
  // offer either (only a rank that pushes offers now).
  rp.ops[0].srcOff = 1;
  rp.ops[0].count = 3;
  EXPECT_EQ(countPushes(rp, 0, bufs), std::make_pair(0, 0));
  // The copy writes over the range it reads (in place): no push.
  reset();
  rp.ops[0].dstBuf = B::Input;
  EXPECT_EQ(countPushes(rp, 0, bufs), std::make_pair(0, 0));
  // Another op of the step writes into the offered receive's range: the
  // peer could write there before it does. The push stays, the offer goes.
  reset();
  rp.ops.push_back(op(K::Copy, -1, B::Output, 7, B::Input, 3, 1));
  rp.steps = {{0, 0, 0, 4}};
  EXPECT_EQ(countPushes(rp, 0, bufs), std::make_pair(1, 0));
  // The receive is a reduction: not offered now.
  reset();
  rp.ops[2].kind = K::RecvReduce;
  rp.ops[2].srcBuf = B::Output;
  rp.ops[2].srcOff = 4;
  EXPECT_EQ(countPushes(rp, 0, bufs).second, 0);
  // A receive of a different size than the send: not offered now.
  reset();
  rp.ops[2].count = 3;
  EXPECT_EQ(countPushes(rp, 0, bufs), std::make_pair(1, 0));
}

TEST(ProgramCache, ValidatesAndEvicts) {
  auto rp = allReduceRank(sched::Algorithm::Ring, 4, 1, 10);
  ASSERT_TRUE(rp.isOk()) << rp.message();
  EXPECT_TRUE(validateRankProgram(*rp, 4).isOk());
  sched::RankProgram bad = *rp;
  ASSERT_FALSE(bad.ops.empty());
  bad.ops[0].count = 1000; // beyond the buffers
  EXPECT_FALSE(validateRankProgram(bad, 4).isOk());
  bad = *rp;
  for (auto &op : bad.ops)
    if (sched::opHasPeer(op.kind))
      op.peer = 9;
  EXPECT_FALSE(validateRankProgram(bad, 4).isOk());

  ProgramCache cache(2);
  auto cp = std::make_shared<CompiledProgram>();
  ProgramKey k1, k2, k3;
  k1.n = 1;
  k2.n = 2;
  k3.n = 3;
  cache.put(k1, cp);
  cache.put(k2, cp);
  EXPECT_TRUE(cache.get(k1)); // k1 is now the most recent
  cache.put(k3, cp);
  EXPECT_TRUE(cache.get(k1));
  EXPECT_FALSE(cache.get(k2));
  EXPECT_TRUE(cache.get(k3));
  EXPECT_EQ(cache.size(), 2u);
}

// The executor streams a write past the cache when a later step of the same
// rank sends what it wrote: the ring all-reduce's reduce-scatter results
// travel on (to the next rank), its all-gather's last copies do not.
TEST(ProgramCache, ReadersAreLaterSendsOfWhatAnOpWrote) {
  auto rp = allReduceRank(sched::Algorithm::Ring, 4, 1, 40);
  ASSERT_TRUE(rp.isOk()) << rp.message();
  std::vector<int32_t> reader = findReaders(*rp);
  ASSERT_EQ(reader.size(), rp->ops.size());
  int relayed = 0, kept = 0;
  for (size_t si = 0; si < rp->steps.size(); ++si)
    for (uint32_t i = 0; i < rp->steps[si].numOps; ++i) {
      size_t idx = rp->steps[si].firstOp + i;
      const sched::ConcreteOp &op = rp->ops[idx];
      if (!sched::opReceives(op.kind)) {
        if (op.kind == sched::OpKind::Send) {
          EXPECT_EQ(reader[idx], -1) << "a send writes nothing";
        }
        continue;
      }
      // Ring: rank 1 receives from 0 and sends to 2; 2(p-1) = 6 steps, the
      // last step's block is never sent on.
      if (si + 1 < rp->steps.size()) {
        EXPECT_EQ(reader[idx], 2) << "step " << si;
        ++relayed;
      } else {
        EXPECT_EQ(reader[idx], -1) << "the last block stays here";
        ++kept;
      }
    }
  EXPECT_EQ(relayed, 5);
  EXPECT_EQ(kept, 1);
  // Over the comparison budget: no readers (a hint only, never required).
  for (int32_t r : findReaders(*rp, /*maxPairs=*/1))
    EXPECT_EQ(r, -1);
}

TEST(Regions, FindLocatesShareableMemory) {
  auto r = RegionRegistry::instance().create(10000);
  ASSERT_TRUE(r.isOk());
  const char *base = static_cast<const char *>(r->get()->data());
  RegionRef ref;
  EXPECT_TRUE(RegionRegistry::instance().find(base + 100, 500, ref));
  EXPECT_EQ(ref.offset, pageSize() + 100);
  EXPECT_TRUE(RegionRegistry::instance().find(base, r->get()->bytes(), ref));
  EXPECT_FALSE(
      RegionRegistry::instance().find(base + 100, r->get()->bytes(), ref));
  int local = 0;
  EXPECT_FALSE(RegionRegistry::instance().find(&local, sizeof(local), ref));
  uint64_t id = r->get()->id();
  r->reset();
  EXPECT_FALSE(RegionRegistry::instance().find(base, 1, ref))
      << "region " << id;
}

// A peer's RegionRef is untrusted: a range outside the region, a header
// page, or a mapping longer than the memory (whose pages past the end would
// raise SIGBUS when touched) is an error, read-only or writable.
TEST(Regions, ResolveRefusesRangesOutsideThePeersRegion) {
  auto r = RegionRegistry::instance().create(3 * pageSize());
  ASSERT_TRUE(r.isOk());
  char *base = static_cast<char *>(r->get()->data());
  RegionRef ref;
  ASSERT_TRUE(RegionRegistry::instance().find(base + 8, 64, ref));
  auto self = PeerProcess::open(::getpid());
  ASSERT_TRUE(self.isOk()) << self.status().message();
  for (bool writable : {false, true}) {
    PeerRegionCache cache(writable);
    auto p = cache.resolve(**self, ref, 64);
    ASSERT_TRUE(p.isOk()) << p.status().message();
    base[8] = 42;
    EXPECT_EQ((*p)[0], 42) << "the same memory through the peer's mapping";
    if (writable) {
      (*p)[1] = 7;
      EXPECT_EQ(base[9], 7);
    }
    size_t data = r->get()->bytes();
    EXPECT_TRUE(cache.resolve(**self, ref, data - 8).isOk());
    EXPECT_FALSE(cache.resolve(**self, ref, data - 7).isOk())
        << "one byte past the region";
    RegionRef bad = ref;
    bad.offset = 0;
    EXPECT_FALSE(cache.resolve(**self, bad, 8).isOk()) << "the header page";
    bad.offset = ~uint64_t(0) - 4;
    EXPECT_FALSE(cache.resolve(**self, bad, 8).isOk()) << "offset overflow";
    PeerRegionCache fresh(writable);
    bad = ref;
    bad.mapBytes += 16 * pageSize();
    auto longer = fresh.resolve(**self, bad, 64);
    ASSERT_FALSE(longer.isOk()) << "a mapping longer than the memory";
    EXPECT_NE(longer.status().message().find("shared memory"),
              std::string::npos)
        << longer.status().message();
  }
}

/// Rank 0's shm pair with rank 1, both segments in this process; `forge`
/// publishes a header-only slot from rank 1 as if rank 1 had sent it.
struct PairRig {
  RingGeometry g;
  std::unique_ptr<Segment> own, other;
  std::unique_ptr<ShmPair> pair;
  uint64_t forged = 0;
  explicit PairRig(uint64_t tag) {
    auto a = Segment::create(0, 2, tag, g);
    auto b = Segment::create(1, 2, tag, g);
    auto self = PeerProcess::open(::getpid());
    if (!a.isOk() || !b.isOk() || !self.isOk())
      return;
    own = a.take();
    other = b.take();
    auto peerSeg = Segment::import(**self, other->fd(), 1, 2, tag, g);
    if (!peerSeg.isOk())
      return;
    pair = std::make_unique<ShmPair>(0, 1, own.get(), peerSeg.take(),
                                     self.take(), ShmPairOptions());
  }
  void forge(const WireHeader &w, uint32_t kind) {
    SlotHeader *sh = own->slotHeader(1, forged);
    sh->w = w;
    sh->kind = kind;
    sh->teeOffered = 0;
    sh->pushCapable = 0;
    own->ctl(1)->head.store(++forged);
  }
  /// Rank 1's RTS for `w` naming `src` (registered memory of this
  /// process), announcing a push or not.
  void forgeRts(const WireHeader &w, const void *src, bool pushCapable) {
    SlotHeader *sh = own->slotHeader(1, forged);
    sh->w = w;
    sh->kind = kSlotRts;
    sh->teeOffered = 0;
    sh->pushCapable = pushCapable ? 1 : 0;
    RegionRegistry::instance().find(src, w.bytes, sh->region);
    own->ctl(1)->head.store(++forged);
  }
};

/// A 64-byte message header of call 5.
WireHeader pushHeader(uint32_t ordinal) {
  WireHeader w;
  w.call.seq = 5;
  w.bytes = 64;
  w.ordinal = ordinal;
  return w;
}

/// A 64-byte message of call 5 to or from rank 1.
void fillSend(SendOp &s, const void *src, uint32_t ordinal) {
  s.peer = 1;
  s.src = src;
  s.bytes = 64;
  s.hdr = pushHeader(ordinal);
}
void fillRecv(RecvOp &r, void *dst, uint32_t ordinal) {
  r.peer = 1;
  r.dst = dst;
  r.bytes = 64;
  r.expect = pushHeader(ordinal);
}

// The push's receiving side on one pair: rank 0 offers its receive's
// buffer in its own RTS; rank 1's RTS announces the push, so rank 0
// releases it unread and waits; only kSlotDelivered completes the receive,
// and any other slot for that message is an error naming the peer.
TEST(ShmPush, AnAnnouncedPushIsAwaitedAndNothingElseAccepted) {
  auto region = RegionRegistry::instance().create(4096);
  ASSERT_TRUE(region.isOk());
  char *mem = static_cast<char *>(region->get()->data());
  std::memset(mem, 0x21, 4096);
  for (bool delivered : {true, false}) {
    PairRig rig(11);
    ASSERT_TRUE(rig.pair);
    RecvOp r;
    fillRecv(r, mem + 1024, 0);
    SendOp s;
    fillSend(s, mem, 0);
    s.teeDst = r.dst; // this step's receive: an offer now
    s.teeOrdinal = 0;
    s.teeNow = true;
    ASSERT_TRUE(rig.pair->postSend(s).isOk());
    ASSERT_TRUE(rig.pair->postRecv(r).isOk());
    bool moved = false;
    ASSERT_TRUE(rig.pair->progress(moved).isOk());
    ASSERT_EQ(rig.other->slotHeader(0, 0)->teeOffered, 1u);
    rig.forgeRts(pushHeader(0), mem + 2048, /*pushCapable=*/true);
    ASSERT_TRUE(rig.pair->progress(moved).isOk());
    EXPECT_EQ(rig.own->ctl(1)->tail.load(), 1u) << "the RTS released";
    EXPECT_FALSE(r.done.load()) << "waits for the peer's write";
    EXPECT_EQ(static_cast<unsigned char>(mem[1024]), 0x21u) << "nothing read";
    if (delivered) {
      rig.forge(pushHeader(0), kSlotDelivered);
      Status st = rig.pair->progress(moved);
      EXPECT_TRUE(st.isOk()) << st.message();
      EXPECT_TRUE(r.done.load());
      EXPECT_EQ(rig.pair->teesReceived(), 1u);
    } else {
      rig.forgeRts(pushHeader(0), mem + 2048, /*pushCapable=*/false);
      Status st = rig.pair->progress(moved);
      EXPECT_EQ(st.code(), HCCL_E_REMOTE);
      EXPECT_NE(st.message().find("then sent it otherwise"), std::string::npos)
          << st.message();
      EXPECT_FALSE(r.done.load());
    }
    rig.pair->cancelAll();
  }
}

// An offer for a later step's receive (the tee's, never taken: the peer
// answered with a plain message) is no offer for a push: a pushCapable
// RTS for that ordinal is read as usual. The peer settles on the RTS of
// its own step alone, which carried no offer, so waiting for its write
// would hang both ranks.
TEST(ShmPush, AnOlderOfferIsNoOfferToPush) {
  auto region = RegionRegistry::instance().create(4096);
  ASSERT_TRUE(region.isOk());
  char *mem = static_cast<char *>(region->get()->data());
  std::memset(mem + 2048, 0x6B, 64);
  PairRig rig(17);
  ASSERT_TRUE(rig.pair);
  SendOp s; // step 0: offers the step-1 receive (the tee's offer)
  fillSend(s, mem, 0);
  s.teeDst = mem + 1024;
  s.teeOrdinal = 1;
  RecvOp r0;
  fillRecv(r0, mem + 3072, 0);
  ASSERT_TRUE(rig.pair->postSend(s).isOk());
  ASSERT_TRUE(rig.pair->postRecv(r0).isOk());
  bool moved = false;
  ASSERT_TRUE(rig.pair->progress(moved).isOk());
  ASSERT_EQ(rig.other->slotHeader(0, 0)->teeOffered, 1u);
  rig.forgeRts(pushHeader(0), mem + 2048, /*pushCapable=*/false);
  ASSERT_TRUE(rig.pair->progress(moved).isOk());
  ASSERT_TRUE(r0.done.load());
  // Step 1: the peer's message for the offered receive announces a push.
  RecvOp r1;
  fillRecv(r1, mem + 1024, 1);
  ASSERT_TRUE(rig.pair->postRecv(r1).isOk());
  rig.forgeRts(pushHeader(1), mem + 2048, /*pushCapable=*/true);
  Status st = rig.pair->progress(moved);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_TRUE(r1.done.load()) << "read, not awaited";
  EXPECT_EQ(mem[1024], 0x6B);
  rig.pair->cancelAll();
}

// The push's sending side: a pushCapable send is settled when the step's
// receive from the peer starts, by that receive's first slot. Pushed when
// the peer's RTS offers for its ordinal (the copy then writes the peer's
// buffer; the send completes only after its kSlotDelivered went out),
// read by the peer otherwise.
TEST(ShmPush, TheStepsFirstSlotSettlesThePush) {
  auto region = RegionRegistry::instance().create(4096);
  ASSERT_TRUE(region.isOk());
  char *mem = static_cast<char *>(region->get()->data());
  for (bool peerOffers : {true, false}) {
    PairRig rig(13);
    ASSERT_TRUE(rig.pair);
    SendOp s;
    fillSend(s, mem, 0);
    s.pushCapable = true;
    RecvOp r;
    fillRecv(r, mem + 3072, 0);
    ASSERT_TRUE(rig.pair->postSend(s).isOk());
    ASSERT_TRUE(rig.pair->postRecv(r).isOk());
    bool moved = false;
    ASSERT_TRUE(rig.pair->progress(moved).isOk());
    EXPECT_EQ(rig.other->slotHeader(0, 0)->pushCapable, 1u);
    EXPECT_EQ(s.push, SendOp::Push::Undecided) << "no slot from the peer yet";
    // The peer's RTS, offering (or not) its receive's buffer for ordinal 0.
    SlotHeader *sh = rig.own->slotHeader(1, 0);
    rig.forgeRts(pushHeader(0), mem + 1024, /*pushCapable=*/false);
    if (peerOffers) {
      RegionRegistry::instance().find(mem + 2048, 64, sh->tee);
      sh->teeOrdinal = 0;
      sh->teeOffered = 1;
    }
    ASSERT_TRUE(rig.pair->progress(moved).isOk());
    EXPECT_TRUE(r.done.load()) << "the peer's message read";
    if (!peerOffers) {
      EXPECT_EQ(s.push, SendOp::Push::Pull);
      rig.other->ctl(0)->tail.store(1); // the peer read it
      ASSERT_TRUE(rig.pair->progress(moved).isOk());
      EXPECT_TRUE(s.done.load());
      EXPECT_EQ(rig.pair->teesWritten(), 0u);
      continue;
    }
    ASSERT_EQ(s.push, SendOp::Push::Push);
    mem[2048] = 0x3C;
    EXPECT_EQ(s.pushDst[0], 0x3C) << "the peer's offered buffer";
    s.pushDst[1] = 0x4D;
    EXPECT_EQ(mem[2049], 0x4D) << "mapped writable";
    rig.other->ctl(0)->tail.store(1); // released unread
    ASSERT_TRUE(rig.pair->progress(moved).isOk());
    EXPECT_FALSE(s.done.load()) << "not written yet";
    s.pushWritten = true;
    ASSERT_TRUE(rig.pair->progress(moved).isOk());
    EXPECT_TRUE(s.done.load());
    EXPECT_EQ(rig.other->slotHeader(0, 1)->kind, kSlotDelivered);
    EXPECT_EQ(rig.other->slotHeader(0, 1)->w.ordinal, 0u);
    EXPECT_EQ(rig.pair->teesWritten(), 1u);
  }
}

// An offer for a receive that has already started is withdrawn: the peer
// may have read this rank's RTS, without the offer, already. Here the
// ring to the peer is full, so the offering send waits while the step's
// receive starts; once it goes out it carries no offer.
TEST(ShmPush, AnOfferForAStartedReceiveIsWithdrawn) {
  auto region = RegionRegistry::instance().create(4096);
  ASSERT_TRUE(region.isOk());
  char *mem = static_cast<char *>(region->get()->data());
  PairRig rig(15);
  ASSERT_TRUE(rig.pair);
  const uint32_t nSlots = rig.g.nSlots;
  std::vector<SendOp> fill(nSlots);
  for (uint32_t i = 0; i < nSlots; ++i) {
    fillSend(fill[i], mem, i);
    ASSERT_TRUE(rig.pair->postSend(fill[i]).isOk());
  }
  SendOp s;
  fillSend(s, mem, nSlots);
  s.teeDst = mem + 1024;
  s.teeOrdinal = 0;
  RecvOp r;
  fillRecv(r, mem + 1024, 0);
  ASSERT_TRUE(rig.pair->postSend(s).isOk());
  ASSERT_TRUE(rig.pair->postRecv(r).isOk());
  rig.forgeRts(pushHeader(0), mem + 2048, /*pushCapable=*/true);
  bool moved = false;
  ASSERT_TRUE(rig.pair->progress(moved).isOk());
  EXPECT_TRUE(r.done.load()) << "read: this rank had not offered";
  rig.other->ctl(0)->tail.store(nSlots); // the peer read the first ones
  ASSERT_TRUE(rig.pair->progress(moved).isOk());
  const SlotHeader *late = rig.other->slotHeader(0, nSlots);
  ASSERT_EQ(late->kind, kSlotRts);
  EXPECT_EQ(late->w.ordinal, nSlots);
  EXPECT_EQ(late->teeOffered, 0u) << "the offer is withdrawn";
  rig.pair->cancelAll();
}

// A peer that claims it wrote a message into this rank's buffer (the tee's
// kSlotDelivered) without this rank's offer for that message is reporting
// data that never arrived: an error naming the peer, and the receive is not
// completed.
TEST(ShmTee, ADeliveryNobodyOfferedIsAnError) {
  PairRig rig(7);
  ASSERT_TRUE(rig.pair);
  std::vector<char> dst(64, 0x11);
  RecvOp r;
  r.peer = 1;
  r.dst = dst.data();
  r.bytes = dst.size();
  r.expect.call.seq = 3;
  r.expect.bytes = dst.size();
  r.expect.ordinal = 1;
  ASSERT_TRUE(rig.pair->postRecv(r).isOk());
  rig.forge(r.expect, kSlotDelivered);
  bool moved = false;
  Status st = rig.pair->progress(moved);
  EXPECT_EQ(st.code(), HCCL_E_REMOTE);
  EXPECT_NE(st.message().find("never offered"), std::string::npos)
      << st.message();
  EXPECT_FALSE(r.done.load());
  EXPECT_EQ(dst[0], 0x11);
  EXPECT_EQ(rig.pair->teesReceived(), 0u);
}

// The tee's handshake on one pair, both sides in this process: rank 0
// offers its next receive's buffer in a zero-copy send; a delivered slot is
// accepted for exactly that call, ordinal, buffer and size, and refused for
// any other buffer.
TEST(ShmTee, ADeliveryIsAcceptedOnlyForTheOfferedBuffer) {
  auto region = RegionRegistry::instance().create(4096);
  ASSERT_TRUE(region.isOk());
  char *mem = static_cast<char *>(region->get()->data());
  for (bool rightBuffer : {true, false}) {
    PairRig rig(9);
    ASSERT_TRUE(rig.pair);
    SendOp s;
    s.peer = 1;
    s.src = mem;
    s.bytes = 64;
    s.hdr.call.seq = 5;
    s.hdr.bytes = 64;
    s.hdr.ordinal = 0;
    s.teeDst = mem + 1024;
    s.teeOrdinal = 1;
    ASSERT_TRUE(rig.pair->postSend(s).isOk());
    bool moved = false;
    ASSERT_TRUE(rig.pair->progress(moved).isOk());
    const SlotHeader *rts = rig.other->slotHeader(0, 0);
    ASSERT_EQ(rts->kind, kSlotRts);
    ASSERT_EQ(rts->teeOffered, 1u) << "the send offers";
    EXPECT_EQ(rts->teeOrdinal, 1u);
    // Rank 1 "took" it: the data is there, and its delivered slot follows.
    std::memset(mem + 1024, 0x5C, 64);
    RecvOp r;
    r.peer = 1;
    r.dst = rightBuffer ? mem + 1024 : mem + 2048;
    r.bytes = 64;
    r.expect = s.hdr;
    r.expect.ordinal = 1;
    ASSERT_TRUE(rig.pair->postRecv(r).isOk());
    rig.forge(r.expect, kSlotDelivered);
    Status st = rig.pair->progress(moved);
    if (rightBuffer) {
      EXPECT_TRUE(st.isOk()) << st.message();
      EXPECT_TRUE(r.done.load());
      EXPECT_EQ(rig.pair->teesReceived(), 1u);
    } else {
      EXPECT_EQ(st.code(), HCCL_E_REMOTE);
      EXPECT_FALSE(r.done.load());
      EXPECT_EQ(rig.pair->teesReceived(), 0u);
    }
    rig.pair->cancelAll();
  }
}

// A closure of a collective call's size is stored in the task; a larger
// one on the heap; either runs once per call, moves with the task and is
// destroyed exactly once.
TEST(InlineTask, StoresSmallClosuresInPlaceAndDestroysOnce) {
  auto alive = std::make_shared<int>(0);
  int calls = 0;
  void *a = nullptr, *b = nullptr;
  uint64_t n = 7;
  InlineTask small([alive, &calls, a, b, n]() -> Status {
    calls += static_cast<int>(n) + (a == b ? 0 : 1);
    return Status::ok();
  });
  EXPECT_TRUE(small.isInline());
  std::array<char, 200> big{};
  big[199] = 3;
  InlineTask large([alive, big, &calls]() -> Status {
    calls += big[199];
    return Status(HCCL_E_PARA, "large");
  });
  EXPECT_TRUE(large);
  EXPECT_FALSE(large.isInline());
  EXPECT_EQ(alive.use_count(), 3);
  InlineTask moved(std::move(small));
  EXPECT_FALSE(small);
  EXPECT_TRUE(moved().isOk());
  InlineTask other;
  other = std::move(large);
  EXPECT_EQ(other().code(), HCCL_E_PARA);
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(alive.use_count(), 3);
  moved.reset();
  other.reset();
  EXPECT_EQ(alive.use_count(), 1);
}

// HCCL_ALGO_TABLE's entry decides for its collective and group size, by
// size band; an entry for another group size is ignored; HCCL_ALGO for the
// collective comes first.
TEST(AlgorithmPolicy, TableEntriesDecideAfterHcclAlgo) {
  using hccl::sched::Algorithm;
  using hccl::sched::Collective;
  auto topo = hccl::sched::Topology::preset("host-4");
  ASSERT_TRUE(topo.isOk()) << topo.message();
  auto table = hccl::sched::parseAlgoTable(
      R"({"format": "hccl-mlir.algo-table", "version": 1, "topology": "host-4", "entries": [
        {"collective": "broadcast", "ranks": 4, "bytes": 0, "algorithm": "tree"},
        {"collective": "broadcast", "ranks": 4, "bytes": 1048576, "algorithm": "ring"},
        {"collective": "allgather", "ranks": 4, "bytes": 0, "algorithm": "rhd"},
        {"collective": "allreduce", "ranks": 2, "bytes": 0, "algorithm": "star"}]})");
  ASSERT_TRUE(table.isOk()) << table.message();
  Config cfg;
  cfg.algoTable = std::make_shared<const hccl::sched::AlgoTable>(*table);
  auto policy = AlgorithmPolicy::create(*topo, {0, 1, 2, 3}, cfg);
  ASSERT_TRUE(policy.isOk());
  auto bcast = [&](const AlgorithmPolicy &p, uint64_t bytes) {
    auto c = p.choose(Collective::Broadcast, bytes, 4);
    EXPECT_TRUE(c.isOk());
    return c.isOk() ? c->algorithm : Algorithm::Hierarchical;
  };
  EXPECT_EQ(bcast(*policy, 65536), Algorithm::Tree);
  EXPECT_EQ(bcast(*policy, 4u << 20), Algorithm::Ring);
  // The 2-rank entry does not apply to 4 ranks: the automatic choice.
  auto plain = AlgorithmPolicy::create(*topo, {0, 1, 2, 3}, Config{});
  ASSERT_TRUE(plain.isOk());
  EXPECT_EQ(bcast(*plain, 65536), Algorithm::Star); // so the table decided
  auto ar = policy->choose(Collective::AllReduce, 65536, 4);
  auto arPlain = plain->choose(Collective::AllReduce, 65536, 4);
  ASSERT_TRUE(ar.isOk() && arPlain.isOk());
  EXPECT_EQ(ar->algorithm, arPlain->algorithm);
  // HCCL_ALGO for broadcast comes before the table.
  Config both = cfg;
  ASSERT_EQ(hccl::rt::setHcclAlgo("broadcast=level0:ring", "HCCL_ALGO", both),
            "");
  auto forced = AlgorithmPolicy::create(*topo, {0, 1, 2, 3}, both);
  ASSERT_TRUE(forced.isOk());
  EXPECT_EQ(bcast(*forced, 65536), Algorithm::Ring);
}

namespace {
/// What a communicator of `p` ranks on host-p chooses; `shared`: its ranks
/// share cores (priced by onSharedCores, create's flag set).
void pickOnHost(int p, bool shared, hccl::sched::Collective c, uint64_t bytes,
                const Config &cfg, hccl::sched::Algorithm &out) {
  auto topo = hccl::sched::Topology::preset("host-" + std::to_string(p));
  ASSERT_TRUE(topo.isOk()) << topo.message();
  hccl::sched::Topology t =
      shared ? AlgorithmPolicy::onSharedCores(*topo) : *topo;
  std::vector<int64_t> ranks;
  for (int r = 0; r < p; ++r)
    ranks.push_back(r);
  auto policy = AlgorithmPolicy::create(t, ranks, cfg, shared);
  ASSERT_TRUE(policy.isOk()) << policy.status().message();
  auto ch = policy->choose(c, bytes, 4);
  ASSERT_TRUE(ch.isOk()) << ch.status().message();
  out = ch->algorithm;
}
} // namespace

// More local ranks than cores: each shared-memory step waits for a rank of
// a shared core, so small all-reduces take the algorithms of fewer steps
// (measured 2-2.7x faster on 2 cores); from 256 KB the bytes decide as
// before. Broadcast is star either way (the receivers copy).
TEST(AlgorithmPolicy, SharedCoresPreferFewerSteps) {
  using hccl::sched::Algorithm;
  using hccl::sched::Collective;
  auto pick = [](int p, bool shared, Collective c, uint64_t bytes) {
    Algorithm a = Algorithm::Hierarchical; // never chosen on one host
    pickOnHost(p, shared, c, bytes, Config{}, a);
    return a;
  };
  EXPECT_EQ(pick(3, false, Collective::AllReduce, 64 << 10), Algorithm::Ring);
  EXPECT_EQ(pick(3, true, Collective::AllReduce, 64 << 10),
            Algorithm::MeshOneShot);
  EXPECT_EQ(pick(3, true, Collective::AllReduce, 4 << 20), Algorithm::Ring);
  EXPECT_EQ(pick(4, false, Collective::AllReduce, 16 << 10), Algorithm::RHD);
  EXPECT_EQ(pick(4, true, Collective::AllReduce, 16 << 10),
            Algorithm::RecursiveDoubling);
  EXPECT_EQ(pick(4, true, Collective::AllReduce, 4 << 20), Algorithm::RHD);
  for (bool shared : {false, true}) {
    EXPECT_EQ(pick(4, shared, Collective::Broadcast, 4096), Algorithm::Star);
    EXPECT_EQ(pick(3, shared, Collective::Broadcast, 16 << 20),
              Algorithm::Star);
  }
  // When: one host, more ranks than the fewest cores any rank counted.
  EXPECT_TRUE(AlgorithmPolicy::sharesCores(1, {2, 2, 2}));
  EXPECT_TRUE(AlgorithmPolicy::sharesCores(1, {8, 2, 8}));
  EXPECT_FALSE(AlgorithmPolicy::sharesCores(1, {4, 4, 4}));
  EXPECT_FALSE(AlgorithmPolicy::sharesCores(1, {3, 3, 3}));
  EXPECT_FALSE(AlgorithmPolicy::sharesCores(2, {1, 1, 1, 1}));
  // Only shared memory's latency grows.
  auto tcp = *hccl::sched::Topology::preset("host-4");
  tcp.intra.cls = hccl::sched::LinkClass::TCP;
  EXPECT_EQ(AlgorithmPolicy::onSharedCores(tcp).intra.latencyUs,
            tcp.intra.latencyUs);
}

// On shared cores small all-gathers and reduce-scatters take the one-step
// mesh (the measured rule in AlgorithmPolicy::choose); without the flag,
// above its bounds, and where HCCL_ALGO or a table entry speaks, the usual
// choice stands.
TEST(AlgorithmPolicy, SharedCoresGatherAndScatterTakeTheMesh) {
  using hccl::sched::Algorithm;
  using hccl::sched::Collective;
  auto pick = [](int p, bool shared, Collective c, uint64_t bytes,
                 const Config &cfg = Config{}) {
    Algorithm a = Algorithm::Hierarchical; // never chosen on one host
    pickOnHost(p, shared, c, bytes, cfg, a);
    return a;
  };
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter}) {
    EXPECT_EQ(pick(3, false, c, 64 << 10), Algorithm::Ring);
    EXPECT_EQ(pick(4, false, c, 64 << 10), Algorithm::RHD);
    uint64_t bound = c == Collective::AllGather
                         ? AlgorithmPolicy::kSharedCoreMeshGatherBytes
                         : AlgorithmPolicy::kSharedCoreMeshScatterBytes;
    for (int p : {3, 4}) {
      for (uint64_t bytes : {uint64_t(4) << 10, bound})
        EXPECT_EQ(pick(p, true, c, bytes), Algorithm::MeshTwoShot);
      // Above the bound the model decides as without shared cores.
      EXPECT_EQ(pick(p, true, c, bound + 4),
                p == 3 ? Algorithm::Ring : Algorithm::RHD);
    }
    // Only the rank counts measured.
    EXPECT_NE(pick(5, true, c, 4 << 10), Algorithm::MeshTwoShot);
  }
  // The rule is for gathers and scatters alone.
  EXPECT_EQ(pick(3, true, Collective::AllReduce, 4 << 20), Algorithm::Ring);
  EXPECT_EQ(pick(4, true, Collective::Broadcast, 4096), Algorithm::Star);
  // HCCL_ALGO for the collective decides; for another one it does not.
  auto withAlgo = [](const char *text) {
    Config cfg;
    auto spec = hccl::sched::parseHcclAlgo(text);
    EXPECT_TRUE(spec.isOk()) << spec.message();
    if (spec.isOk())
      cfg.algoSpec = *spec;
    cfg.algo = text;
    return cfg;
  };
  EXPECT_EQ(
      pick(4, true, Collective::AllGather, 64 << 10, withAlgo("level0:ring")),
      Algorithm::Ring);
  EXPECT_EQ(pick(4, true, Collective::AllGather, 64 << 10,
                 withAlgo("allreduce=level0:ring")),
            Algorithm::MeshTwoShot);
  // A table entry decides; one that cannot serve falls back to the
  // automatic choice, the rule included.
  auto tabled = [](const char *algorithm) {
    auto table = hccl::sched::parseAlgoTable(
        std::string(
            R"({"format": "hccl-mlir.algo-table", "version": 1, "topology": "host-4", "entries": [
        {"collective": "reducescatter", "ranks": 4, "bytes": 0, "algorithm": ")") +
        algorithm + R"("}]})");
    EXPECT_TRUE(table.isOk()) << table.message();
    Config cfg;
    if (table.isOk())
      cfg.algoTable = std::make_shared<const hccl::sched::AlgoTable>(*table);
    cfg.algoTableFile = "tuned.json";
    return cfg;
  };
  EXPECT_EQ(pick(4, true, Collective::ReduceScatter, 64 << 10, tabled("rhd")),
            Algorithm::RHD);
  // (A table entry that falls back meets the rule again:
  // TableEntryThatCannotServeFallsBackWithAWarning, after its one warning.)
}

// A table entry the collective cannot use (pairwise cannot broadcast) falls
// back to the automatic choice, with one warning naming the file.
TEST(AlgorithmPolicy, TableEntryThatCannotServeFallsBackWithAWarning) {
  using hccl::sched::Collective;
  auto topo = hccl::sched::Topology::preset("host-4");
  ASSERT_TRUE(topo.isOk()) << topo.message();
  auto table = hccl::sched::parseAlgoTable(
      R"({"format": "hccl-mlir.algo-table", "version": 1, "topology": "host-4", "entries": [
        {"collective": "broadcast", "ranks": 4, "bytes": 0, "algorithm": "pairwise"}]})");
  ASSERT_TRUE(table.isOk()) << table.message();
  Config cfg;
  cfg.algoTable = std::make_shared<const hccl::sched::AlgoTable>(*table);
  cfg.algoTableFile = "tuned.json";
  auto policy = AlgorithmPolicy::create(*topo, {0, 1, 2, 3}, cfg);
  auto plain = AlgorithmPolicy::create(*topo, {0, 1, 2, 3}, Config{});
  ASSERT_TRUE(policy.isOk() && plain.isOk());
  ::testing::internal::CaptureStderr();
  auto c = policy->choose(Collective::Broadcast, 65536, 4);
  std::string err = ::testing::internal::GetCapturedStderr();
  auto auto_ = plain->choose(Collective::Broadcast, 65536, 4);
  ASSERT_TRUE(c.isOk());
  ASSERT_TRUE(auto_.isOk());
  EXPECT_EQ(c->algorithm, auto_->algorithm);
  EXPECT_NE(c->algorithm, hccl::sched::Algorithm::Pairwise);
  EXPECT_NE(err.find("HCCL_ALGO_TABLE=tuned.json: its broadcast entry for 4 "
                     "ranks does not apply"),
            std::string::npos)
      << err;
  // On shared cores the automatic choice it falls back to includes the
  // measured mesh rule (here after the one warning, which this test reads).
  auto scatterTable = hccl::sched::parseAlgoTable(
      R"({"format": "hccl-mlir.algo-table", "version": 1, "topology": "host-4", "entries": [
        {"collective": "reducescatter", "ranks": 4, "bytes": 0, "algorithm": "pairwise"}]})");
  ASSERT_TRUE(scatterTable.isOk()) << scatterTable.message();
  Config shared;
  shared.algoTable =
      std::make_shared<const hccl::sched::AlgoTable>(*scatterTable);
  shared.algoTableFile = "tuned.json";
  auto onShared = AlgorithmPolicy::create(AlgorithmPolicy::onSharedCores(*topo),
                                          {0, 1, 2, 3}, shared, true);
  ASSERT_TRUE(onShared.isOk());
  auto s = onShared->choose(Collective::ReduceScatter, 4096, 4);
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(s->algorithm, hccl::sched::Algorithm::MeshTwoShot);
}

// A ticket given back (its call could not be queued) is skipped, whether
// its turn has come or not; without that, every later call waits forever.
TEST(IssueOrder, AbandonedTicketsAreSkipped) {
  // Shared with the callers' threads, which a failure leaves blocked.
  auto order = std::make_shared<IssueOrder>();
  auto ran = std::make_shared<std::atomic<int>>(0); // bit t: t's call ran
  uint64_t t0 = order->take(), t1 = order->take(), t2 = order->take(),
           t3 = order->take();
  auto call = [&](uint64_t t) {
    return std::thread([order, ran, t] {
      order->waitTurn(t);
      *ran |= 1 << t;
      order->endTurn();
    });
  };
  std::thread last = call(t3);
  order->abandon(t2); // not yet its turn
  std::thread second = call(t1);
  EXPECT_EQ(ran->load(), 0);
  order->abandon(t0); // its turn: t1 is served, then t3 (t2 skipped)
  for (int i = 0; i < 5000 && ran->load() != 0b1010; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (ran->load() != 0b1010) {
    second.detach();
    last.detach();
    FAIL() << "a call behind an abandoned ticket never ran (ran " << ran->load()
           << ")";
  }
  second.join();
  last.join();
  order->waitIdle(); // every ticket has had its turn
  EXPECT_EQ(order->take(), 4u);
}

// enter() takes a ticket and waits for its turn under one lock, and a turn's
// end wakes the callers asleep behind it (endTurn skips the broadcast only
// when no one sleeps).
TEST(IssueOrder, EnterWaitsForItsTurnAndIsWokenWhenItComes) {
  auto order = std::make_shared<IssueOrder>();
  order->waitTurn(order->take()); // ticket 0: served at once, held
  auto ran = std::make_shared<std::atomic<int>>(0);
  std::vector<std::thread> callers;
  for (int i = 0; i < 3; ++i)
    callers.emplace_back([order, ran] {
      order->enter();
      ++*ran;
      order->endTurn();
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ran->load(), 0) << "a call ran while ticket 0 held its turn";
  order->endTurn();
  for (int i = 0; i < 5000 && ran->load() != 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (ran->load() != 3) {
    for (std::thread &t : callers)
      t.detach();
    FAIL() << "callers waiting in enter() were not woken (ran " << ran->load()
           << " of 3)";
  }
  for (std::thread &t : callers)
    t.join();
  order->waitIdle();
  EXPECT_EQ(order->take(), 4u);
}

// waitIdle sleeps while a turn is held and is woken when that turn ends
// (HcclCommSuspend and the communicator's shutdown wait so).
TEST(IssueOrder, WaitIdleIsWokenWhenTheLastTurnEnds) {
  auto order = std::make_shared<IssueOrder>();
  order->enter(); // ticket 0: its turn, held
  auto idle = std::make_shared<std::atomic<bool>>(false);
  std::thread waiter([order, idle] {
    order->waitIdle();
    *idle = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(idle->load()) << "waitIdle returned while a turn was held";
  order->endTurn();
  for (int i = 0; i < 5000 && !idle->load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!idle->load()) {
    waiter.detach();
    FAIL() << "waitIdle was not woken when the last turn ended";
  }
  waiter.join();
}

// More tasks than the stream's first ring holds: they run in order, and
// synchronize returns the first error once.
TEST(HostStream, RunsQueuedTasksInOrderPastItsFirstRing) {
  auto s = HostStream::create();
  ASSERT_TRUE(s.isOk()) << s.status().message();
  std::vector<int> order;
  std::mutex mu;
  std::atomic<bool> gate{false};
  // The first task holds the worker so that the rest queue up behind it.
  (*s)->enqueue([&]() -> Status {
    while (!gate.load())
      std::this_thread::yield();
    return Status::ok();
  });
  const int n = static_cast<int>(HostStream::kInitialSlots) + 300;
  for (int i = 0; i < n; ++i)
    (*s)->enqueue([&order, &mu, i]() -> Status {
      std::lock_guard<std::mutex> g(mu);
      order.push_back(i);
      return i == 150   ? Status(HCCL_E_PARA, "task 150")
             : i == 250 ? Status(HCCL_E_INTERNAL, "task 250")
                        : Status::ok();
    });
  gate.store(true);
  Status st = (*s)->synchronize();
  EXPECT_EQ(st.code(), HCCL_E_PARA);
  EXPECT_EQ(st.message(), "task 150");
  ASSERT_EQ(order.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_TRUE((*s)->synchronize().isOk());
  EXPECT_TRUE((*s)->idle());
}

// Callers on two threads queue past the first ring: a caller grows the
// ring outside the stream's lock, so the other caller may queue, or grow
// it first, meanwhile. The worker is held until the callers have queued
// more tasks than the first ring holds (so the ring grows at least once),
// then runs while they go on (where a growth races the worker's taking
// of tasks, as timing allows). Every task runs once, each caller's in its
// order.
TEST(HostStream, TwoCallersGrowTheRingWhileItRuns) {
  auto s = HostStream::create();
  ASSERT_TRUE(s.isOk()) << s.status().message();
  constexpr int kPerCaller = 3 * static_cast<int>(HostStream::kInitialSlots);
  std::atomic<bool> gate{false};
  std::atomic<int> queued{0};
  (*s)->enqueue([&]() -> Status {
    while (!gate.load())
      std::this_thread::yield();
    return Status::ok();
  });
  std::vector<int> seen[2]; // written only on the worker's thread
  auto caller = [&](int who) {
    for (int i = 0; i < kPerCaller; ++i) {
      (*s)->enqueue([&seen, who, i]() -> Status {
        seen[who].push_back(i);
        return Status::ok();
      });
      queued.fetch_add(1);
    }
  };
  std::thread a(caller, 0), b(caller, 1);
  while (queued.load() <= static_cast<int>(HostStream::kInitialSlots))
    std::this_thread::yield();
  EXPECT_GT((*s)->capacity(), HostStream::kInitialSlots);
  gate.store(true);
  a.join();
  b.join();
  ASSERT_TRUE((*s)->synchronize().isOk());
  for (int who = 0; who < 2; ++who) {
    ASSERT_EQ(seen[who].size(), static_cast<size_t>(kPerCaller)) << who;
    for (int i = 0; i < kPerCaller; ++i)
      ASSERT_EQ(seen[who][static_cast<size_t>(i)], i) << who;
  }
}

// Pages of [p, p + bytes) that this process has a page-table entry for
// (bit 63 of /proc/self/pagemap), i.e. that an access will not fault on.
static size_t presentPages(const void *p, size_t bytes) {
  int fd = ::open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0)
    return 0;
  size_t first = reinterpret_cast<uintptr_t>(p) / pageSize();
  size_t n = bytes / pageSize(), present = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t e = 0;
    if (::pread(fd, &e, sizeof(e), static_cast<off_t>((first + i) * 8)) == 8 &&
        (e >> 63) != 0)
      ++present;
  }
  ::close(fd);
  return present;
}

// A first write to a page of a ring took 25-60 us on the VM (a fault in the
// guest and the hypervisor): the owner writes its whole segment at creation,
// a sender maps its ring in the peer's segment before the first call.
TEST(Segment, RingsAreWrittenBeforeTheFirstCall) {
  RingGeometry g;
  g.nSlots = 4;
  const uint32_t nRings = 3;
  auto own = Segment::create(/*rank=*/0, nRings, /*commTag=*/42, g);
  ASSERT_TRUE(own.isOk()) << own.status().message();
  const size_t segPages = g.segmentBytes(nRings) / pageSize();
  EXPECT_EQ(presentPages((*own)->header(), g.segmentBytes(nRings)), segPages);

  auto self = PeerProcess::open(::getpid());
  ASSERT_TRUE(self.isOk()) << self.status().message();
  auto peer = Segment::import(**self, (*own)->fd(), /*expectRank=*/0, nRings,
                              /*commTag=*/42, g);
  ASSERT_TRUE(peer.isOk()) << peer.status().message();
  const size_t ringPages = g.ringBytes() / pageSize();
  (*own)->ctl(2)->head.store(7);
  (*own)->ctl(2)->tail.store(5);
  EXPECT_LT(presentPages((*peer)->ctl(2), g.ringBytes()), ringPages)
      << "an imported ring is mapped before anyone asked";
  (*peer)->prefaultRing(2);
  EXPECT_EQ(presentPages((*peer)->ctl(2), g.ringBytes()), ringPages);
  EXPECT_EQ((*own)->ctl(2)->head.load(), 7u);
  EXPECT_EQ((*own)->ctl(2)->tail.load(), 5u);
  EXPECT_LT(presentPages((*peer)->ctl(1), g.ringBytes()), ringPages)
      << "prefaulting one ring mapped another";
}

// In a thread of its own: the test changes its thread's affinity.
TEST(CpuMove, LeavesTheCpuAndKeepsTheMask) {
  std::thread([] {
    cpu_set_t all;
    CPU_ZERO(&all);
    ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) < 2)
      GTEST_SKIP() << "needs 2 CPUs in the affinity mask, has "
                   << CPU_COUNT(&all);
    // Pin to two CPUs of the mask and start on the first.
    int first = -1, second = -1;
    for (int c = 0; c < CPU_SETSIZE && second < 0; ++c)
      if (CPU_ISSET(c, &all))
        (first < 0 ? first : second) = c;
    cpu_set_t two, one;
    CPU_ZERO(&two);
    CPU_SET(first, &two);
    CPU_SET(second, &two);
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    ASSERT_EQ(sched_getcpu(), first);
    // One CPU allowed: nowhere to go, nothing changes.
    EXPECT_FALSE(moveOffCpu(first));
    EXPECT_EQ(sched_getcpu(), first);
    ASSERT_EQ(sched_setaffinity(0, sizeof two, &two), 0);
    // A CPU outside the mask, or none: refused.
    EXPECT_FALSE(moveOffCpu(-1));
    EXPECT_FALSE(moveOffCpu(CPU_SETSIZE));
    // From a CPU of the mask: now on the other, and the mask is both again.
    int at = sched_getcpu();
    ASSERT_TRUE(moveOffCpu(at));
    EXPECT_NE(sched_getcpu(), at);
    cpu_set_t after;
    CPU_ZERO(&after);
    ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
    EXPECT_TRUE(CPU_EQUAL(&after, &two));
  }).join();
}

TEST(CacheSize, SysfsSizesAndCpuListsAreParsedOrRefused) {
  EXPECT_EQ(cacheSizeOf("32768K"), size_t(32) << 20);
  EXPECT_EQ(cacheSizeOf("1M"), size_t(1) << 20);
  EXPECT_EQ(cacheSizeOf("2G"), size_t(2) << 30);
  EXPECT_EQ(cacheSizeOf("512"), size_t(512));
  for (const char *bad : {"", "K", "0K", "32768k", "32768KB", "-1K", " 1K",
                          "1234567890K", "12.5M"})
    EXPECT_EQ(cacheSizeOf(bad), size_t(0)) << bad;
  EXPECT_EQ(cpuListCount("0-1"), 2);
  EXPECT_EQ(cpuListCount("0-3,8,10-11"), 7);
  EXPECT_EQ(cpuListCount("5"), 1);
  for (const char *bad : {"", ",", "0,", ",0", "3-1", "0-", "-1", "0--1", "a",
                          "0 1", "0-1,,2", "0-1234567890"})
    EXPECT_EQ(cpuListCount(bad), 0) << bad;
}

/// A fake /sys/devices/system/cpu with cpu0's caches as given: each entry
/// is {level, type, size, shared_cpu_list}.
std::string fakeCpuDir(const std::string &name,
                       const std::vector<std::array<std::string, 4>> &caches) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() /
                  ("hccl-cache-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(root);
  for (size_t i = 0; i < caches.size(); ++i) {
    fs::path d = root / "cpu0" / "cache" / ("index" + std::to_string(i));
    fs::create_directories(d);
    const char *files[4] = {"level", "type", "size", "shared_cpu_list"};
    for (int f = 0; f < 4; ++f)
      std::ofstream(d / files[f]) << caches[i][static_cast<size_t>(f)] << "\n";
  }
  return root.string();
}

TEST(CacheSize, TheLastLevelIsTheHighestDataCacheOfLevelThreeOrMore) {
  // This VM's layout: L1d, L1i, L2 per core, one L3 over both cores.
  std::string vm = fakeCpuDir("vm", {{"1", "Data", "32K", "0"},
                                     {"1", "Instruction", "32K", "0"},
                                     {"2", "Unified", "1024K", "0"},
                                     {"3", "Unified", "32768K", "0-1"}});
  LastLevelCache c = lastLevelCacheIn(vm);
  EXPECT_EQ(c.bytes, size_t(32) << 20);
  EXPECT_EQ(c.sharing, 2);
  // An instruction cache is never the last level, a malformed size is
  // skipped, an unreadable share is 0.
  std::string odd = fakeCpuDir("odd", {{"3", "Unified", "8M", "0-1,"},
                                       {"4", "Instruction", "64M", "0-1"},
                                       {"4", "Unified", "lots", "0-1"}});
  c = lastLevelCacheIn(odd);
  EXPECT_EQ(c.bytes, size_t(8) << 20);
  EXPECT_EQ(c.sharing, 0);
  // No L3 (VMs that show L1 and L2 only): no last level, never streamed.
  std::string noL3 = fakeCpuDir(
      "nol3", {{"1", "Data", "32K", "0"}, {"2", "Unified", "512K", "0"}});
  EXPECT_EQ(lastLevelCacheIn(noL3).bytes, size_t(0));
  EXPECT_EQ(lastLevelCacheIn("/nonexistent-hccl-cpu-dir").bytes, size_t(0));
  for (const std::string &d : {vm, odd, noL3})
    std::filesystem::remove_all(d);
}

TEST(CacheSize, EachRankSharesTheInstancesItsCpusReach) {
  const size_t mib = size_t(1) << 20;
  LastLevelCache vm{32 * mib, 2};
  EXPECT_EQ(cacheSharePerRank(vm, 2, 1), 32 * mib);
  EXPECT_EQ(cacheSharePerRank(vm, 2, 2), 16 * mib);
  EXPECT_EQ(cacheSharePerRank(vm, 2, 4), 8 * mib);
  // 96 cores, an L3 per 8: two ranks reach two instances, not twelve.
  LastLevelCache epyc{32 * mib, 8};
  EXPECT_EQ(cacheSharePerRank(epyc, 96, 2), 32 * mib);
  EXPECT_EQ(cacheSharePerRank(epyc, 96, 24), 16 * mib);
  // Pinned to 8 CPUs (one instance): 8 ranks share it.
  EXPECT_EQ(cacheSharePerRank(epyc, 8, 8), 4 * mib);
  // Unknown share: one instance for all the CPUs.
  EXPECT_EQ(cacheSharePerRank(LastLevelCache{32 * mib, 0}, 96, 4), 8 * mib);
  EXPECT_EQ(cacheSharePerRank(LastLevelCache{}, 2, 2), size_t(0));
  EXPECT_EQ(cacheSharePerRank(vm, 2, 0), size_t(0));
  // A lying size times many instances overflows: no share.
  LastLevelCache huge{~size_t(0) / 2, 1};
  EXPECT_EQ(cacheSharePerRank(huge, 64, 8), size_t(0));
}

TEST(HostLoad, RunnableCountIsReadFromLoadavg) {
  EXPECT_EQ(runnableThreadsOf("0.52 0.58 0.59 3/1172 12345\n"), 3);
  EXPECT_EQ(runnableThreadsOf("7.14 5.26 4.87 12/988 1"), 12);
  for (const char *bad :
       {"", "0.5 0.5 0.5", "0.5 0.5 0.5 /10 1", "0.5 0.5 0.5 x/10 1",
        "0.5 0.5 0.5 3 1", "0.5 0.5 0.5 1234567890/10 1"})
    EXPECT_EQ(runnableThreadsOf(bad), -1) << bad;
  // This process's own thread is running while it reads the file.
  EXPECT_GE(runnableThreads(), 1);
}

TEST(HostLoad, BusyMeansOtherJobsHoldTheCores) {
  // 2 cores, a 2-rank job (4 threads of its own may be runnable): its own
  // spinning threads do not make the host busy; two more threads do.
  EXPECT_FALSE(busyWith(4, 2, 4));
  EXPECT_FALSE(busyWith(6, 2, 4));
  EXPECT_TRUE(busyWith(7, 2, 4));
  EXPECT_TRUE(busyWith(3, 2, 0));
}

// Two ranks found on one CPU: exactly one steps off (when both did, they
// met again on the other CPU, step after step), and none when the host has
// no CPU to spare or nobody shares.
TEST(WaitPolicy, OneOfTwoRanksOnACpuStepsOff) {
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      if (a == b)
        continue;
      EXPECT_NE(WaitPolicy::stepsOff(a, b, false),
                WaitPolicy::stepsOff(b, a, false))
          << a << " and " << b;
      EXPECT_FALSE(WaitPolicy::stepsOff(a, b, true));
    }
  EXPECT_FALSE(WaitPolicy::stepsOff(3, -1, false));
}

// A co-located waiter sleeps at once only with a core per rank; with more
// ranks than cores it yields first (a sleep there cost a wake-up per step).
TEST(WaitPolicy, ColocatedWaitersYieldWhenOversubscribed) {
  EXPECT_TRUE(WaitPolicy::colocatedSleeps(true, false));
  EXPECT_FALSE(WaitPolicy::colocatedSleeps(true, true));
  EXPECT_FALSE(WaitPolicy::colocatedSleeps(false, false));
  WaitPolicy over(/*oversubscribed=*/true, /*callerMoves=*/false,
                  /*hostBusy=*/false);
  EXPECT_EQ(over.next(0), WaitPolicy::Action::Yield);
}

TEST(WaitPolicy, YieldsOnlyWhenNoOtherJobHoldsTheCores) {
  using A = WaitPolicy::Action;
  // Idle host: spin 20 us (1 ms when the waiter moves the data), yield
  // 100 us, sleep. Own ranks oversubscribing it: yield 200 us at once.
  EXPECT_EQ(WaitPolicy::spinBudgetUs(false, false, false), 20);
  EXPECT_EQ(WaitPolicy::spinBudgetUs(false, true, false), 1000);
  EXPECT_EQ(WaitPolicy::yieldBudgetUs(false, false), 100);
  EXPECT_EQ(WaitPolicy::spinBudgetUs(true, false, false), 0);
  EXPECT_EQ(WaitPolicy::yieldBudgetUs(true, false), 200);
  // Busy host: spin 20 us whatever the transport, never yield.
  EXPECT_EQ(WaitPolicy::spinBudgetUs(false, true, true), 20);
  EXPECT_EQ(WaitPolicy::yieldBudgetUs(false, true), 0);
  EXPECT_EQ(WaitPolicy::yieldBudgetUs(true, true), 0);
  WaitPolicy idle(false, false, false), busy(false, false, true),
      over(true, false, false);
  EXPECT_EQ(idle.next(19), A::Spin);
  EXPECT_EQ(idle.next(20), A::Yield);
  EXPECT_EQ(idle.next(120), A::Sleep);
  EXPECT_EQ(busy.next(19), A::Spin);
  EXPECT_EQ(busy.next(20), A::Sleep);
  EXPECT_EQ(over.next(0), A::Yield);
  EXPECT_EQ(over.next(200), A::Sleep);
}
