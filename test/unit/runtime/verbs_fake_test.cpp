//===- verbs_fake_test.cpp - The fake libibverbs at the verbs level -------===//
//
// The fake must behave like rdma-core plus an RC adapter for the transport's
// tests to mean anything. These tests drive it through the runtime's own
// dlopen table (IbvApi) the way an application drives libibverbs: device
// list and GID table, the QP state machine (illegal transitions and masks
// are rejected), memory-region checks, RDMA WRITE / WRITE_WITH_IMM /
// SEND-RECV between two processes, completion channels, remote access and
// local protection errors, the RC retry timer, and the injected faults. The
// status strings are compared with the real libibverbs when it is
// installed.
//
//===----------------------------------------------------------------------===//
#include "rt_harness.h"
#include "transport/verbs/IbvApi.h"

#include <arpa/inet.h>
#include <cstring>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>

using hccl::rt::verbs::IbvApi;
using namespace rtest;

namespace {

const IbvApi *fakeApi() {
  static auto a = IbvApi::load(HCCL_FAKEVERBS_LIB);
  return a ? *a : nullptr;
}

/// Each test runs with its own fabric directory, removed afterwards.
class FakeVerbs : public testing::Test {
protected:
  void SetUp() override {
    ASSERT_NE(fakeApi(), nullptr) << "cannot load " << HCCL_FAKEVERBS_LIB;
    fabric_ = "fvt" + std::to_string(getpid()) + "-" +
              testing::UnitTest::GetInstance()->current_test_info()->name();
    setenv("FAKEVERBS_FABRIC", fabric_.c_str(), 1);
    unsetenv("FAKEVERBS_FAULT");
    unsetenv("FAKEVERBS_DEVICES");
    unsetenv("FAKEVERBS_GID_TABLE");
  }
  void TearDown() override {
    unsetenv("FAKEVERBS_FABRIC");
    ::shm_unlink(("/hccl-fakeverbs-" + fabric_).c_str());
  }
  std::string fabric_;
};

/// One side of an RC connection.
struct Side {
  const IbvApi *A = fakeApi();
  ibv_context *ctx = nullptr;
  ibv_pd *pd = nullptr;
  ibv_comp_channel *ch = nullptr;
  ibv_cq *scq = nullptr, *rcq = nullptr;
  ibv_qp *qp = nullptr;
  char *buf = nullptr;
  size_t bytes = 0;
  ibv_mr *mr = nullptr;
  ibv_gid gid{};
  uint32_t psn = 0;

