//===- rt_api_test.cpp - C API argument checking and small calls ----------===//
//
// Bad input gets a clear error and the right code, never a crash: each case
// runs inside a forked one-rank job (so a crash would be reported, and the
// test process stays free of runtime state).
//
//===----------------------------------------------------------------------===//
#include "rt_harness.h"

#include <gtest/gtest.h>
#include <set>

using namespace rtest;

namespace {

bool contains(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

#define EXPECT_RC(call, want, fragment)                                        \
  do {                                                                         \
    HcclResult _rc = (call);                                                   \
    if (_rc != (want))                                                         \
      return std::string(#call) + ": expected " + HcclGetErrorString(want) +   \
             ", got " + HcclGetErrorString(_rc) + " (" +                       \
             HcclGetLastErrorMessage() + ")";                                  \
    if (!contains(HcclGetLastErrorMessage(), fragment))                        \
      return std::string(#call) + ": message '" + HcclGetLastErrorMessage() +  \
             "' lacks '" + (fragment) + "'";                                   \
  } while (0)

std::string inOneRank(const Body &body) { return runRanks(1, body, {30}); }

} // namespace

TEST(Api, ErrorStringsAreDistinct) {
  // HCCL's texts (rt_abi_test.cpp checks each): one per code.
  std::set<std::string> seen;
  for (int c = 0; c <= 24; ++c) {
    std::string s = HcclGetErrorString(static_cast<HcclResult>(c));
    EXPECT_TRUE(seen.insert(s).second) << s;
  }
  EXPECT_EQ(std::string(HcclGetErrorString(static_cast<HcclResult>(999))),
            "unknow error");
}

TEST(Api, ResultCodesAreHcclNumbers) {
  EXPECT_EQ(HCCL_E_PARA, 1);
  EXPECT_EQ(HCCL_E_TIMEOUT, 9);
  EXPECT_EQ(HCCL_E_REMOTE, 21);
  EXPECT_EQ(HCCL_DATA_TYPE_BFP16, 11);
  EXPECT_EQ(HCCL_REDUCE_MIN, 3);
  EXPECT_EQ(sizeof(HcclRootInfo), 4108u);
}

TEST(Api, BadHandles) {
  EXPECT_EQ(
      inOneRank([](RankCtx &) -> std::string {
        float x = 0;
        EXPECT_RC(HcclAllReduce(&x, &x, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                                nullptr, nullptr),
                  HCCL_E_PTR, "HcclAllReduce: comm is NULL");
        int junk[16] = {0};
        EXPECT_RC(HcclBarrier(junk, nullptr), HCCL_E_PARA,
                  "not a live communicator");
        uint32_t n;
        EXPECT_RC(HcclGetRankSize(junk, &n), HCCL_E_PARA,
                  "not a live communicator");
        EXPECT_RC(HcclCommDestroy(nullptr), HCCL_E_PTR, "comm is NULL");
        EXPECT_RC(HcclStreamSynchronize(junk), HCCL_E_PARA,
                  "not a live host stream");
        EXPECT_RC(HcclStreamDestroy(nullptr), HCCL_E_PTR, "stream is NULL");
        EXPECT_RC(HcclMemFree(junk), HCCL_E_PARA,
                  "not returned by HcclMemAlloc");
        EXPECT_RC(HcclGetRootInfo(nullptr), HCCL_E_PTR, "rootInfo is NULL");
        return "";
      }),
      "");
}

TEST(Api, BadRootInfoAndRanks) {
  EXPECT_EQ(inOneRank([](RankCtx &) -> std::string {
              HcclRootInfo junk;
              std::memset(&junk, 0x42, sizeof(junk));
              HcclComm comm;
              EXPECT_RC(HcclCommInitRootInfo(2, &junk, 1, &comm), HCCL_E_PARA,
                        "bad magic");
              HcclRootInfo info;
              RT_OK(HcclGetRootInfo(&info));
              EXPECT_RC(HcclCommInitRootInfo(0, &info, 0, &comm), HCCL_E_PARA,
                        "nRanks=0");
              EXPECT_RC(HcclCommInitRootInfo(2, &info, 2, &comm), HCCL_E_PARA,
                        "rank 2 is outside 0..1");
              EXPECT_RC(HcclCommInitRootInfo(1, &info, 0, nullptr), HCCL_E_PTR,
                        "comm is NULL");
              // A corrupted byte of a valid blob is caught by the checksum.
              HcclRootInfo bad = info;
              bad.internal[40] ^= 1;
              EXPECT_RC(HcclCommInitRootInfo(1, &bad, 0, &comm), HCCL_E_PARA,
                        "");
              HcclCommConfig cfg;
              HcclCommConfigInit(&cfg);
              cfg.hcclDeterministic = 5;
              EXPECT_RC(HcclCommInitRootInfoConfig(1, &info, 0, &cfg, &comm),
                        HCCL_E_PARA, "hcclDeterministic=5");
              std::memset(&cfg, 0, sizeof(cfg));
              EXPECT_RC(HcclCommInitRootInfoConfig(1, &info, 0, &cfg, &comm),
                        HCCL_E_PARA, "HcclCommConfigInit");
              return "";
            }),
            "");
}

TEST(Api, BadCollectiveArguments) {
  EXPECT_EQ(
      inOneRank([](RankCtx &c) -> std::string {
        HcclComm comm;
        RT_OK(c.initComm(&comm));
        std::vector<float> a(64, 1.0f), b(64, 0.0f);
        const auto FP32 = HCCL_DATA_TYPE_FP32;
        EXPECT_RC(HcclAllReduce(nullptr, b.data(), 4, FP32, HCCL_REDUCE_SUM,
                                comm, nullptr),
                  HCCL_E_PTR, "sendBuf is NULL");
        EXPECT_RC(HcclAllReduce(a.data(), b.data(), 4,
                                static_cast<HcclDataType>(99), HCCL_REDUCE_SUM,
                                comm, nullptr),
                  HCCL_E_PARA, "unknown data type 99");
        EXPECT_RC(HcclAllReduce(a.data(), b.data(), 4, HCCL_DATA_TYPE_INT128,
                                HCCL_REDUCE_SUM, comm, nullptr),
                  HCCL_E_NOT_SUPPORT, "not supported");
        EXPECT_RC(HcclAllReduce(a.data(), b.data(), 4, FP32,
                                static_cast<HcclReduceOp>(7), comm, nullptr),
                  HCCL_E_PARA, "unknown reduction operator 7");
        EXPECT_RC(HcclAllReduce(a.data(), b.data(), uint64_t(1) << 62, FP32,
                                HCCL_REDUCE_SUM, comm, nullptr),
                  HCCL_E_PARA, "overflows");
        EXPECT_RC(HcclAllReduce(a.data(), a.data() + 1, 8, FP32,
                                HCCL_REDUCE_SUM, comm, nullptr),
                  HCCL_E_PARA, "overlap");
        EXPECT_RC(HcclBroadcast(a.data(), 4, FP32, 1, comm, nullptr),
                  HCCL_E_PARA, "root 1 is outside 0..0");
        EXPECT_RC(HcclReduce(a.data(), b.data(), 4, FP32, HCCL_REDUCE_SUM, 5,
                             comm, nullptr),
                  HCCL_E_PARA, "root 5");
        EXPECT_RC(HcclSend(a.data(), 4, FP32, 0, comm, nullptr), HCCL_E_PARA,
                  "this rank itself");
        EXPECT_RC(HcclRecv(a.data(), 4, FP32, 3, comm, nullptr), HCCL_E_PARA,
                  "srcRank 3 is outside");
        EXPECT_RC(
            HcclAlltoAll(a.data(), 4, FP32, b.data(), 8, FP32, comm, nullptr),
            HCCL_E_PARA, "differs from recvCount");
        EXPECT_RC(HcclAlltoAll(a.data(), 4, FP32, b.data(), 4,
                               HCCL_DATA_TYPE_INT32, comm, nullptr),
                  HCCL_E_PARA, "differ");
        uint64_t cnt[1] = {4}, disp[1] = {0};
        EXPECT_RC(HcclAlltoAllV(a.data(), nullptr, disp, FP32, b.data(), cnt,
                                disp, FP32, comm, nullptr),
                  HCCL_E_PTR, "sendCounts is NULL");
        uint64_t huge[1] = {uint64_t(1) << 61};
        EXPECT_RC(HcclAlltoAllV(a.data(), cnt, huge, FP32, b.data(), cnt, disp,
                                FP32, comm, nullptr),
                  HCCL_E_PARA, "sdispls[0]");
        EXPECT_RC(HcclAllGather(a.data(), b.data(), 4, FP32, comm,
                                reinterpret_cast<void *>(a.data())),
                  HCCL_E_PARA, "not a live host stream");
        // Count 0 needs no buffers at all.
        RT_OK(HcclAllReduce(nullptr, nullptr, 0, FP32, HCCL_REDUCE_SUM, comm,
                            nullptr));
        // The communicator is still healthy after rejected calls.
        RT_OK(HcclAllReduce(a.data(), b.data(), 64, FP32, HCCL_REDUCE_SUM, comm,
                            nullptr));
        RT_CHECK(b[0] == 1.0f, "p=1 all-reduce copies");
        HcclResult async;
        RT_OK(HcclGetCommAsyncError(comm, &async));
        RT_CHECK(async == HCCL_SUCCESS, HcclGetErrorString(async));
        RT_OK(HcclCommDestroy(comm));
        return "";
      }),
      "");
}

TEST(Api, MemoryAndRegistration) {
  EXPECT_EQ(
      inOneRank([](RankCtx &c) -> std::string {
        void *p = nullptr;
        EXPECT_RC(HcclMemAlloc(&p, 0), HCCL_E_PARA, "size 0");
        EXPECT_RC(HcclMemAlloc(nullptr, 16), HCCL_E_PTR, "ptr is NULL");
        RT_OK(HcclMemAlloc(&p, 1 << 20));
        RT_CHECK(reinterpret_cast<uintptr_t>(p) % 4096 == 0, "page aligned");
        RT_CHECK(static_cast<char *>(p)[12345] == 0, "zeroed");
        std::memset(p, 7, 1 << 20); // writable in full
        HcclComm comm;
        RT_OK(c.initComm(&comm));
        void *h = nullptr;
        RT_OK(HcclCommRegister(comm, p, 1 << 20, &h, HCCL_REGISTER_DEFAULT));
        EXPECT_RC(HcclCommRegister(comm, p, 1 << 20, &h, 9), HCCL_E_PARA,
                  "flag 9");
        EXPECT_RC(HcclCommRegister(comm, p, 0, &h, 0), HCCL_E_PARA,
                  "size is 0");
        RT_OK(HcclCommDeregister(comm, h));
        EXPECT_RC(HcclCommDeregister(comm, h), HCCL_E_PARA, "unknown handle");
        RT_OK(HcclCommDestroy(comm));
        RT_OK(HcclMemFree(p));
        EXPECT_RC(HcclMemFree(p), HCCL_E_PARA, "HcclMemAlloc");
        RT_OK(HcclMemFree(nullptr));
        return "";
      }),
      "");
}
