//===- rt_hcclapi_test.cpp - The HCCL calls beyond the core collectives ---===//
//
// Scatter, the vector collectives, batched and grouped send/receive,
// HcclCommInitAll, names, suspension, state callbacks, process settings,
// HcclCommConfig's version protocol, zero-copy ranges, any rank as the root
// and the NPU-only calls, each run by forked ranks (rt_harness.h) and
// checked element-exact on every rank.
//
//===----------------------------------------------------------------------===//
#include "rt_harness.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cstring>
#include <fstream>
#include <mutex>
#include <netinet/in.h>
#include <numeric>
#include <sys/mman.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace rtest;

namespace {

bool contains(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

/// Like RankCtx::initComm, but rank `root` makes the root info.
HcclResult initWithRoot(RankCtx &ctx, int root, HcclComm *comm,
                        const HcclCommConfig *cfg = nullptr) {
  int slot = ctx.nextRoot++ % kRootSlots;
  uint32_t gen = static_cast<uint32_t>(ctx.nextRoot);
  if (ctx.rank == root) {
    HcclResult rc = HcclGetRootInfo(&ctx.sh->root[slot]);
    if (rc != HCCL_SUCCESS)
      return rc;
    ctx.sh->rootGen[slot].store(gen);
  } else {
    while (ctx.sh->rootGen[slot].load() != gen)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (cfg)
    return HcclCommInitRootInfoConfig(
        static_cast<uint32_t>(ctx.size), &ctx.sh->root[slot],
        static_cast<uint32_t>(ctx.rank), cfg, comm);
  return HcclCommInitRootInfo(static_cast<uint32_t>(ctx.size),
                              &ctx.sh->root[slot],
                              static_cast<uint32_t>(ctx.rank), comm);
}

/// A distinct value per (rank, element).
int32_t val(int rank, uint64_t i) {
  return static_cast<int32_t>(rank * 100003 + static_cast<int64_t>(i) * 7 + 1);
}

constexpr int32_t kPoison = -77;

/// The call, on a stream (synchronised) or synchronously.
struct Mode {
  bool stream;
};
const Mode kModes[] = {{false}, {true}};

#define RUN_IN(mode, comm, call_with_stream)                                   \
  do {                                                                         \
    aclrtStream _s = nullptr;                                                  \
    if ((mode).stream)                                                         \
      RT_OK(HcclStreamCreate(&_s));                                            \
    RT_OK(call_with_stream);                                                   \
    if (_s) {                                                                  \
      RT_OK(HcclStreamSynchronize(_s));                                        \
      RT_OK(HcclStreamDestroy(_s));                                            \
    }                                                                          \
  } while (0)

} // namespace

TEST(HcclApi, ScatterFromEveryRootInAndOutOfPlace) {
  for (int p : {1, 2, 3, 5}) {
    auto body = [](RankCtx &c) -> std::string {
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      for (uint64_t n : {0ull, 1ull, 7ull, 1000ull})
        for (int root = 0; root < c.size; ++root)
          for (const Mode &m : kModes)
            for (bool inPlace : {false, true}) {
              std::vector<int32_t> send(n * c.size), recv(n, kPoison);
              for (uint64_t i = 0; i < send.size(); ++i)
                send[i] = val(c.rank, i);
              void *out = recv.data();
              if (inPlace && c.rank == root)
                out = send.data() + root * n;
              void *in = c.rank == root ? send.data() : nullptr;
              RUN_IN(m, comm,
                     HcclScatter(in, out, n, HCCL_DATA_TYPE_INT32,
                                 static_cast<uint32_t>(root), comm, _s));
              const int32_t *got = static_cast<const int32_t *>(out);
              for (uint64_t i = 0; i < n; ++i)
                RT_CHECK(got[i] == val(root, c.rank * n + i),
                         "n=" + std::to_string(n) + " root=" +
                             std::to_string(root) + " i=" + std::to_string(i));
            }
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(p, body), "") << "p=" << p;
  }
}

TEST(HcclApi, AllGatherVWithUnevenCountsAndGaps) {
  for (int p : {1, 2, 3, 5}) {
    auto body = [](RankCtx &c) -> std::string {
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      const int p = c.size;
      for (int variant = 0; variant < 3; ++variant)
        for (const Mode &m : kModes)
          for (bool inPlace : {false, true}) {
            std::vector<uint64_t> counts(p), displs(p);
            uint64_t at = 0;
            for (int i = 0; i < p; ++i) {
              counts[i] = static_cast<uint64_t>((i * 3 + variant * 5) % 7);
              displs[i] = at + 1; // one poisoned element before each block
              at = displs[i] + counts[i];
            }
            std::vector<int32_t> recv(at + 1, kPoison);
            std::vector<int32_t> send(counts[c.rank]);
            for (uint64_t i = 0; i < send.size(); ++i)
              send[i] = val(c.rank, i);
            void *in = send.data();
            if (inPlace) {
              std::copy(send.begin(), send.end(),
                        recv.begin() + static_cast<long>(displs[c.rank]));
              in = recv.data() + displs[c.rank];
            }
            RUN_IN(m, comm,
                   HcclAllGatherV(in, counts[c.rank], recv.data(),
                                  counts.data(), displs.data(),
                                  HCCL_DATA_TYPE_INT32, comm, _s));
            for (int i = 0; i < p; ++i) {
              RT_CHECK(recv[displs[i] - 1] == kPoison, "gap written");
              for (uint64_t k = 0; k < counts[i]; ++k)
                RT_CHECK(recv[displs[i] + k] == val(i, k),
                         "block " + std::to_string(i) + " element " +
                             std::to_string(k));
            }
            RT_CHECK(recv.back() == kPoison, "past the end written");
          }
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(p, body), "") << "p=" << p;
  }
}

TEST(HcclApi, ReduceScatterVEveryOperator) {
  for (int p : {1, 2, 3, 5}) {
    auto body = [](RankCtx &c) -> std::string {
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      const int p = c.size;
      std::vector<uint64_t> counts(p), displs(p);
      uint64_t at = 0;
      for (int i = 0; i < p; ++i) {
        counts[i] = static_cast<uint64_t>((i * 5 + 3) % 9);
        displs[i] = at + 2;
        at = displs[i] + counts[i];
      }
      // Small integers: sums and products are exact in fp32 too.
      auto in = [](int rank, uint64_t k) {
        return static_cast<float>(((rank + 1) * 3 + static_cast<int>(k)) % 5 +
                                  1);
      };
      for (HcclReduceOp op : {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD,
                              HCCL_REDUCE_MAX, HCCL_REDUCE_MIN})
        for (const Mode &m : kModes)
          for (bool inPlace : {false, true}) {
            std::vector<float> send(at, -1.0f);
            for (int j = 0; j < p; ++j)
              for (uint64_t k = 0; k < counts[j]; ++k)
                send[displs[j] + k] = in(c.rank, displs[j] + k);
            std::vector<float> recv(counts[c.rank] + 1, -5.0f);
            float *out = inPlace ? send.data() + displs[c.rank] : recv.data();
            RUN_IN(m, comm,
                   HcclReduceScatterV(send.data(), counts.data(), displs.data(),
                                      out, counts[c.rank], HCCL_DATA_TYPE_FP32,
                                      op, comm, _s));
            for (uint64_t k = 0; k < counts[c.rank]; ++k) {
              uint64_t e = displs[c.rank] + k;
              float want = in(0, e);
              for (int r = 1; r < p; ++r) {
                float v = in(r, e);
                want = op == HCCL_REDUCE_SUM    ? want + v
                       : op == HCCL_REDUCE_PROD ? want * v
                       : op == HCCL_REDUCE_MAX  ? std::max(want, v)
                                                : std::min(want, v);
              }
              RT_CHECK(out[k] == want, "op " + std::to_string(op) +
                                           " element " + std::to_string(k) +
                                           ": " + std::to_string(out[k]) +
                                           " != " + std::to_string(want));
            }
            if (!inPlace)
              RT_CHECK(recv.back() == -5.0f, "past the end written");
          }
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(p, body), "") << "p=" << p;
  }
}

TEST(HcclApi, AlltoAllVCWithACountMatrix) {
  for (int p : {1, 2, 4}) {
    auto body = [](RankCtx &c) -> std::string {
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      const int p = c.size;
      std::vector<uint64_t> m(static_cast<size_t>(p * p));
      for (int i = 0; i < p; ++i)
        for (int j = 0; j < p; ++j)
          m[i * p + j] = static_cast<uint64_t>((i + 2 * j) % 4);
      uint64_t sendTotal = 0, recvTotal = 0;
      for (int j = 0; j < p; ++j) {
        sendTotal += m[c.rank * p + j];
        recvTotal += m[j * p + c.rank];
      }
      std::vector<int32_t> send(sendTotal), recv(recvTotal + 1, kPoison);
      for (uint64_t i = 0; i < sendTotal; ++i)
        send[i] = val(c.rank, i);
      for (const Mode &md : kModes) {
        RUN_IN(md, comm,
               HcclAlltoAllVC(send.data(), m.data(), HCCL_DATA_TYPE_INT32,
                              recv.data(), HCCL_DATA_TYPE_INT32, comm, _s));
        uint64_t at = 0;
        for (int i = 0; i < p; ++i) {
          uint64_t off = 0; // where rank i's block for me starts in its send
          for (int j = 0; j < c.rank; ++j)
            off += m[i * p + j];
          for (uint64_t k = 0; k < m[i * p + c.rank]; ++k)
            RT_CHECK(recv[at + k] == val(i, off + k),
                     "from rank " + std::to_string(i));
          at += m[i * p + c.rank];
        }
        RT_CHECK(recv.back() == kPoison, "past the end written");
      }
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(p, body), "") << "p=" << p;
  }
}

TEST(HcclApi, BatchSendRecvBothWaysAtOnceAndToSelf) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    const int p = c.size;
    const int next = (c.rank + 1) % p, prev = (c.rank + p - 1) % p;
    // Large enough that sends cannot complete without the receive posted.
    const uint64_t n = 1 << 20;
    for (const Mode &m : kModes) {
      std::vector<int32_t> toNext(n), toPrev(n), fromPrev(n), fromNext(n),
          self(n), selfIn(n);
      for (uint64_t i = 0; i < n; ++i) {
        toNext[i] = val(c.rank, i);
        toPrev[i] = val(c.rank, i + n);
        selfIn[i] = val(c.rank, i + 2 * n);
      }
      // Sends first on every rank: sequential blocking calls would deadlock.
      HcclSendRecvItem items[] = {
          {HCCL_SEND, toNext.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(next)},
          {HCCL_SEND, toPrev.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(prev)},
          {HCCL_RECV, fromPrev.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(prev)},
          {HCCL_RECV, fromNext.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(next)},
          {HCCL_SEND, selfIn.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(c.rank)},
          {HCCL_RECV, self.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(c.rank)},
      };
      std::vector<HcclSendRecvItem> list(std::begin(items), std::end(items));
      if (p == 2) {
        // One send and one receive per peer (HCCL's rule): drop the second.
        list.erase(list.begin() + 3);
        list.erase(list.begin() + 1);
      }
      RUN_IN(m, comm,
             HcclBatchSendRecv(list.data(), static_cast<uint32_t>(list.size()),
                               comm, _s));
      for (uint64_t i = 0; i < n; i += 4093) {
        RT_CHECK(fromPrev[i] == val(prev, i), "from prev");
        if (p > 2)
          RT_CHECK(fromNext[i] == val(next, i + n), "from next");
        RT_CHECK(self[i] == val(c.rank, i + 2 * n), "to self");
      }
    }
    // HCCL's rules.
    int32_t x = 0;
    HcclSendRecvItem dup[] = {
        {HCCL_SEND, &x, 1, HCCL_DATA_TYPE_INT32, uint32_t(next)},
        {HCCL_SEND, &x, 1, HCCL_DATA_TYPE_INT32, uint32_t(next)}};
    RT_CHECK(HcclBatchSendRecv(dup, 2, comm, nullptr) == HCCL_E_PARA, "dup");
    RT_CHECK(contains(HcclGetLastErrorMessage(), "a second send to rank"),
             HcclGetLastErrorMessage());
    HcclSendRecvItem lone[] = {
        {HCCL_SEND, &x, 1, HCCL_DATA_TYPE_INT32, uint32_t(c.rank)}};
    RT_CHECK(HcclBatchSendRecv(lone, 1, comm, nullptr) == HCCL_E_PARA, "self");
    RT_CHECK(contains(HcclGetLastErrorMessage(), "needs the matching receive"),
             HcclGetLastErrorMessage());
    RT_CHECK(HcclBatchSendRecv(nullptr, 1, comm, nullptr) == HCCL_E_PTR,
             "null list");
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  for (int p : {2, 3, 4})
    EXPECT_EQ(runRanks(p, body), "") << "p=" << p;
}

TEST(HcclApi, GroupedSendsAndReceivesDoNotDeadlock) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    const int p = c.size;
    const int next = (c.rank + 1) % p, prev = (c.rank + p - 1) % p;
    const uint64_t n = 1 << 20;
    std::vector<int32_t> out(n), in(n, kPoison);
    for (uint64_t i = 0; i < n; ++i)
      out[i] = val(c.rank, i);
    bool on = true;
    RT_OK(HcclGroupStatusGet(&on));
    RT_CHECK(!on, "no group yet");
    RT_OK(HcclGroupStart());
    RT_OK(HcclGroupStart()); // groups nest; the outermost end issues
    RT_OK(HcclSend(out.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(next), comm,
                   nullptr));
    RT_OK(HcclGroupEnd());
    RT_OK(HcclGroupStatusGet(&on));
    RT_CHECK(on, "still inside the outer group");
    RT_CHECK(in[0] == kPoison, "nothing ran before the outermost end");
    RT_OK(HcclRecv(in.data(), n, HCCL_DATA_TYPE_INT32, uint32_t(prev), comm,
                   nullptr));
    RT_OK(HcclGroupEnd());
    for (uint64_t i = 0; i < n; i += 1021)
      RT_CHECK(in[i] == val(prev, i), "element " + std::to_string(i));
    RT_CHECK(HcclGroupEnd() == HCCL_E_PARA, "end without start");
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  for (int p : {2, 3})
    EXPECT_EQ(runRanks(p, body), "") << "p=" << p;
}