  std::string open(size_t n = 1 << 20, int access = IBV_ACCESS_LOCAL_WRITE |
                                                    IBV_ACCESS_REMOTE_WRITE) {
    int num = 0;
    ibv_device **list = A->getDeviceList(&num);
    if (!list || num < 1)
      return "no fake device";
    ctx = A->openDevice(list[0]);
    A->freeDeviceList(list);
    if (!ctx)
      return "open failed";
    pd = A->allocPd(ctx);
    ch = A->createCompChannel(ctx);
    scq = A->createCq(ctx, 64, nullptr, ch, 0);
    rcq = A->createCq(ctx, 64, nullptr, ch, 0);
    ibv_qp_init_attr ia{};
    ia.send_cq = scq;
    ia.recv_cq = rcq;
    ia.cap.max_send_wr = 32;
    ia.cap.max_recv_wr = 32;
    ia.cap.max_send_sge = 2;
    ia.cap.max_recv_sge = 1;
    ia.qp_type = IBV_QPT_RC;
    qp = A->createQp(pd, &ia);
    if (!pd || !ch || !scq || !rcq || !qp)
      return "resource creation failed";
    bytes = n;
    buf = static_cast<char *>(mmap(nullptr, n, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mr = A->regMr(pd, buf, n, access);
    if (!mr)
      return "reg_mr failed";
    if (A->queryGid(ctx, 1, 3, &gid) != 0)
      return "query_gid failed";
    psn = static_cast<uint32_t>(getpid() * 7919) & 0xffffff;
    return "";
  }
  int toInit(int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = access;
    return A->modifyQp(qp, &a,
                       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                           IBV_QP_ACCESS_FLAGS);
  }
  int toRtr(uint32_t dqpn, uint32_t dpsn, const ibv_gid &dgid) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dqpn;
    a.rq_psn = dpsn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.sgid_index = 3;
    a.ah_attr.grh.dgid = dgid;
    a.ah_attr.grh.hop_limit = 64;
    return A->modifyQp(qp, &a,
                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                           IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  }
  int toRts(uint8_t timeout = 14, uint8_t retry = 7) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = psn;
    a.timeout = timeout;
    a.retry_cnt = retry;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    return A->modifyQp(qp, &a,
                       IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
                           IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                           IBV_QP_MAX_QP_RD_ATOMIC);
  }
  int postRecv(uint64_t id, size_t off, uint32_t len) {
    ibv_sge s{reinterpret_cast<uintptr_t>(buf + off), len, mr->lkey};
    ibv_recv_wr w{};
    w.wr_id = id;
    w.sg_list = &s;
    w.num_sge = 1;
    ibv_recv_wr *bad;
    return ibv_post_recv(qp, &w, &bad);
  }
  int post(ibv_wr_opcode op, uint64_t id, size_t off, uint32_t len,
           uint64_t raddr, uint32_t rkey, uint32_t imm = 0, uint32_t lkey = 0) {
    ibv_sge s{reinterpret_cast<uintptr_t>(buf + off), len,
              lkey ? lkey : mr->lkey};
    ibv_send_wr w{};
    w.wr_id = id;
    w.sg_list = &s;
    w.num_sge = 1;
    w.opcode = op;
    w.send_flags = IBV_SEND_SIGNALED;
    w.imm_data = htonl(imm);
    w.wr.rdma.remote_addr = raddr;
    w.wr.rdma.rkey = rkey;
    ibv_send_wr *bad;
    return ibv_post_send(qp, &w, &bad);
  }
  /// Waits (sleeping) up to `ms` for one completion.
  bool poll(ibv_cq *cq, ibv_wc &wc, int ms = 5000) {
    for (int i = 0; i < ms; ++i) {
      if (ibv_poll_cq(cq, 1, &wc) == 1)
        return true;
      usleep(1000);
    }
    return false;
  }
  ibv_qp_state state() {
    ibv_qp_attr a{};
    ibv_qp_init_attr ia{};
    int rc = ibv_query_qp_fn(a, ia);
    return rc == 0 ? a.qp_state : IBV_QPS_UNKNOWN;
  }
  int ibv_query_qp_fn(ibv_qp_attr &a, ibv_qp_init_attr &ia) {
    using Fn = int (*)(ibv_qp *, ibv_qp_attr *, int, ibv_qp_init_attr *);
    static Fn f = reinterpret_cast<Fn>(dlsym(
        dlopen(HCCL_FAKEVERBS_LIB, RTLD_NOW | RTLD_LOCAL), "ibv_query_qp"));
    return f(qp, &a, IBV_QP_STATE, &ia);
  }
};

/// Publishes what the peer needs (values slots base..base+5).
void publish(RankCtx &c, const Side &s, int base = 0) {
  uint64_t g[2];
  std::memcpy(g, s.gid.raw, 16);
  c.publish(base + 1, s.psn);
  c.publish(base + 2, reinterpret_cast<uintptr_t>(s.buf));
  c.publish(base + 3, s.mr->rkey);
  c.publish(base + 4, g[0]);
  c.publish(base + 5, g[1]);
  c.publish(base + 0, s.qp->qp_num); // last: the "ready" flag
}

struct PeerInfo {
  uint32_t qpn, psn, rkey;
  uint64_t addr;
  ibv_gid gid;
};

PeerInfo peerOf(RankCtx &c, int peer, int base = 0) {
  while (c.peek(peer, base + 0) == 0)
    usleep(1000);
  PeerInfo p;
  p.qpn = static_cast<uint32_t>(c.peek(peer, base + 0));
  p.psn = static_cast<uint32_t>(c.peek(peer, base + 1));
  p.addr = c.peek(peer, base + 2);
  p.rkey = static_cast<uint32_t>(c.peek(peer, base + 3));
  uint64_t g[2] = {c.peek(peer, base + 4), c.peek(peer, base + 5)};
  std::memcpy(p.gid.raw, g, 16);
  return p;
}

/// Both ranks: open, connect to the other (rank 0 <-> 1), RTS.
std::string connectBoth(RankCtx &c, Side &s, uint8_t timeout = 14,
                        uint8_t retry = 7) {
  std::string e = s.open();
  if (!e.empty())
    return e;
  if (s.toInit() != 0)
    return "INIT failed";
  publish(c, s);
  PeerInfo p = peerOf(c, 1 - c.rank);
  if (s.toRtr(p.qpn, p.psn, p.gid) != 0)
    return "RTR failed";
  if (s.toRts(timeout, retry) != 0)
    return "RTS failed";
  c.sync(0);
  return "";
}

RunOptions opts() {
  RunOptions o;
  o.timeoutSec = 60;
  return o;
}

} // namespace

TEST_F(FakeVerbs, DeviceListAndGidTable) {
  const IbvApi *A = fakeApi();
  setenv("FAKEVERBS_DEVICES", "roceA,roceB", 1);
  int n = 0;
  ibv_device **list = A->getDeviceList(&n);
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(n, 2);
  EXPECT_STREQ(A->getDeviceName(list[0]), "roceA");
  EXPECT_STREQ(A->getDeviceName(list[1]), "roceB");
  ibv_context *ctx = A->openDevice(list[1]);
  A->freeDeviceList(list);
  ASSERT_NE(ctx, nullptr);
  ibv_port_attr pa;
  std::memset(&pa, 0, sizeof(pa));
  ASSERT_EQ(
      A->queryPort(ctx, 1, reinterpret_cast<_compat_ibv_port_attr *>(&pa)), 0);
  EXPECT_EQ(pa.state, IBV_PORT_ACTIVE);
  EXPECT_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
  ASSERT_EQ(pa.gid_tbl_len, 4);
  EXPECT_NE(
      A->queryPort(ctx, 2, reinterpret_cast<_compat_ibv_port_attr *>(&pa)), 0);
  ASSERT_NE(A->queryGidEx, nullptr);
  const uint32_t types[4] = {IBV_GID_TYPE_ROCE_V1, IBV_GID_TYPE_ROCE_V2,
                             IBV_GID_TYPE_ROCE_V1, IBV_GID_TYPE_ROCE_V2};
  for (uint32_t i = 0; i < 4; ++i) {
    ibv_gid_entry e{};
    ASSERT_EQ(A->queryGidEx(ctx, 1, i, &e, 0, sizeof(e)), 0);
    EXPECT_EQ(e.gid_type, types[i]) << i;
    bool v4 =
        e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff && e.gid.raw[12] == 10;
    EXPECT_EQ(v4, i >= 2) << i;
  }
  EXPECT_EQ(A->closeDevice(ctx), 0);

  setenv("FAKEVERBS_DEVICES", "none", 1);
  list = A->getDeviceList(&n);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(n, 0);
  A->freeDeviceList(list);

  setenv("FAKEVERBS_DEVICES", "bad name", 1);
  errno = 0;
  EXPECT_EQ(A->getDeviceList(&n), nullptr);
  EXPECT_EQ(errno, EINVAL);
}

TEST_F(FakeVerbs, CustomGidTableHasEmptyEntries) {
  const IbvApi *A = fakeApi();
  setenv("FAKEVERBS_GID_TABLE", "v1/host6;empty;v2/fe80::99;v2/host4", 1);
  int n = 0;
  ibv_device **list = A->getDeviceList(&n);
  ASSERT_EQ(n, 1);
  ibv_context *ctx = A->openDevice(list[0]);
  A->freeDeviceList(list);
  ibv_gid_entry e{};
  EXPECT_EQ(A->queryGidEx(ctx, 1, 1, &e, 0, sizeof(e)), ENODATA);
  ASSERT_EQ(A->queryGidEx(ctx, 1, 2, &e, 0, sizeof(e)), 0);
  EXPECT_EQ(e.gid.raw[15], 0x99);
  EXPECT_EQ(e.gid_type, static_cast<uint32_t>(IBV_GID_TYPE_ROCE_V2));
  ASSERT_EQ(A->queryGidEx(ctx, 1, 3, &e, 0, sizeof(e)), 0);
  EXPECT_EQ(e.gid.raw[12], 10);
  EXPECT_EQ(A->closeDevice(ctx), 0);
  setenv("FAKEVERBS_GID_TABLE", "v3/host4", 1);
  EXPECT_EQ(A->getDeviceList(&n), nullptr);
}

TEST_F(FakeVerbs, QueuePairStateMachineIsEnforced) {
  Side s;
  ASSERT_EQ(s.open(), "");
  ibv_gid other = s.gid;
  other.raw[15] ^= 1;
  // RESET -> RTR skips INIT.
  EXPECT_EQ(s.toRtr(0x200, 1, other), EINVAL);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = 1;
  // Missing the access flags; an attribute INIT does not take (timeout).
  EXPECT_EQ(
      s.A->modifyQp(s.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT),
      EINVAL);
  EXPECT_EQ(s.A->modifyQp(s.qp, &a,
                          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                              IBV_QP_ACCESS_FLAGS | IBV_QP_TIMEOUT),
            EINVAL);
  a.port_num = 2;
  EXPECT_EQ(s.A->modifyQp(s.qp, &a,
                          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                              IBV_QP_ACCESS_FLAGS),
            EINVAL);
  // Posting in RESET / INIT.
  EXPECT_EQ(s.postRecv(1, 0, 64), EINVAL);
  ASSERT_EQ(s.toInit(), 0);
  EXPECT_EQ(s.state(), IBV_QPS_INIT);
  EXPECT_EQ(s.post(IBV_WR_RDMA_WRITE, 1, 0, 64, 0, 0), EINVAL);
  // INIT -> RTS skips RTR.
  EXPECT_EQ(s.toRts(), EINVAL);
  // RTR without a GRH (RoCE needs one), with a source GID index past the
  // table.
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_1024;
  a.dest_qp_num = 0x200;
  a.ah_attr.port_num = 1;
  int rtrMask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                IBV_QP_MIN_RNR_TIMER;
  EXPECT_EQ(s.A->modifyQp(s.qp, &a, rtrMask), EINVAL);
  a.ah_attr.is_global = 1;
  a.ah_attr.grh.dgid = other;
  a.ah_attr.grh.sgid_index = 9;
  EXPECT_EQ(s.A->modifyQp(s.qp, &a, rtrMask), EINVAL);
  a.ah_attr.grh.sgid_index = 3;
  EXPECT_EQ(s.A->modifyQp(s.qp, &a, rtrMask & ~IBV_QP_RQ_PSN), EINVAL);
  EXPECT_EQ(s.A->modifyQp(s.qp, &a, rtrMask), 0);
  EXPECT_EQ(s.state(), IBV_QPS_RTR);
  EXPECT_EQ(s.post(IBV_WR_SEND, 1, 0, 64, 0, 0), EINVAL);
  // RTS: retry_cnt is 3 bits.
  EXPECT_EQ(s.toRts(14, 9), EINVAL);
  EXPECT_EQ(s.toRts(14, 7), 0);
  EXPECT_EQ(s.state(), IBV_QPS_RTS);
  // Any state -> ERR; ERR -> RTS is not a transition; ERR -> RESET is.
  a = ibv_qp_attr{};
  a.qp_state = IBV_QPS_ERR;
  EXPECT_EQ(s.A->modifyQp(s.qp, &a, IBV_QP_STATE), 0);
  EXPECT_EQ(s.toRts(), EINVAL);
  // A request posted in the error state completes at once, flushed.
  EXPECT_EQ(s.post(IBV_WR_SEND, 77, 0, 64, 0, 0), 0);
  ibv_wc wc{};
  ASSERT_TRUE(s.poll(s.scq, wc));
  EXPECT_EQ(wc.wr_id, 77u);
  EXPECT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
  a.qp_state = IBV_QPS_RESET;
  EXPECT_EQ(s.A->modifyQp(s.qp, &a, IBV_QP_STATE), 0);
  EXPECT_EQ(s.state(), IBV_QPS_RESET);
}

TEST_F(FakeVerbs, MemoryRegistrationChecks) {
  Side s;
  ASSERT_EQ(s.open(), "");
  // Remote write needs local write, as in the kernel.
  errno = 0;
  EXPECT_EQ(s.A->regMr(s.pd, s.buf, 4096, IBV_ACCESS_REMOTE_WRITE), nullptr);
  EXPECT_EQ(errno, EINVAL);
  // Memory that is not mapped cannot be pinned.
  void *hole =
      mmap(nullptr, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(hole, 8192);
  errno = 0;
  EXPECT_EQ(s.A->regMr(s.pd, hole, 8192, IBV_ACCESS_LOCAL_WRITE), nullptr);
  EXPECT_EQ(errno, EFAULT);
  ibv_mr *m = s.A->regMr(s.pd, s.buf + 100, 5000, IBV_ACCESS_LOCAL_WRITE);
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->lkey, s.mr->lkey);
  EXPECT_EQ(m->addr, s.buf + 100);
  EXPECT_EQ(s.A->deregMr(m), 0);
  // The PD is busy while MRs and QPs use it.
  EXPECT_EQ(s.A->deallocPd(s.pd), EBUSY);
}

TEST_F(FakeVerbs, WriteWriteImmAndSendBetweenProcesses) {
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = connectBoth(c, s);
    if (!e.empty())
      return e;
    PeerInfo p = peerOf(c, 1 - c.rank);
    if (c.rank == 1) {
      // Receives for the WRITE_WITH_IMM and the SEND.
      RT_CHECK(s.postRecv(100, 0, 0) == 0, "post_recv");
      RT_CHECK(s.postRecv(101, 512 * 1024, 4096) == 0, "post_recv");
      c.sync(1);
      ibv_wc wc{};
      RT_CHECK(s.poll(s.rcq, wc), "no WRITE_WITH_IMM completion");
      RT_CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 100,
               "bad completion");
      RT_CHECK(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM, "opcode");
      RT_CHECK((wc.wc_flags & IBV_WC_WITH_IMM) &&
                   ntohl(wc.imm_data) == 0xabc123,
               "imm");
      RT_CHECK(wc.byte_len == 300000,
               "byte_len " + std::to_string(wc.byte_len));
      // The plain WRITE (before it, same QP) landed too, without a completion.
      for (int i = 0; i < 300000; ++i)
        RT_CHECK(s.buf[4096 + i] == static_cast<char>(i * 7 + 1),
                 "write-imm data");
      for (int i = 0; i < 1000; ++i)
        RT_CHECK(s.buf[400000 + i] == static_cast<char>(i * 3),
                 "plain write data");
      RT_CHECK(s.poll(s.rcq, wc), "no SEND completion");
      RT_CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 101 &&
                   wc.opcode == IBV_WC_RECV && wc.byte_len == 11,
               "send completion");
      RT_CHECK(std::memcmp(s.buf + 512 * 1024, "hello verbs", 11) == 0,
               "send data");
      RT_CHECK(ibv_poll_cq(s.rcq, 1, &wc) == 0, "an extra completion");
    } else {
      for (int i = 0; i < 1000; ++i)
        s.buf[i] = static_cast<char>(i * 3);
      for (int i = 0; i < 300000; ++i)
        s.buf[8192 + i] = static_cast<char>(i * 7 + 1);
      std::memcpy(s.buf + 600000, "hello verbs", 11);
      c.sync(1);
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 1, 0, 1000, p.addr + 400000, p.rkey) ==
                   0,
               "post");
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, 8192, 300000,
                      p.addr + 4096, p.rkey, 0xabc123) == 0,
               "post");
      RT_CHECK(s.post(IBV_WR_SEND, 3, 600000, 11, 0, 0) == 0, "post");
      for (uint64_t id = 1; id <= 3; ++id) {
        ibv_wc wc{};
        RT_CHECK(s.poll(s.scq, wc), "no send completion");
        RT_CHECK(wc.wr_id == id && wc.status == IBV_WC_SUCCESS,
                 "send completion order");
        RT_CHECK(wc.opcode == (id == 3 ? IBV_WC_SEND : IBV_WC_RDMA_WRITE),
                 "opcode");
      }
    }
    c.sync(2);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, CompletionChannelSignalsArmedQueues) {
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = connectBoth(c, s);
    if (!e.empty())
      return e;
    PeerInfo p = peerOf(c, 1 - c.rank);
    if (c.rank == 1) {
      RT_CHECK(ibv_req_notify_cq(s.rcq, 0) == 0, "req_notify");
      RT_CHECK(s.postRecv(5, 0, 0) == 0, "post_recv");
      c.sync(1);
      pollfd pf{s.ch->fd, POLLIN, 0};
      RT_CHECK(::poll(&pf, 1, 5000) == 1, "no completion event");
      ibv_cq *cq = nullptr;
      void *cctx = nullptr;
      RT_CHECK(s.A->getCqEvent(s.ch, &cq, &cctx) == 0 && cq == s.rcq,
               "get_cq_event");
      s.A->ackCqEvents(cq, 1);
      ibv_wc wc{};
      RT_CHECK(ibv_poll_cq(s.rcq, 1, &wc) == 1 && wc.wr_id == 5,
               "completion after event");
      // Not re-armed: the next completion raises no event.
      RT_CHECK(s.postRecv(6, 0, 0) == 0, "post_recv");
      c.sync(2);
      RT_CHECK(s.poll(s.rcq, wc), "second completion");
      RT_CHECK(::poll(&pf, 1, 0) == 0, "event without arming");
    } else {
      c.sync(1);
      RT_CHECK(
          s.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, 0, 64, p.addr, p.rkey, 1) == 0,
          "post");
      c.sync(2);
      RT_CHECK(
          s.post(IBV_WR_RDMA_WRITE_WITH_IMM, 2, 0, 64, p.addr, p.rkey, 2) == 0,
          "post");
    }
    c.sync(3);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, BadRkeyAndOutOfBoundsWritesAreRemoteAccessErrors) {
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = connectBoth(c, s);
    if (!e.empty())
      return e;
    PeerInfo p = peerOf(c, 1 - c.rank);
    if (c.rank == 0) {
      // Past the end of the peer's 1 MiB region.
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 9, 0, 4096, p.addr + (1 << 20) - 100,
                      p.rkey) == 0,
               "post");
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 10, 0, 64, p.addr, p.rkey) == 0,
               "post");
      ibv_wc wc{};
      RT_CHECK(s.poll(s.scq, wc), "no completion");
      RT_CHECK(wc.wr_id == 9 && wc.status == IBV_WC_REM_ACCESS_ERR,
               std::string("got ") + s.A->wcStatusStr(wc.status));
      RT_CHECK(s.poll(s.scq, wc) && wc.wr_id == 10 &&
                   wc.status == IBV_WC_WR_FLUSH_ERR,
               "later request not flushed");
      RT_CHECK(s.state() == IBV_QPS_ERR, "requester QP not in error");
    } else {
      // The responder's QP fails too, with an async access error.
      pollfd pf{s.ctx->async_fd, POLLIN, 0};
      RT_CHECK(::poll(&pf, 1, 5000) == 1, "no async event");
      ibv_async_event ev{};
      RT_CHECK(s.A->getAsyncEvent(s.ctx, &ev) == 0, "get_async_event");
      RT_CHECK(ev.event_type == IBV_EVENT_QP_ACCESS_ERR &&
                   ev.element.qp == s.qp,
               s.A->eventTypeStr(ev.event_type));
      s.A->ackAsyncEvent(&ev);
      RT_CHECK(s.state() == IBV_QPS_ERR, "responder QP not in error");
    }
    c.sync(1);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, RkeyOfARegionWithoutRemoteWriteIsRejected) {
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = s.open(1 << 20, IBV_ACCESS_LOCAL_WRITE); // no remote write
    if (!e.empty())
      return e;
    RT_CHECK(s.toInit() == 0, "init");
    publish(c, s);
    PeerInfo p = peerOf(c, 1 - c.rank);
    RT_CHECK(s.toRtr(p.qpn, p.psn, p.gid) == 0 && s.toRts() == 0, "connect");
    c.sync(0);
    if (c.rank == 0) {
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 1, 0, 64, p.addr, p.rkey) == 0,
               "post");
      ibv_wc wc{};
      RT_CHECK(s.poll(s.scq, wc) && wc.status == IBV_WC_REM_ACCESS_ERR,
               "not rejected");
    }
    c.sync(1);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, LocalKeyOutsideItsRegionIsAProtectionError) {
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = connectBoth(c, s);
    if (!e.empty())
      return e;
    PeerInfo p = peerOf(c, 1 - c.rank);
    if (c.rank == 0) {
      ibv_mr *small = s.A->regMr(s.pd, s.buf, 4096, IBV_ACCESS_LOCAL_WRITE);
      RT_CHECK(small != nullptr, "reg_mr");
      // 8 KiB from a 4 KiB region.
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 1, 0, 8192, p.addr, p.rkey, 0,
                      small->lkey) == 0,
               "post");
      ibv_wc wc{};
      RT_CHECK(s.poll(s.scq, wc) && wc.status == IBV_WC_LOC_PROT_ERR,
               std::string("got ") + s.A->wcStatusStr(wc.status));
    }
    c.sync(1);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, SilentPeerExhaustsTheRetryTimer) {
  // Rank 1 never leaves INIT: rank 0's requests are dropped, unanswered.
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = s.open();
    if (!e.empty())
      return e;
    RT_CHECK(s.toInit() == 0, "init");
    publish(c, s);
    PeerInfo p = peerOf(c, 1 - c.rank);
    if (c.rank == 0) {
      RT_CHECK(s.toRtr(p.qpn, p.psn, p.gid) == 0, "rtr");
      RT_CHECK(s.toRts(/*timeout=*/10, /*retry=*/2) == 0, "rts"); // 4 ms x 3
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 1, 0, 64, p.addr, p.rkey) == 0,
               "post");
      ibv_wc wc{};
      RT_CHECK(s.poll(s.scq, wc) && wc.status == IBV_WC_RETRY_EXC_ERR,
               std::string("got ") + s.A->wcStatusStr(wc.status));
    }
    c.sync(1);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, MismatchedPsnIsNeverAccepted) {
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = s.open();
    if (!e.empty())
      return e;
    RT_CHECK(s.toInit() == 0, "init");
    publish(c, s);
    PeerInfo p = peerOf(c, 1 - c.rank);
    // Rank 1 expects a different first PSN than rank 0 starts with.
    RT_CHECK(s.toRtr(p.qpn, c.rank == 1 ? p.psn + 5 : p.psn, p.gid) == 0,
             "rtr");
    RT_CHECK(s.toRts(10, 1) == 0, "rts");
    c.sync(0);
    if (c.rank == 0) {
      RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 1, 0, 64, p.addr, p.rkey) == 0,
               "post");
      ibv_wc wc{};
      RT_CHECK(s.poll(s.scq, wc) && wc.status == IBV_WC_RETRY_EXC_ERR,
               std::string("got ") + s.A->wcStatusStr(wc.status));
    }
    c.sync(1);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, WriteWithImmWaitsForAReceive) {
  auto body = [](RankCtx &c) -> std::string {
    Side s;
    std::string e = connectBoth(c, s, /*timeout=*/10, /*retry=*/1);
    if (!e.empty())
      return e;
    PeerInfo p = peerOf(c, 1 - c.rank);
    ibv_wc wc{};
    if (c.rank == 0) {
      RT_CHECK(
          s.post(IBV_WR_RDMA_WRITE_WITH_IMM, 1, 0, 64, p.addr, p.rkey, 7) == 0,
          "post");
      c.sync(1);
      // Receiver-not-ready keeps the request alive past the retry window.
      RT_CHECK(s.poll(s.scq, wc) && wc.status == IBV_WC_SUCCESS,
               std::string("got ") + s.A->wcStatusStr(wc.status));
    } else {
      c.sync(1);
      usleep(100 * 1000); // 100 ms without a receive: several retry windows
      RT_CHECK(ibv_poll_cq(s.rcq, 1, &wc) == 0, "completed without a receive");
      RT_CHECK(s.postRecv(1, 0, 0) == 0, "post_recv");
      RT_CHECK(s.poll(s.rcq, wc) && ntohl(wc.imm_data) == 7,
               "no completion after posting");
    }
    c.sync(2);
    return "";
  };
  EXPECT_EQ(runRanks(2, body, opts()), "");
}

