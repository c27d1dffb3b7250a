//===- VerbsPair.cpp - Pair over RC queue pairs (RoCE) --------------------===//
#include "transport/verbs/VerbsPair.h"
#include "common/Log.h"
#include "reduce/Copy.h"
#include "transport/verbs/VerbsDevice.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <sys/mman.h>
#include <sys/socket.h>
#include <thread>

namespace hccl::rt::verbs {

namespace {

// Work request ids: kind in the top byte, a sequence number or buffer below.
enum WrKind : uint64_t {
  kWrData = 1,
  kWrCredit = 2,
  kWrBye = 3,
  kWrRecv = 4,
  kWrProbe = 5
};
constexpr uint64_t kWrValueMask = (1ull << 56) - 1;
uint64_t wrId(WrKind k, uint64_t v) {
  return (static_cast<uint64_t>(k) << 56) | v;
}

constexpr uint32_t kAbortMagic = 0x48414254u; // "HABT"
constexpr size_t kMaxAbortText = 4096;
constexpr char kByeMsg[] = "HCCL-BYE";
constexpr int64_t kFlushGraceUs = 5000;
/// A pair waited on without any completion for this long sends a probe.
constexpr int64_t kProbeIdleUs = 50000;

char *mapAnon(size_t bytes) {
  void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char *>(p);
}

uint32_t randomPsn() {
  static std::mt19937 gen(std::random_device{}());
  return static_cast<uint32_t>(gen() & 0xffffff);
}

} // namespace

VerbsPair::VerbsPair(VerbsDevice &dev, int peer, Fd sock)
    : Pair(peer), dev_(dev), sock_(std::move(sock)) {}

std::string VerbsPair::qpName(uint32_t qpNum) const {
  return "queue pair " + std::to_string(qpNum) + " (" + dev_.where() + ")";
}

//===----------------------------------------------------------------------===//
// Set-up
//===----------------------------------------------------------------------===//

Status VerbsPair::connect(const Deadline &dl) {
  const IbvApi &A = dev_.api();
  const std::string to =
      "RoCE connection to rank " + std::to_string(peer()) + ": ";
  auto fail = [&](const std::string &what, int err) {
    return Status(HCCL_E_ROCE_CONNECT, to + what + ": " + std::strerror(err));
  };
  const uint32_t nQps = dev_.qpsPerConnection();
  ringBytes_ = static_cast<size_t>(kSlots) * kSlotBytes;
  ctrlBytes_ = kSlots * 64 +
               static_cast<size_t>(nQps) * kRecvsPerQp * kCtrlMsgBytes + 64;
  creditBytes_ = 4096;
  ring_ = mapAnon(ringBytes_);
  bounce_ = mapAnon(ringBytes_);
  ctrl_ = mapAnon(ctrlBytes_);
  credit_ = mapAnon(creditBytes_);
  if (!ring_ || !bounce_ || !ctrl_ || !credit_)
    return Status(HCCL_E_MEMORY, to + "cannot allocate " +
                                     std::to_string(2 * ringBytes_) +
                                     " bytes of buffers");
  std::memcpy(ctrl_ + ctrlBytes_ - 64, kByeMsg, sizeof(kByeMsg));

  ringMr_ = A.regMr(dev_.pd(), ring_, ringBytes_,
                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (!ringMr_)
    return fail("ibv_reg_mr (receive slots)", errno);
  bounceMr_ = A.regMr(dev_.pd(), bounce_, ringBytes_, 0);
  if (!bounceMr_)
    return fail("ibv_reg_mr (bounce slots)", errno);
  ctrlMr_ = A.regMr(dev_.pd(), ctrl_, ctrlBytes_, IBV_ACCESS_LOCAL_WRITE);
  if (!ctrlMr_)
    return fail("ibv_reg_mr (control)", errno);
  creditMr_ = A.regMr(dev_.pd(), credit_, creditBytes_,
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (!creditMr_)
    return fail("ibv_reg_mr (credits)", errno);

  scq_ = A.createCq(dev_.ctx(), static_cast<int>(nQps * kSendsPerQp), this,
                    dev_.channel(), 0);
  if (!scq_)
    return fail("ibv_create_cq", errno);
  rcq_ = A.createCq(dev_.ctx(), static_cast<int>(nQps * kRecvsPerQp), this,
                    dev_.channel(), 0);
  if (!rcq_)
    return fail("ibv_create_cq", errno);
  if (int rc = ibv_req_notify_cq(scq_, 0))
    return fail("ibv_req_notify_cq", rc);
  if (int rc = ibv_req_notify_cq(rcq_, 0))
    return fail("ibv_req_notify_cq", rc);

  ConnInfo mine;
  mine.device = dev_.where();
  mine.port = dev_.port();
  for (uint32_t q = 0; q < nQps; ++q) {
    ibv_qp_init_attr ia;
    std::memset(&ia, 0, sizeof(ia));
    ia.send_cq = scq_;
    ia.recv_cq = rcq_;
    ia.cap.max_send_wr = kSendsPerQp;
    ia.cap.max_recv_wr = kRecvsPerQp;
    ia.cap.max_send_sge = 2;
    ia.cap.max_recv_sge = 1;
    ia.qp_type = IBV_QPT_RC;
    ibv_qp *qp = A.createQp(dev_.pd(), &ia);
    if (!qp)
      return fail("ibv_create_qp", errno);
    qps_.push_back(qp);
    qpNums_.push_back(qp->qp_num);
    ibv_qp_attr attr;
    int mask = 0;
    initAttrs(dev_.port().port, attr, mask);
    if (int rc = A.modifyQp(qp, &attr, mask))
      return fail("ibv_modify_qp(RESET->INIT) of " + qpName(qp->qp_num), rc);
    for (uint32_t b = 0; b < kRecvsPerQp; ++b)
      HCCL_RT_TRY(postRecvBuffer(q, q * kRecvsPerQp + b));
    mine.qps.push_back(QpEndpoint{qp->qp_num, randomPsn()});
  }
  mine.ringAddr = reinterpret_cast<uintptr_t>(ring_);
  mine.ringKey = ringMr_->rkey;
  mine.creditAddr = reinterpret_cast<uintptr_t>(credit_);
  mine.creditKey = creditMr_->rkey;

  HCCL_RT_TRY(
      sendFrame(sock_.get(), mine.encode(), dl).withContext(to + "sending"));
  auto got = recvFrame(sock_.get(), dl);
  if (!got)
    return Status(
        got.status().code() == HCCL_E_TIMEOUT ? HCCL_E_TIMEOUT
                                              : HCCL_E_ROCE_CONNECT,
        to + "receiving the peer's queue pairs: " + got.status().message());
  auto info = ConnInfo::decode(*got, peer());
  if (!info)
    return info.status();
  peerInfo_ = info.take();
  if (peerInfo_.qps.size() != nQps)
    return errPara(to + "rank " + std::to_string(peer()) +
                   " has HCCL_RDMA_QPS_PER_CONNECTION=" +
                   std::to_string(peerInfo_.qps.size()) +
                   " but this rank has " + std::to_string(nQps) +
                   " (every rank must use the same value)");
  if (peerInfo_.slots != kSlots || peerInfo_.slotBytes != kSlotBytes)
    return Status(HCCL_E_ROCE_CONNECT,
                  to + "rank " + std::to_string(peer()) +
                      " uses a different slot geometry (runtime version?)");
  if (peerInfo_.port.ethernet != dev_.port().ethernet)
    return Status(HCCL_E_ROCE_CONNECT, to + "link layers differ (" +
                                           dev_.where() + " vs " +
                                           peerInfo_.device + ")");
  for (uint32_t q = 0; q < nQps; ++q) {
    ibv_qp_attr attr;
    int mask = 0;
    rtrAttrs(dev_.settings(), dev_.port(), peerInfo_.port, peerInfo_.qps[q],
             attr, mask);
    if (int rc = A.modifyQp(qps_[q], &attr, mask))
      return fail("ibv_modify_qp(INIT->RTR) of " + qpName(qpNums_[q]) +
                      " towards GID " + gidString(peerInfo_.port.gid) +
                      " qpn " + std::to_string(peerInfo_.qps[q].qpn),
                  rc);
    rtsAttrs(dev_.settings(), mine.qps[q], attr, mask);
    if (int rc = A.modifyQp(qps_[q], &attr, mask))
      return fail("ibv_modify_qp(RTR->RTS) of " + qpName(qpNums_[q]), rc);
  }
  // Nobody writes before both sides are ready to receive (a request to a
  // QP that is not in RTR yet is dropped and would end in a retry error).
  HCCL_RT_TRY(sendFrame(sock_.get(), "ready", dl).withContext(to + "ready"));
  auto ready = recvFrame(sock_.get(), dl);
  if (!ready || *ready != "ready")
    return Status(
        HCCL_E_ROCE_CONNECT,
        to + "the peer did not become ready" +
            (ready ? std::string() : ": " + ready.status().message()));
  HCCL_RT_TRY(setNonBlocking(sock_.get()));
  inflight_.assign(kSlots, Inflight{});
  arrived_.assign(kSlots, Arrival{});
  HCCL_LOG(Debug, "verbs: rank " + std::to_string(dev_.rank()) + " <-> rank " +
                      std::to_string(peer()) + " over " + std::to_string(nQps) +
                      " queue pair(s) on " + dev_.where() + " (peer " +
                      peerInfo_.device + ")");
  return Status::ok();
}

Status VerbsPair::postRecvBuffer(uint32_t qpIndex, uint32_t buf) {
  char *base = ctrl_ + kSlots * 64 + static_cast<size_t>(buf) * kCtrlMsgBytes;
  ibv_sge sge;
  sge.addr = reinterpret_cast<uintptr_t>(base);
  sge.length = kCtrlMsgBytes;
  sge.lkey = ctrlMr_->lkey;
  ibv_recv_wr wr;
  std::memset(&wr, 0, sizeof(wr));
  wr.wr_id = wrId(kWrRecv, buf);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr *bad = nullptr;
  if (int rc = ibv_post_recv(qps_[qpIndex], &wr, &bad))
    return Status(HCCL_E_ROCE_TRANSFER,
                  "ibv_post_recv on " + qpName(qpNums_[qpIndex]) + " to rank " +
                      std::to_string(peer()) + ": " + std::strerror(rc));
  return Status::ok();
}

VerbsPair::~VerbsPair() {
  const IbvApi &A = dev_.api();
  dev_.stopEngine();
  dev_.removePair(this);
  for (ibv_qp *qp : qps_)
    A.destroyQp(qp);
  qps_.clear();
  dev_.drainEvents();
  if (scq_ && A.destroyCq(scq_) != 0)
    HCCL_LOG(Debug, "verbs: ibv_destroy_cq failed");
  if (rcq_ && A.destroyCq(rcq_) != 0)
    HCCL_LOG(Debug, "verbs: ibv_destroy_cq failed");
  for (auto &kv : opMr_)
    dev_.mrs().release(kv.second);
  opMr_.clear();
  for (ibv_mr *mr : {ringMr_, bounceMr_, ctrlMr_, creditMr_})
    if (mr)
      A.deregMr(mr);
  if (ring_)
    ::munmap(ring_, ringBytes_);
  if (bounce_)
    ::munmap(bounce_, ringBytes_);
  if (ctrl_)
    ::munmap(ctrl_, ctrlBytes_);
  if (credit_)
    ::munmap(credit_, creditBytes_);
}

//===----------------------------------------------------------------------===//
// Executor side
//===----------------------------------------------------------------------===//

Status VerbsPair::postSend(SendOp &op) {
  std::lock_guard<std::mutex> g(mu_);
  op.sent = 0;
  op.ticket = 0;
  op.mode = 0;
  op.emptyPosted = false;
  op.done.store(false, std::memory_order_relaxed);
  if (!failed_.isOk())
    return failed_;
  if (cancelled_)
    return Status(HCCL_E_INTERNAL, "connection to rank " +
                                       std::to_string(peer()) +
                                       " is closed after a failure");
  if (peerBye_)
    return Status(HCCL_E_REMOTE,
                  "rank " + std::to_string(peer()) +
                      " destroyed its communicator; cannot send to it");
  sends_.push_back(&op);
  bool moved = false;
  return progressLocked(moved);
}

Status VerbsPair::postRecv(RecvOp &op) {
  std::lock_guard<std::mutex> g(mu_);
  op.received = 0;
  op.done.store(false, std::memory_order_relaxed);
  if (!failed_.isOk())
    return failed_;
  if (cancelled_)
    return Status(HCCL_E_INTERNAL, "connection to rank " +
                                       std::to_string(peer()) +
                                       " is closed after a failure");
  recvs_.push_back(&op);
  bool moved = false;
  return progressLocked(moved);
}

Status VerbsPair::progress(bool &moved) {
  std::lock_guard<std::mutex> g(mu_);
  return progressLocked(moved);
}

void VerbsPair::noteFlush(const Status &st) {
  if (flushAtUs_ == 0) {
    flushAtUs_ = nowUs();
    flushed_ = st;
  }
}

Status VerbsPair::progressLocked(bool &moved) {
  if (!failed_.isOk())
    return failed_;
  // A flushed request is the consequence of a queue pair in the error
  // state; the cause (an async event, another completion) usually arrives
  // within microseconds and is the better report. Report the flush itself
  // only when nothing else came.
  if (flushAtUs_ != 0 && nowUs() - flushAtUs_ > kFlushGraceUs) {
    failed_ = flushed_;
    return failed_;
  }
  if (qps_.empty() || cancelled_)
    return Status::ok();
  Status st = pollSend(moved);
  if (st.isOk())
    st = pollRecv(moved);
  if (st.isOk())
    st = consume(moved);
  if (st.isOk())
    st = pump(moved);
  if (st.isOk())
    st = sendCredit();
  if (!st.isOk() && failed_.isOk())
    failed_ = st;
  if (!st.isOk())
    dev_.markBroken();
  return st;
}

Status VerbsPair::wcFailure(const ibv_wc &wc, const char *what) {
  return Status(
      HCCL_E_ROCE_TRANSFER,
      std::string(what) + " with rank " + std::to_string(peer()) +
          " failed on " + qpName(wc.qp_num) + ": " + dev_.wcStatus(wc.status) +
          (wc.vendor_err ? ", vendor error " + std::to_string(wc.vendor_err)
                         : ""));
}

void VerbsPair::releaseOp(SendOp *op) {
  auto it = opMr_.find(op);
  if (it == opMr_.end())
    return;
  dev_.mrs().release(it->second);
  opMr_.erase(it);
}

Status VerbsPair::pollSend(bool &moved) {
  ibv_wc wc[16];
  int n;
  while ((n = ibv_poll_cq(scq_, 16, wc)) > 0) {
    moved = true;
    lastActivityUs_ = nowUs();
    for (int i = 0; i < n; ++i) {
      const ibv_wc &w = wc[i];
      auto kind = static_cast<WrKind>(w.wr_id >> 56);
      uint64_t val = w.wr_id & kWrValueMask;
      if (kind == kWrData) {
        Inflight &f = inflight_[val % kSlots];
        f.busy = false;
        SendOp *op = f.op;
        f.op = nullptr;
        if (op && w.status == IBV_WC_SUCCESS && --op->ticket == 0 &&
            op->sent == op->bytes && op->emptyPosted) {
          releaseOp(op);
          op->done.store(true, std::memory_order_release);
        }
      } else if (kind == kWrCredit) {
        --creditsInFlight_;
      } else if (kind == kWrBye) {
        byeDone_ = true;
      } else if (kind == kWrProbe) {
        probeInFlight_ = false;
      }
      if (w.status == IBV_WC_SUCCESS)
        continue;
      // Our own teardown flushes; a peer that left does not take credits.
      if (w.status == IBV_WC_WR_FLUSH_ERR && qpsErrored_)
        continue;
      if (peerBye_ && kind != kWrData)
        continue;
      Status f = wcFailure(w, kind == kWrData     ? "RDMA write of data"
                              : kind == kWrCredit ? "RDMA write of credits"
                              : kind == kWrProbe  ? "keep-alive probe"
                                                  : "SEND of BYE");
      if (w.status == IBV_WC_WR_FLUSH_ERR) {
        noteFlush(f);
        continue;
      }
      return f;
    }
  }
  if (n < 0)
    return Status(HCCL_E_ROCE_TRANSFER,
                  "ibv_poll_cq failed on the link to rank " +
                      std::to_string(peer()));
  while (!sends_.empty() &&
         sends_.front()->done.load(std::memory_order_acquire)) {
    sends_.pop_front();
    if (firstUnposted_ > 0)
      --firstUnposted_;
  }
  return Status::ok();
}

Status VerbsPair::pollRecv(bool &moved) {
  ibv_wc wc[16];
  int n;
  while ((n = ibv_poll_cq(rcq_, 16, wc)) > 0) {
    moved = true;
    lastActivityUs_ = nowUs();
    for (int i = 0; i < n; ++i) {
      const ibv_wc &w = wc[i];
      uint32_t buf = static_cast<uint32_t>(w.wr_id & kWrValueMask);
      if (w.status != IBV_WC_SUCCESS) {
        if (w.status == IBV_WC_WR_FLUSH_ERR && (qpsErrored_ || peerBye_))
          continue;
        Status f = wcFailure(w, "receive");
        if (w.status != IBV_WC_WR_FLUSH_ERR)
          return f;
        noteFlush(f);
        continue;
      }
      HCCL_RT_TRY(postRecvBuffer(buf / kRecvsPerQp, buf));
      if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        uint32_t imm = ntohl(w.imm_data);
        if (imm == kCreditImm) {
          uint64_t v = __atomic_load_n(reinterpret_cast<uint64_t *>(credit_),
                                       __ATOMIC_ACQUIRE);
          creditsKnown_ = std::max(creditsKnown_, v);
          continue;
        }
        ImmFields f = decodeImm(imm);
        if (f.slot >= kSlots || f.bytes > kSlotBytes ||
            (f.header && f.bytes < kHeaderBytes) || arrived_[f.slot].present ||
            w.byte_len != f.bytes)
          return Status(HCCL_E_ROCE_TRANSFER,
                        "corrupt chunk from rank " + std::to_string(peer()) +
                            " on " + qpName(w.qp_num) + " (immediate 0x" +
                            std::to_string(imm) + ")");
        arrived_[f.slot] = Arrival{true, f.header, f.bytes};
        ++stats_.chunksReceived;
      } else if (w.opcode == IBV_WC_RECV) {
        const char *msg =
            ctrl_ + kSlots * 64 + static_cast<size_t>(buf) * kCtrlMsgBytes;
        if (w.byte_len == sizeof(kByeMsg) &&
            std::memcmp(msg, kByeMsg, sizeof(kByeMsg)) == 0)
          peerBye_ = true;
        else
          return Status(HCCL_E_ROCE_TRANSFER, "unexpected message from rank " +
                                                  std::to_string(peer()));
      }
    }
  }
  if (n < 0)
    return Status(HCCL_E_ROCE_TRANSFER,
                  "ibv_poll_cq failed on the link to rank " +
                      std::to_string(peer()));
  return Status::ok();
}

Status VerbsPair::consume(bool &moved) {
  for (;;) {
    uint32_t slot = static_cast<uint32_t>(consumed_ % kSlots);
    Arrival &a = arrived_[slot];
    if (!a.present)
      return Status::ok();
    const char *s = ring_ + static_cast<size_t>(slot) * kSlotBytes;
    const char *data = s;
    size_t bytes = a.bytes;
    if (expectHeader_) {
      if (!a.header)
        return Status(HCCL_E_ROCE_TRANSFER, "stream from rank " +
                                                std::to_string(peer()) +
                                                " lost its framing");
      if (recvs_.empty())
        return Status::ok(); // parked until a receive is posted
      WireHeader h;
      std::memcpy(&h, s, sizeof(h));
      RecvOp &op = *recvs_.front();
      if (h.magic != WireHeader::kMagic || h.call != op.expect.call ||
          h.bytes != op.expect.bytes || h.ordinal != op.expect.ordinal)
        return Status(HCCL_E_PARA, describeMismatch(peer(), op.expect, h));
      data += kHeaderBytes;
      bytes -= kHeaderBytes;
      expectHeader_ = false;
    } else if (a.header) {
      return Status(HCCL_E_ROCE_TRANSFER, "stream from rank " +
                                              std::to_string(peer()) +
                                              " lost its framing");
    }
    RecvOp &op = *recvs_.front();
    if (bytes > op.bytes - op.received)
      return Status(HCCL_E_ROCE_TRANSFER,
                    "rank " + std::to_string(peer()) +
                        " sent more bytes than its message holds");
    if (bytes > 0 && !applyIncoming(op, op.received, data, bytes))
      return errInternal("reduction failed (unsupported type/op)");
    op.received += bytes;
    if (op.received == op.bytes) {
      op.done.store(true, std::memory_order_release);
      recvs_.pop_front();
      expectHeader_ = true;
    }
    a.present = false;
    ++consumed_;
    moved = true;
  }
}

Status VerbsPair::pump(bool &moved) {
  while (firstUnposted_ < sends_.size()) {
    SendOp &op = *sends_[firstUnposted_];
    bool first = !op.emptyPosted;
    if (first && op.mode == 0) {
      MrCache::Handle h;
      if (op.bytes > 0)
        h = dev_.zeroCopy(op.src, op.bytes);
      if (h) {
        opMr_[&op] = h;
        op.mode = 1;
      } else {
        op.mode = 2;
      }
    }
    while (first || op.sent < op.bytes) {
      if (posted_ - creditsKnown_ >= kSlots)
        return Status::ok(); // no credit: the receiver has not consumed yet
      uint32_t slot = static_cast<uint32_t>(posted_ % kSlots);
      if (inflight_[slot].busy)
        return Status::ok(); // the adapter still reads this slot's source
      size_t room = kSlotBytes - (first ? kHeaderBytes : 0);
      size_t n = std::min(op.bytes - op.sent, room);
      uint32_t len = static_cast<uint32_t>(n + (first ? kHeaderBytes : 0));
      const char *src = static_cast<const char *>(op.src) + op.sent;
      ibv_sge sge[2];
      int ns = 0;
      if (op.mode == 1) {
        if (first) {
          char *h = ctrl_ + static_cast<size_t>(slot) * 64;
          std::memcpy(h, &op.hdr, kHeaderBytes);
          sge[ns++] = ibv_sge{reinterpret_cast<uintptr_t>(h), kHeaderBytes,
                              ctrlMr_->lkey};
        }
        if (n > 0)
          sge[ns++] = ibv_sge{reinterpret_cast<uintptr_t>(src),
                              static_cast<uint32_t>(n), opMr_[&op].lkey};
        ++stats_.zeroCopyChunks;
      } else {
        char *b = bounce_ + static_cast<size_t>(slot) * kSlotBytes;
        if (first)
          std::memcpy(b, &op.hdr, kHeaderBytes);
        if (n > 0)
          copyBytes(b + (first ? kHeaderBytes : 0), src, n);
        sge[ns++] =
            ibv_sge{reinterpret_cast<uintptr_t>(b), len, bounceMr_->lkey};
        ++stats_.bounceChunks;
      }
      ibv_send_wr wr;
      std::memset(&wr, 0, sizeof(wr));
      wr.wr_id = wrId(kWrData, posted_);
      wr.sg_list = sge;
      wr.num_sge = ns;
      wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.imm_data = htonl(encodeImm(slot, first, len));
      wr.wr.rdma.remote_addr =
          peerInfo_.ringAddr + static_cast<uint64_t>(slot) * kSlotBytes;
      wr.wr.rdma.rkey = peerInfo_.ringKey;
      size_t q = static_cast<size_t>(posted_ % qps_.size());
      ibv_send_wr *bad = nullptr;
      if (int rc = ibv_post_send(qps_[q], &wr, &bad))
        return Status(HCCL_E_ROCE_TRANSFER, "ibv_post_send of data to rank " +
                                                std::to_string(peer()) +
                                                " on " + qpName(qpNums_[q]) +
                                                ": " + std::strerror(rc));
      inflight_[slot] = Inflight{&op, true};
      ++op.ticket;
      op.sent += n;
      op.emptyPosted = true;
      first = false;
      ++posted_;
      moved = true;
    }
    ++firstUnposted_;
  }
  return Status::ok();
}

Status VerbsPair::sendCredit() {
  if (peerBye_ || qpsErrored_)
    return Status::ok();
  uint64_t owed = consumed_ - creditSent_;
  if (owed < kCreditBatch || creditsInFlight_ >= 2)
    return Status::ok(); // retried when a credit write completes
  // Two source words, one per write in flight: the adapter may read a
  // word until its write completes.
  uint64_t *src = reinterpret_cast<uint64_t *>(credit_ + 64 +
                                               8 * (stats_.creditWrites % 2));
  __atomic_store_n(src, consumed_, __ATOMIC_RELEASE);
  ibv_sge sge{reinterpret_cast<uintptr_t>(src), 8, creditMr_->lkey};
  ibv_send_wr wr;
  std::memset(&wr, 0, sizeof(wr));
  wr.wr_id = wrId(kWrCredit, stats_.creditWrites);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.imm_data = htonl(kCreditImm);
  wr.wr.rdma.remote_addr = peerInfo_.creditAddr;
  wr.wr.rdma.rkey = peerInfo_.creditKey;
  ibv_send_wr *bad = nullptr;
  if (int rc = ibv_post_send(qps_[0], &wr, &bad))
    return Status(HCCL_E_ROCE_TRANSFER, "ibv_post_send of credits to rank " +
                                            std::to_string(peer()) + ": " +
                                            std::strerror(rc));
  creditSent_ = consumed_;
  ++creditsInFlight_;
  ++stats_.creditWrites;
  return Status::ok();
}

Status VerbsPair::remoteState(bool pending) {
  if (peerAborted_)
    return Status(HCCL_E_REMOTE,
                  "rank " + std::to_string(peer()) + " aborted: " + abortText_);
  if (sockEof_ && !peerBye_)
    return Status(HCCL_E_REMOTE,
                  "connection to rank " + std::to_string(peer()) +
                      " closed unexpectedly (the peer process died or exited "
                      "without HcclCommDestroy)");
  if (peerBye_ && pending)
    return Status(
        HCCL_E_REMOTE,
        "rank " + std::to_string(peer()) +
            " destroyed its communicator while this rank waits for it");
  return Status::ok();
}

Status VerbsPair::health(const CallId &current) {
  std::lock_guard<std::mutex> g(mu_);
  bool moved = false;
  Status st = progressLocked(moved);
  if (!st.isOk())
    return st;
  bool pending = !sends_.empty() || !recvs_.empty();
  if (pending) {
    HCCL_RT_TRY(remoteState(pending));
    HCCL_RT_TRY(probeIfIdle());
  }
  return peekLocked(current);
}

Status VerbsPair::probeIfIdle() {
  // Waiting with nothing outstanding towards the peer (no credits, or only
  // receives posted) would leave a hung adapter unnoticed until
  // HCCL_EXEC_TIMEOUT. A zero-length RDMA write costs the peer nothing and
  // fails with a retry error after the RC timeout when nobody answers.
  if (probeInFlight_ || peerBye_ || qpsErrored_ || cancelled_)
    return Status::ok();
  int64_t now = nowUs();
  if (lastActivityUs_ == 0)
    lastActivityUs_ = now;
  if (now - lastActivityUs_ < kProbeIdleUs)
    return Status::ok();
  ibv_send_wr wr;
  std::memset(&wr, 0, sizeof(wr));
  wr.wr_id = wrId(kWrProbe, 0);
  wr.num_sge = 0;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = peerInfo_.creditAddr;
  wr.wr.rdma.rkey = peerInfo_.creditKey;
  ibv_send_wr *bad = nullptr;
  if (int rc = ibv_post_send(qps_[0], &wr, &bad))
    return Status(HCCL_E_ROCE_TRANSFER, "ibv_post_send of a probe to rank " +
                                            std::to_string(peer()) + ": " +
                                            std::strerror(rc));
  probeInFlight_ = true;
  lastActivityUs_ = now;
  return Status::ok();
}

Status VerbsPair::peekMismatch(const CallId &current) {
  std::lock_guard<std::mutex> g(mu_);
  bool moved = false;
  HCCL_RT_TRY(progressLocked(moved));
  return peekLocked(current);
}

Status VerbsPair::peekLocked(const CallId &current) {
  if (!expectHeader_ || !recvs_.empty() || arrived_.empty())
    return Status::ok();
  const Arrival &a = arrived_[consumed_ % kSlots];
  if (!a.present || !a.header)
    return Status::ok();
  WireHeader h;
  std::memcpy(&h, ring_ + static_cast<size_t>(consumed_ % kSlots) * kSlotBytes,
              sizeof(h));
  if (h.magic != WireHeader::kMagic)
    return Status::ok();
  bool sameClass = (h.call.kind == CallKind::SendRecv) ==
                   (current.kind == CallKind::SendRecv);
  if (sameClass && h.call.seq == current.seq && h.call != current) {
    WireHeader want;
    want.call = current;
    return Status(HCCL_E_PARA, describeMismatch(peer(), want, h));
  }
  return Status::ok();
}

Status VerbsPair::liveness() {
  std::lock_guard<std::mutex> g(mu_);
  bool pending = !sends_.empty() || !recvs_.empty();
  if (sockEof_ && !peerBye_ && !cancelled_) {
    bool moved = false;
    (void)progressLocked(moved); // a BYE may be waiting in the CQ
  }
  if (!failed_.isOk() && !(peerBye_ && !pending))
    return failed_;
  return remoteState(pending);
}

void VerbsPair::moveQpsToError() {
  if (qpsErrored_)
    return;
  qpsErrored_ = true;
  for (ibv_qp *qp : qps_) {
    ibv_qp_attr attr;
    std::memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_ERR;
    dev_.api().modifyQp(qp, &attr, IBV_QP_STATE);
  }
}

void VerbsPair::cancelAll() {
  std::lock_guard<std::mutex> g(mu_);
  dev_.markBroken();
  // The adapter must stop touching the ops' buffers: the error state
  // flushes every posted request.
  moveQpsToError();
  for (SendOp *op : sends_)
    releaseOp(op);
  sends_.clear();
  firstUnposted_ = 0;
  recvs_.clear();
  for (Inflight &f : inflight_)
    f.op = nullptr;
  cancelled_ = true;
}

void VerbsPair::notifyAbort(const Status &why) {
  std::lock_guard<std::mutex> g(sockMu_);
  if (abortSent_ || !sock_.valid() || sockDone_.load())
    return;
  abortSent_ = true;
  std::string text = why.message().substr(0, kMaxAbortText);
  uint32_t hdr[3] = {kAbortMagic, static_cast<uint32_t>(why.code()),
                     static_cast<uint32_t>(text.size())};
  std::string frame(reinterpret_cast<const char *>(hdr), sizeof(hdr));
  frame += text;
  (void)sendAll(sock_.get(), frame.data(), frame.size(),
                Deadline::afterMs(500));
}

void VerbsPair::closeGraceful() {
  {
    std::lock_guard<std::mutex> g(mu_);
    // Nobody to tell: failed, left already, or gone (socket closed).
    if (!failed_.isOk() || cancelled_ || byePosted_ || peerBye_ || sockEof_ ||
        qps_.empty() || dev_.broken())
      return;
    ibv_sge sge{reinterpret_cast<uintptr_t>(ctrl_ + ctrlBytes_ - 64),
                static_cast<uint32_t>(sizeof(kByeMsg)), ctrlMr_->lkey};
    ibv_send_wr wr;
    std::memset(&wr, 0, sizeof(wr));
    wr.wr_id = wrId(kWrBye, 0);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    ibv_send_wr *bad = nullptr;
    if (ibv_post_send(qps_[0], &wr, &bad) != 0)
      return;
    byePosted_ = true;
  }
  // The BYE is acknowledged once it sits in the peer's CQ, behind all our
  // data: only then may the socket close (EOF without BYE means death).
  Deadline d = Deadline::afterMs(2000);
  for (;;) {
    {
      std::lock_guard<std::mutex> g(mu_);
      bool moved = false;
      Status st = progressLocked(moved);
      if (byeDone_ || !st.isOk() || peerBye_)
        return;
    }
    if (d.expired())
      return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

//===----------------------------------------------------------------------===//
// Event thread side
//===----------------------------------------------------------------------===//

void VerbsPair::onSocketReadable(Status &failure, bool &pending) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(sock_.get(), buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      sockIn_.append(buf, static_cast<size_t>(n));
      while (sockIn_.size() >= 12) {
        uint32_t hdr[3];
        std::memcpy(hdr, sockIn_.data(), sizeof(hdr));
        if (hdr[0] != kAbortMagic || hdr[2] > kMaxAbortText) {
          sockIn_.clear();
          break; // not ours; the queue pairs carry everything else
        }
        if (sockIn_.size() < 12 + hdr[2])
          break;
        std::string text = sockIn_.substr(12, hdr[2]);
        sockIn_.erase(0, 12 + hdr[2]);
        std::lock_guard<std::mutex> g(mu_);
        if (cancelled_)
          continue; // already failed; the reason adds nothing here
        peerAborted_ = true;
        abortText_ = text;
        failure = Status(HCCL_E_REMOTE, "rank " + std::to_string(peer()) +
                                            " aborted: " + text);
        pending = true;
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return;
    // EOF or reset: the peer's process is gone, unless it said BYE first.
    sockDone_.store(true);
    std::lock_guard<std::mutex> g(mu_);
    sockEof_ = true;
    if (!cancelled_) {
      bool moved = false;
      (void)progressLocked(moved);
    }
    if (!peerBye_ && !cancelled_ && failure.isOk()) {
      failure = remoteState(true);
      pending = !sends_.empty() || !recvs_.empty();
    }
    return;
  }
}

void VerbsPair::onAsyncError(const Status &st, bool &pending) {
  std::lock_guard<std::mutex> g(mu_);
  if (failed_.isOk() && !cancelled_)
    failed_ = st;
  pending = !sends_.empty() || !recvs_.empty();
}

bool VerbsPair::ownsQp(const void *qp) const {
  for (ibv_qp *q : qps_)
    if (q == qp)
      return true;
  return false;
}

bool VerbsPair::ownsCq(const void *cq) const {
  return cq == scq_ || cq == rcq_;
}

MrCache::Stats VerbsPair::registrations() const { return dev_.mrs().stats(); }

VerbsPair::Stats VerbsPair::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return stats_;
}

} // namespace hccl::rt::verbs