TEST(HcclApi, InitAllMakesRanksAsThreads) {
  EXPECT_EQ(runRanks(1,
                     [](RankCtx &) -> std::string {
                       const uint32_t n = 4;
                       int32_t devices[n] = {3, 1, 0, 2};
                       HcclComm comms[n] = {};
                       RT_OK(HcclCommInitAll(n, devices, comms));
                       std::vector<std::string> errs(n);
                       std::vector<std::thread> ts;
                       for (uint32_t r = 0; r < n; ++r)
                         ts.emplace_back([&, r] {
                           uint32_t rank = 99, size = 0;
                           HcclGetRankId(comms[r], &rank);
                           HcclGetRankSize(comms[r], &size);
                           if (rank != r || size != n)
                             errs[r] = "rank/size";
                           int64_t x = r + 1, y = 0;
                           if (HcclAllReduce(&x, &y, 1, HCCL_DATA_TYPE_INT64,
                                             HCCL_REDUCE_SUM, comms[r],
                                             nullptr) != HCCL_SUCCESS ||
                               y != 10)
                             errs[r] += " allreduce";
                         });
                       for (auto &t : ts)
                         t.join();
                       for (uint32_t r = 0; r < n; ++r)
                         RT_CHECK(errs[r].empty(), errs[r]);
                       for (uint32_t r = 0; r < n; ++r)
                         RT_OK(HcclCommDestroy(comms[r]));
                       int32_t dup[2] = {1, 1};
                       HcclComm two[2];
                       RT_CHECK(HcclCommInitAll(2, dup, two) == HCCL_E_PARA,
                                "duplicate devices");
                       RT_CHECK(
                           contains(HcclGetLastErrorMessage(), "appears twice"),
                           HcclGetLastErrorMessage());
                       return "";
                     }),
            "");
}