TEST_F(FakeVerbs, InjectedFaults) {
  struct Case {
    const char *fault;
    ibv_wc_status first;
    // ibv_event_type on the faulting side, or -1 (an int: -1 is no value of
    // the enum, and loading it as one is undefined; UBSan's enum check).
    int event;
  };
  const Case cases[] = {
      {"cqe_error:after=2", IBV_WC_GENERAL_ERR, -1},
      {"qp_error:after=2", IBV_WC_WR_FLUSH_ERR, IBV_EVENT_QP_FATAL},
      {"stall:after=2", IBV_WC_RETRY_EXC_ERR, -1},
      {"port_error:after=2", IBV_WC_WR_FLUSH_ERR, IBV_EVENT_PORT_ERR},
      {"rem_access:after=2", IBV_WC_REM_ACCESS_ERR, -1},
  };
  for (const Case &k : cases) {
    SCOPED_TRACE(k.fault);
    static const Case *cur;
    cur = &k;
    auto body = [](RankCtx &c) -> std::string {
      // Rank 0 injects (stall: rank 1 stalls, rank 0 sees the timeout).
      bool stall = std::strncmp(cur->fault, "stall", 5) == 0;
      if (c.rank == (stall ? 1 : 0))
        setenv("FAKEVERBS_FAULT", cur->fault, 1);
      Side s;
      // Only the stall needs the retry timer to fire (3 x 16.8 ms); for
      // the injected errors a 1 s window keeps a peer descheduled on a
      // loaded host from expiring it first (3 x 4.2 ms failed 7 in 60).
      std::string e = connectBoth(c, s, stall ? 12 : 18, 2);
      if (!e.empty())
        return e;
      PeerInfo p = peerOf(c, 1 - c.rank);
      ibv_wc wc{};
      if (stall && c.rank == 1) {
        // Two requests go through; the third stops the adapter.
        RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 1, 0, 64, p.addr, p.rkey) == 0,
                 "post");
        RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 2, 0, 64, p.addr, p.rkey) == 0,
                 "post");
        RT_CHECK(s.poll(s.scq, wc) && s.poll(s.scq, wc), "first requests");
        RT_CHECK(s.post(IBV_WR_RDMA_WRITE, 3, 0, 64, p.addr, p.rkey) == 0,
                 "post");
        usleep(50 * 1000);
        c.sync(1);
      } else if (c.rank == 0) {
        if (stall)
          c.sync(1);
        for (uint64_t id = 1; id <= 4; ++id)
          RT_CHECK(s.post(IBV_WR_RDMA_WRITE, id, 0, 64, p.addr, p.rkey) == 0,
                   "post");
        int ok = 0;
        for (;;) {
          RT_CHECK(s.poll(s.scq, wc), "missing completion");
          if (wc.status != IBV_WC_SUCCESS)
            break;
          ++ok;
        }
        // Errors reported by completion keep the earlier successes; a QP
        // or port failing under them may flush requests not yet answered.
        bool flushes = cur->first == IBV_WC_WR_FLUSH_ERR;
        if (!stall)
          RT_CHECK(flushes ? ok <= 2 : ok == 2,
                   "fault after " + std::to_string(ok) + " requests");
        RT_CHECK(wc.status == cur->first,
                 std::string("got ") + s.A->wcStatusStr(wc.status));
        if (cur->event != -1) {
          pollfd pf{s.ctx->async_fd, POLLIN, 0};
          RT_CHECK(::poll(&pf, 1, 5000) == 1, "no async event");
          ibv_async_event ev{};
          RT_CHECK(s.A->getAsyncEvent(s.ctx, &ev) == 0 &&
                       static_cast<int>(ev.event_type) == cur->event,
                   "wrong async event");
          s.A->ackAsyncEvent(&ev);
        }
        RT_CHECK(s.state() == IBV_QPS_ERR, "QP not in the error state");
        if (!stall)
          c.sync(1);
      } else {
        c.sync(1);
      }
      c.sync(2);
      return "";
    };
    EXPECT_EQ(runRanks(2, body, opts()), "");
  }
}

TEST_F(FakeVerbs, StatusStringsMatchRdmaCore) {
  void *real = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!real)
    GTEST_SKIP() << "libibverbs.so.1 is not installed: " << dlerror();
  using WcStr = const char *(*)(ibv_wc_status);
  using EvStr = const char *(*)(ibv_event_type);
  auto wc = reinterpret_cast<WcStr>(dlsym(real, "ibv_wc_status_str"));
  auto ev = reinterpret_cast<EvStr>(dlsym(real, "ibv_event_type_str"));
  ASSERT_TRUE(wc && ev);
  for (int s = IBV_WC_SUCCESS; s <= IBV_WC_TM_RNDV_INCOMPLETE; ++s)
    EXPECT_STREQ(fakeApi()->wcStatusStr(static_cast<ibv_wc_status>(s)),
                 wc(static_cast<ibv_wc_status>(s)))
        << s;
  for (int e = IBV_EVENT_CQ_ERR; e <= IBV_EVENT_WQ_FATAL; ++e)
    EXPECT_STREQ(fakeApi()->eventTypeStr(static_cast<ibv_event_type>(e)),
                 ev(static_cast<ibv_event_type>(e)))
        << e;
}