TEST(HcclApi, AnyRankMakesTheRootInfo) {
  for (int p : {2, 3, 4})
    for (int root = 1; root < p; ++root) {
      auto body = [root](RankCtx &c) -> std::string {
        HcclComm comm;
        RT_OK(initWithRoot(c, root, &comm));
        uint32_t rank;
        RT_OK(HcclGetRankId(comm, &rank));
        RT_CHECK(rank == static_cast<uint32_t>(c.rank), "rank id");
        int32_t v = c.rank == root ? 4242 : 0;
        RT_OK(HcclBroadcast(&v, 1, HCCL_DATA_TYPE_INT32,
                            static_cast<uint32_t>(root), comm, nullptr));
        RT_CHECK(v == 4242, "broadcast from the root");
        RT_OK(HcclCommDestroy(comm));
        return "";
      };
      EXPECT_EQ(runRanks(p, body, {60}), "") << "p=" << p << " root=" << root;
    }
}

TEST(HcclApi, NamesAndLookup) {
  auto body = [](RankCtx &c) -> std::string {
    HcclCommConfig cfg;
    HcclCommConfigInit(&cfg);
    std::strcpy(cfg.hcclCommName, "named_group_7");
    HcclComm comm;
    RT_OK(initWithRoot(c, 0, &comm, &cfg));
    char name[COMM_NAME_MAX_LENGTH];
    RT_OK(HcclGetCommName(comm, name));
    RT_CHECK(std::string(name) == "named_group_7", name);
    HcclComm found = nullptr;
    RT_OK(HcclCommGetHandleWithName("named_group_7", &found));
    RT_CHECK(found == comm, "lookup by name");
    RT_CHECK(HcclCommGetHandleWithName("nope", &found) == HCCL_E_NOT_FOUND,
             "unknown name");
    HcclComm unnamed;
    RT_OK(c.initComm(&unnamed));
    RT_OK(HcclGetCommName(unnamed, name));
    RT_CHECK(std::strlen(name) > 0 && std::string(name) != "named_group_7",
             name);
    RT_OK(HcclCommDestroy(unnamed));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body), "");
}

namespace {
std::mutex gPhasesMu;
std::vector<int> gPhases;
HcclResult recordPhase(HcclComm, HcclCommStatePhase phase, void *args) {
  std::lock_guard<std::mutex> g(gPhasesMu);
  gPhases.push_back(static_cast<int>(phase) + *static_cast<int *>(args));
  return HCCL_SUCCESS;
}
} // namespace

TEST(HcclApi, SuspendResumeAndStateCallbacks) {
  auto body = [](RankCtx &c) -> std::string {
    static int tag = 100;
    RT_OK(HcclCommRegCommStateCallback("test", recordPhase, &tag));
    HcclCommConfig cfg;
    HcclCommConfigInit(&cfg);
    std::strcpy(cfg.hcclCommName, "suspendable");
    HcclComm comm;
    RT_OK(initWithRoot(c, 0, &comm, &cfg));
    int32_t x = 1, y = 0;
    RT_OK(HcclCommSuspend(comm));
    HcclCommStatus st = HCCL_COMM_STATUS_READY;
    RT_OK(HcclCommGetStatus("suspendable", &st));
    RT_CHECK(st == HCCL_COMM_STATUS_SUSPENDING, "status while suspended");
    RT_CHECK(HcclAllReduce(&x, &y, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM,
                           comm, nullptr) == HCCL_E_SUSPENDING,
             "collective on a suspended communicator");
    RT_CHECK(contains(HcclGetLastErrorMessage(), "suspended"),
             HcclGetLastErrorMessage());
    RT_OK(HcclCommResume(comm));
    RT_OK(HcclCommGetStatus("suspendable", &st));
    RT_CHECK(st == HCCL_COMM_STATUS_READY, "status after resume");
    RT_OK(HcclAllReduce(&x, &y, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm,
                        nullptr));
    RT_CHECK(y == c.size, "all-reduce after resume");
    RT_OK(HcclCommDestroy(comm));
    std::lock_guard<std::mutex> g(gPhasesMu);
    std::vector<int> want = {102, 103, 100, 101};
    RT_CHECK(gPhases == want, "callback phases in order");
    RT_OK(HcclCommRegCommStateCallback("test", nullptr, nullptr));
    return "";
  };
  EXPECT_EQ(runRanks(2, body), "");
}

TEST(HcclApi, ProcessSettingsCapabilityAndExpansionMode) {
  auto body = [](RankCtx &c) -> std::string {
    HcclConfigValue v;
    RT_OK(HcclGetConfig(HCCL_DETERMINISTIC, &v));
    RT_CHECK(v.value == 0, "default");
    v.value = 2;
    RT_OK(HcclSetConfig(HCCL_DETERMINISTIC, v));
    HcclConfigValue got;
    RT_OK(HcclGetConfig(HCCL_DETERMINISTIC, &got));
    RT_CHECK(got.value == 2, "set to strict");
    v.value = 3;
    RT_CHECK(HcclSetConfig(HCCL_DETERMINISTIC, v) == HCCL_E_PARA, "3");
    RT_CHECK(HcclSetConfig(HCCL_CONFIG_RESERVED, v) == HCCL_E_PARA, "kind");
    RT_CHECK(HcclGetCommConfigCapability() > HCCL_COMM_CONFIG_BUFFER_NAME,
             "capability");
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    HcclConfigTypeOpExpansionMode mode = HCCL_OP_EXPANSION_MODE_INVALID;
    RT_OK(HcclConfigGetInfo(comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE,
                            sizeof(mode), &mode));
    RT_CHECK(mode == HCCL_OP_EXPANSION_MODE_HOST, "host expansion");
    RT_CHECK(HcclConfigGetInfo(comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 1,
                               &mode) == HCCL_E_PARA,
             "short info");
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body), "");
}

namespace {
// HCCL's version-5 HcclCommConfig (CANN 8.1): what an older caller passes.
struct ConfigV5 {
  char reserved[24];
  uint32_t hcclBufferSize;
  uint32_t hcclDeterministic;
  char hcclCommName[128];
  char hcclUdi[128];
  uint32_t hcclOpExpansionMode;
  uint32_t hcclRdmaTrafficClass;
  uint32_t hcclRdmaServiceLevel;
};
void initV5(ConfigV5 &c) {
  std::memset(&c, 0, sizeof(c));
  size_t size = sizeof(c);
  uint32_t magic = 0xf0f0f0f0u, version = 5;
  std::memcpy(c.reserved, &size, 8);
  std::memcpy(c.reserved + 8, &magic, 4);
  std::memcpy(c.reserved + 12, &version, 4);
  c.hcclBufferSize = 0xffffffffu;
  c.hcclDeterministic = 0xffffffffu;
  c.hcclRdmaTrafficClass = 0xffffffffu;
  c.hcclRdmaServiceLevel = 0xffffffffu;
}
} // namespace

TEST(HcclApi, CommConfigOlderAndNewerCallers) {
  auto body = [](RankCtx &c) -> std::string {
    // An older caller: its struct ends after the service level; bytes
    // beyond it (here 0x5a) must not be read.
    struct {
      ConfigV5 cfg;
      char trailing[4096];
    } old;
    initV5(old.cfg);
    std::memset(old.trailing, 0x5a, sizeof(old.trailing));
    std::strcpy(old.cfg.hcclCommName, "from_v5");
    HcclComm comm;
    RT_OK(initWithRoot(c, 0, &comm,
                       reinterpret_cast<const HcclCommConfig *>(&old.cfg)));
    char name[COMM_NAME_MAX_LENGTH];
    RT_OK(HcclGetCommName(comm, name));
    RT_CHECK(std::string(name) == "from_v5", name);
    RT_OK(HcclCommDestroy(comm));
    // A newer caller: larger struct, higher version; known fields used.
    struct {
      HcclCommConfig cfg;
      char future[256];
    } newer;
    HcclCommConfigInit(&newer.cfg);
    size_t size = sizeof(newer);
    uint32_t version = 42;
    std::memcpy(newer.cfg.reserved, &size, 8);
    std::memcpy(newer.cfg.reserved + 12, &version, 4);
    std::memset(newer.future, 0x7f, sizeof(newer.future));
    std::strcpy(newer.cfg.hcclCommName, "from_v42");
    std::strcpy(newer.cfg.hcclAlgo, "level0:NA;level1:ring");
    newer.cfg.hcclWorldRankID = 3; // reported as having no effect
    RT_OK(initWithRoot(c, 0, &comm, &newer.cfg));
    RT_OK(HcclGetCommName(comm, name));
    RT_CHECK(std::string(name) == "from_v42", name);
    RT_OK(HcclCommDestroy(comm));
    // What HCCL rejects.
    HcclCommConfig bad;
    HcclCommConfigInit(&bad);
    bad.aclGraphZeroCopyEnable = 2;
    RT_CHECK(initWithRoot(c, 0, &comm, &bad) == HCCL_E_PARA, "zero copy 2");
    RT_CHECK(contains(HcclGetLastErrorMessage(), "aclGraphZeroCopyEnable"),
             HcclGetLastErrorMessage());
    return "";
  };
  EXPECT_EQ(runRanks(1, body), "");
}

TEST(HcclApi, ZeroCopyMemoryRange) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    const size_t bytes = 4 << 20;
    void *base = mmap(nullptr, 2 * bytes, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    RT_CHECK(base != MAP_FAILED, "mmap");
    RT_OK(HcclCommSetMemoryRange(comm, base, 2 * bytes, 0, 0));
    RT_CHECK(HcclCommSetMemoryRange(comm, base, bytes, 0, 0) == HCCL_E_PARA,
             "overlapping range");
    RT_CHECK(HcclCommSetMemoryRange(comm, base, bytes, 4096, 0) == HCCL_E_PARA,
             "alignment");
    RT_CHECK(mprotect(base, 2 * bytes, PROT_READ | PROT_WRITE) == 0,
             "mprotect");
    int handle = 0; // stands in for an aclrtDrvMemHandle
    RT_OK(HcclCommActivateCommMemory(comm, base, 2 * bytes, 0, &handle, 0));
    RT_CHECK(HcclCommActivateCommMemory(comm, base, bytes, 0, &handle, 0) ==
                 HCCL_E_PARA,
             "activated twice");
    auto *in = static_cast<float *>(base);
    auto *out = reinterpret_cast<float *>(static_cast<char *>(base) + bytes);
    const uint64_t n = bytes / sizeof(float);
    for (uint64_t i = 0; i < n; ++i)
      in[i] = static_cast<float>((c.rank + 1) * (i % 97));
    RT_OK(HcclAllReduce(in, out, n, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                        nullptr));
    float f = static_cast<float>(c.size * (c.size + 1) / 2);
    for (uint64_t i = 0; i < n; i += 997)
      RT_CHECK(out[i] == f * static_cast<float>(i % 97), "all-reduce");
    RT_CHECK(HcclCommUnsetMemoryRange(comm, base) == HCCL_E_PARA,
             "unset while active");
    RT_OK(HcclCommDeactivateCommMemory(comm, base));
    RT_OK(HcclCommUnsetMemoryRange(comm, base));
    RT_CHECK(HcclCommDeactivateCommMemory(comm, base) == HCCL_E_PARA,
             "deactivated twice");
    munmap(base, 2 * bytes);
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body), "");
}

TEST(HcclApi, NpuOnlyCallsSayNotSupported) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    uint32_t ranks[1] = {0};
    bool backup[1] = {true};
    RT_CHECK(HcclCommWorkingDevNicSet(comm, ranks, backup, 1) ==
                 HCCL_E_NOT_SUPPORT,
             "nic");
    RT_CHECK(contains(HcclGetLastErrorMessage(), "no meaning on the host"),
             HcclGetLastErrorMessage());
    HcclCommSymWindow w;
    char buf[64];
    RT_CHECK(HcclCommSymWinRegister(comm, buf, sizeof(buf), &w, 1) ==
                 HCCL_E_NOT_SUPPORT,
             "symwin");
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(1, body), "");
}

namespace {

int freeTcpPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a));
  socklen_t l = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr *>(&a), &l);
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

/// Four ranks in each documented form; all on this host.
std::vector<std::pair<std::string, std::string>> rankTableForms() {
  auto devs = [](int from, int n) {
    std::string s;
    for (int d = 0; d < n; ++d)
      s += (d ? "," : "") + std::string("{\"device_id\":\"") +
           std::to_string(d) + "\",\"device_ip\":\"192.168.1." +
           std::to_string(from + d) + "\",\"rank_id\":\"" +
           std::to_string(from + d) + "\"}";
    return s;
  };
  std::string v10 = R"({"status":"completed","version":"1.0","server_count":"1",
    "server_list":[{"server_id":"node_0","device":[)" +
                    devs(0, 4) + "]}]}";
  std::string v12 = R"({"status":"completed","version":"1.2","server_count":"2",
    "server_list":[
      {"server_id":"node_0","host_ip":"127.0.0.1","device":[)" +
                    devs(0, 2) +
                    R"(]},
      {"server_id":"node_1","host_ip":"127.0.0.1","device":[)" +
                    devs(2, 2) +
                    R"(]}],
    "super_pod_list":[{"super_pod_id":"0","server_list":[
      {"server_id":"node_0"},{"server_id":"node_1"}]}]})";
  std::string v20 =
      R"({"status":"completed","version":"2.0","rank_count":4,"rank_list":[)";
  for (int r = 0; r < 4; ++r)
    v20 +=
        std::string(r ? "," : "") + "{\"rank_id\":" + std::to_string(r) +
        ",\"device_id\":" + std::to_string(r % 2) +
        ",\"local_id\":" + std::to_string(r % 2) +
        ",\"level_list\":[{\"net_layer\":0,\"net_instance_id\":\"pod" +
        std::to_string(r / 2) +
        "\",\"rank_addr_list\":[{\"addr_type\":\"IPV4\",\"addr\":\"127.0.0.1\","
        "\"ports\":[\"d2h\"]}]}]}";
  v20 += "]}";
  std::string groups = R"({"status":"completed","group_count":"1","group_list":[
    {"group_name":"hccl_world_group","device_count":"4","instance_count":"4",
     "instance_list":[)";
  for (int r = 0; r < 4; ++r)
    groups += std::string(r ? "," : "") + "{\"pod_name\":\"worker-" +
              std::to_string(r) +
              "\",\"server_id\":\"127.0.0.1\",\"rank_id\":\"" +
              std::to_string(r) + "\",\"devices\":[{\"device_id\":\"" +
              std::to_string(r) + "\",\"device_ip\":\"192.168.1." +
              std::to_string(r) + "\"}]}";
  groups += "]}]}";
  return {{"1.0-named", v10},
          {"1.2-host_ip", v12},
          {"2.0-d2h", v20},
          {"group_list", groups}};
}

} // namespace

TEST(HcclApi, RankTablesInEveryDocumentedForm) {
  for (auto &[name, text] : rankTableForms()) {
    static std::string path;
    path = "/tmp/hccl-rt-forms-" + std::to_string(getpid()) + ".json";
    {
      std::ofstream f(path);
      f << text;
    }
    static int port;
    port = freeTcpPort();
    auto body = [](RankCtx &c) -> std::string {
      setenv("HCCL_IF_BASE_PORT", std::to_string(port).c_str(), 1);
      HcclComm comm;
      RT_OK(HcclCommInitClusterInfo(path.c_str(), static_cast<uint32_t>(c.rank),
                                    &comm));
      int64_t x = c.rank + 1, y = 0;
      RT_OK(HcclAllReduce(&x, &y, 1, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM,
                          comm, nullptr));
      RT_CHECK(y == 10, "all-reduce over the rank table's communicator");
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(4, body, {60}), "") << name;
    std::remove(path.c_str());
  }
}

TEST(HcclApi, NamedServerWithoutAnAddressIsNamed) {
  // Two named servers and no host_ip: a rank of node_1 cannot know where
  // node_0 is, and says so (a rank of node_0 could, but fails first here).
  static std::string path;
  path = "/tmp/hccl-rt-noaddr-" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(path);
    f << R"({"version":"1.0","server_count":"2","server_list":[
      {"server_id":"node_0","device":[{"device_id":"0","rank_id":"0"}]},
      {"server_id":"node_1","device":[{"device_id":"0","rank_id":"1"}]}]})";
  }
  auto body = [](RankCtx &) -> std::string {
    HcclComm comm;
    HcclResult rc = HcclCommInitClusterInfo(path.c_str(), 1, &comm);
    RT_CHECK(rc == HCCL_E_PARA, HcclGetErrorString(rc));
    RT_CHECK(contains(HcclGetLastErrorMessage(),
                      "server 'node_0' of rank 0 carries no address"),
             HcclGetLastErrorMessage());
    return "";
  };
  EXPECT_EQ(runRanks(1, body), "");
  std::remove(path.c_str());
}
