//===- Nic.cpp - The emulated adapter: RC requester and responder ---------===//
//
// One thread per opened context. Per queue pair and pass it
//  1. handles responses to its own requests (ACK completes every request up
//     to the acknowledged one, NAK fails one and moves the QP to the error
//     state, RNR restarts the retry timer);
//  2. executes requests from the peer against this process's memory:
//     sequence (PSN) and source QP checks, rkey / bounds / access checks for
//     RDMA WRITE (a violation NAKs the requester with a remote access error
//     and raises IBV_EVENT_QP_ACCESS_ERR here), receive WQEs for SEND and
//     WRITE_WITH_IMM (none posted: the request waits, RNR), completions;
//  3. transmits posted work requests in segments of at most 64 KiB while the
//     peer's ring has room, checking every lkey;
//  4. expires the retry timer: no answer for 4.096 us x 2^timeout, retry_cnt
//     times over, completes the oldest request with
//     IBV_WC_RETRY_EXC_ERR (a dead, stalled or unreachable peer).
// The shm rings never lose packets, so nothing is retransmitted.
//
//===----------------------------------------------------------------------===//
#include "FakeVerbs.h"

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

namespace fv {

Mr *findMr(Context *c, uint32_t key) {
  auto it = c->mrs.find(key);
  return it == c->mrs.end() ? nullptr : it->second;
}

void postAsync(Context *c, ibv_event_type type, Qp *qp) {
  ibv_async_event ev{};
  ev.event_type = type;
  if (type == IBV_EVENT_PORT_ERR || type == IBV_EVENT_PORT_ACTIVE)
    ev.element.port_num = 1;
  else
    ev.element.qp = qp ? &qp->qp : nullptr;
  ssize_t rc = ::write(c->asyncW, &ev, sizeof(ev));
  (void)rc;
}

void pushCqe(Cq *cq, const ibv_wc &wc) {
  std::lock_guard<std::mutex> g(cq->mu);
  if (static_cast<int>(cq->q.size()) >= cq->cap) {
    if (!cq->overflowed) {
      cq->overflowed = true;
      ibv_async_event ev{};
      ev.event_type = IBV_EVENT_CQ_ERR;
      ev.element.cq = &cq->cq;
      ssize_t rc = ::write(cq->c->asyncW, &ev, sizeof(ev));
      (void)rc;
    }
    return;
  }
  cq->q.push_back(wc);
  if (cq->armed && cq->chan) {
    cq->armed = false;
    ++cq->events;
    ibv_cq *p = &cq->cq;
    ssize_t rc = ::write(cq->chan->wfd, &p, sizeof(p));
    (void)rc;
  }
}

static ibv_wc_opcode sendOpcode(ibv_wr_opcode op) {
  return (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM)
             ? IBV_WC_RDMA_WRITE
             : IBV_WC_SEND;
}

static void completeSend(Qp *qp, const SendWqe &w, ibv_wc_status st) {
  if (st == IBV_WC_SUCCESS && !w.signaled && !qp->sigAll)
    return;
  ibv_wc wc{};
  wc.wr_id = w.wrId;
  wc.status = st;
  wc.opcode = sendOpcode(w.opcode);
  wc.qp_num = qp->qp.qp_num;
  wc.byte_len = st == IBV_WC_SUCCESS ? static_cast<uint32_t>(w.total) : 0;
  pushCqe(qp->scq, wc);
}

void qpToError(Qp *qp) {
  if (qp->state == IBV_QPS_ERR)
    return;
  qp->state = IBV_QPS_ERR;
  qp->qp.state = IBV_QPS_ERR;
  for (const SendWqe &w : qp->sq)
    completeSend(qp, w, IBV_WC_WR_FLUSH_ERR);
  qp->sq.clear();
  qp->txCursor = 0;
  for (const RecvWqe &r : qp->rq) {
    ibv_wc wc{};
    wc.wr_id = r.wrId;
    wc.status = IBV_WC_WR_FLUSH_ERR;
    wc.opcode = IBV_WC_RECV;
    wc.qp_num = qp->qp.qp_num;
    pushCqe(qp->rcq, wc);
  }
  qp->rq.clear();
  qp->sendActive = false;
}

/// Fails the request at the front of the send queue with `st`, then the QP.
static void failFront(Qp *qp, ibv_wc_status st) {
  SendWqe w = qp->sq.front();
  qp->sq.pop_front();
  if (qp->txCursor > 0)
    --qp->txCursor;
  completeSend(qp, w, st);
  qpToError(qp);
}

static uint64_t timeoutUs(const Qp *qp) {
  if (qp->timeout == 0)
    return 0; // infinite
  return static_cast<uint64_t>(4.096 *
                               static_cast<double>(1ull << qp->timeout));
}

static bool resolvePeer(Context *c, Qp *qp) {
  if (qp->peerResolved)
    return true;
  if (qp->peerUnreachable)
    return false;
  qp->peerUnreachable = true;
  uint32_t node = c->fabric->nodeOfGid(qp->ah.grh.dgid.raw);
  if (node == 0 || qp->destQpn < kQpnBase ||
      qp->destQpn >= kQpnBase + kMaxQpEntries)
    return false;
  QpEntry &e = c->fabric->dir()->qp[qp->destQpn - kQpnBase];
  if (e.state.load() != 2 || e.node != node || !pidAlive(e.pid))
    return false;
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, e.pid, 0));
  if (pidfd < 0)
    return false;
  int fd = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, e.fd, 0));
  ::close(pidfd);
  if (fd < 0)
    return false;
  void *p =
      ::mmap(nullptr, e.ringBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED)
    return false;
  qp->peerMap = p;
  qp->peerMapBytes = e.ringBytes;
  qp->peerCtxSlot = e.ctxSlot;
  char *base = static_cast<char *>(p);
  qp->reqOut.h = reinterpret_cast<RingHdr *>(base);
  qp->reqOut.data = base + sizeof(RingHdr);
  qp->rspOut.h =
      reinterpret_cast<RingHdr *>(base + sizeof(RingHdr) + kReqRingBytes);
  qp->rspOut.data = base + 2 * sizeof(RingHdr) + kReqRingBytes;
  qp->peerResolved = true;
  qp->peerUnreachable = false;
  return true;
}

/// Sends a response (ACK/NAK/RNR) to the requester; false when its ring is
/// full (try again later).
static bool respond(Context *c, Qp *qp, uint32_t type, uint64_t msn,
                    uint32_t status) {
  if (!resolvePeer(c, qp))
    return true; // unreachable: the answer is lost, as on a wire
  if (!qp->rspOut.canPushOrWait(0, static_cast<uint32_t>(c->ctxSlot)))
    return false;
  Pkt p{};
  p.type = type;
  p.srcQpn = qp->qp.qp_num;
  p.msn = msn;
  p.status = status;
  uint64_t at;
  qp->rspOut.begin(p, at);
  qp->rspOut.publish(at, p);
  c->fabric->ring(qp->peerCtxSlot);
  return true;
}

//===----------------------------------------------------------------------===//
// Responder
//===----------------------------------------------------------------------===//

enum class Verdict { Consumed, Hold };

/// Checks that [addr, addr+len) lies in local MRs of the QP's PD with
/// `need` access, for every piece of a scatter list; copies `data` there at
/// logical offset `off`.
static bool scatter(Context *c, Qp *qp, const RecvWqe &r, uint64_t off,
                    const char *data, uint64_t len) {
  std::shared_lock<std::shared_mutex> g(c->mrMu);
  uint64_t pos = 0;
  for (const ibv_sge &s : r.sges) {
    uint64_t a = pos, b = pos + s.length;
    pos = b;
    uint64_t lo = std::max(a, off), hi = std::min(b, off + len);
    if (lo >= hi)
      continue;
    Mr *mr = findMr(c, s.lkey);
    if (!mr || mr->pd != qp->pd || !(mr->access & IBV_ACCESS_LOCAL_WRITE))
      return false;
    uintptr_t dst = s.addr + (lo - a);
    uintptr_t mb = reinterpret_cast<uintptr_t>(mr->mr.addr);
    if (dst < mb || dst + (hi - lo) > mb + mr->mr.length)
      return false;
    std::memcpy(reinterpret_cast<void *>(dst), data + (lo - off), hi - lo);
  }
  return true;
}

static Verdict handleRequest(Context *c, Qp *qp, const Pkt &p,
                             const char *payload) {
  if (qp->state != IBV_QPS_RTR && qp->state != IBV_QPS_RTS)
    return Verdict::Consumed; // a QP not ready to receive drops packets
  if (p.srcQpn != qp->destQpn)
    return Verdict::Consumed; // not from the connected QP
  uint32_t wantPsn =
      static_cast<uint32_t>((qp->rqPsn + qp->expectMsn) & 0xffffff);
  if (p.msn != qp->expectMsn || p.psn != wantPsn)
    return Verdict::Consumed; // out of sequence: dropped (the requester times
                              // out)
  bool first = p.offset == 0;
  bool last = p.offset + p.len == p.total;
  bool needsRecv = p.type == kWriteImm || p.type == kSend || p.type == kSendImm;
  if (last && !resolvePeer(c, qp)) {
    // Still execute; the ACK is lost.
  } else if (last &&
             !qp->rspOut.canPushOrWait(0, static_cast<uint32_t>(c->ctxSlot))) {
    return Verdict::Hold;
  }

  if (p.type == kWrite || p.type == kWriteImm) {
    std::shared_lock<std::shared_mutex> g(c->mrMu);
    Mr *mr = findMr(c, p.rkey);
    uintptr_t mb = mr ? reinterpret_cast<uintptr_t>(mr->mr.addr) : 0;
    bool ok =
        mr && mr->pd == qp->pd && (mr->access & IBV_ACCESS_REMOTE_WRITE) &&
        (qp->access & IBV_ACCESS_REMOTE_WRITE) && p.raddr >= mb &&
        p.raddr + p.total <= mb + mr->mr.length && p.total >= p.offset + p.len;
    if (!ok) {
      g.unlock();
      respond(c, qp, kNak, p.msn, IBV_WC_REM_ACCESS_ERR);
      qpToError(qp);
      postAsync(c, IBV_EVENT_QP_ACCESS_ERR, qp);
      return Verdict::Consumed;
    }
    if (last && p.type == kWriteImm && qp->rq.empty()) {
      if (!qp->rnrSent && respond(c, qp, kRnr, p.msn, qp->minRnrTimer))
        qp->rnrSent = true;
      return Verdict::Hold;
    }
    std::memcpy(reinterpret_cast<void *>(p.raddr + p.offset), payload, p.len);
  } else {
    if (first && !qp->sendActive) {
      if (qp->rq.empty()) {
        if (!qp->rnrSent && respond(c, qp, kRnr, p.msn, qp->minRnrTimer))
          qp->rnrSent = true;
        return Verdict::Hold;
      }
      if (p.total > qp->rq.front().total) {
        RecvWqe r = qp->rq.front();
        qp->rq.pop_front();
        ibv_wc wc{};
        wc.wr_id = r.wrId;
        wc.status = IBV_WC_LOC_LEN_ERR;
        wc.opcode = IBV_WC_RECV;
        wc.qp_num = qp->qp.qp_num;
        pushCqe(qp->rcq, wc);
        respond(c, qp, kNak, p.msn, IBV_WC_REM_INV_REQ_ERR);
        qpToError(qp);
        return Verdict::Consumed;
      }
      qp->sendActive = true;
    }
    if (!scatter(c, qp, qp->rq.front(), p.offset, payload, p.len)) {
      RecvWqe r = qp->rq.front();
      qp->rq.pop_front();
      ibv_wc wc{};
      wc.wr_id = r.wrId;
      wc.status = IBV_WC_LOC_PROT_ERR;
      wc.opcode = IBV_WC_RECV;
      wc.qp_num = qp->qp.qp_num;
      pushCqe(qp->rcq, wc);
      respond(c, qp, kNak, p.msn, IBV_WC_REM_OP_ERR);
      qpToError(qp);
      return Verdict::Consumed;
    }
  }
  qp->rnrSent = false;
  if (!last)
    return Verdict::Consumed;
  if (needsRecv) {
    RecvWqe r = qp->rq.front();
    qp->rq.pop_front();
    qp->sendActive = false;
    ibv_wc wc{};
    wc.wr_id = r.wrId;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = p.type == kWriteImm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
    wc.byte_len = static_cast<uint32_t>(p.total);
    wc.qp_num = qp->qp.qp_num;
    wc.src_qp = p.srcQpn;
    if (p.type == kWriteImm || p.type == kSendImm) {
      wc.wc_flags = IBV_WC_WITH_IMM;
      wc.imm_data = p.imm;
    }
    pushCqe(qp->rcq, wc);
  }
  ++qp->expectMsn;
  respond(c, qp, kAck, p.msn, 0);
  return Verdict::Consumed;
}

//===----------------------------------------------------------------------===//
// Requester
//===----------------------------------------------------------------------===//

static void handleResponse(Qp *qp, const Pkt &p) {
  if (qp->state == IBV_QPS_ERR || qp->state == IBV_QPS_RESET)
    return;
  if (p.srcQpn != qp->destQpn)
    return;
  if (p.type == kRnr) {
    // The responder holds the request until a receive is posted (the wire
    // retransmits it after each RNR delay): the ack timer stops, and the
    // RNR retry count applies instead (7 = forever).
    static const double kRnrMs[32] = {
        655.36, 0.01,  0.02,  0.03,   0.04,   0.06,   0.08,   0.12,
        0.16,   0.24,  0.32,  0.48,   0.64,   0.96,   1.28,   1.92,
        2.56,   3.84,  5.12,  7.68,   10.24,  15.36,  20.48,  30.72,
        40.96,  61.44, 81.92, 122.88, 163.84, 245.76, 327.68, 491.52};
    qp->rnrWaiting = true;
    qp->rnrDelayUs = static_cast<uint64_t>(kRnrMs[p.status & 31] * 1000.0);
    qp->rnrRetries = 0;
    qp->lastProgressUs = monoUs();
    return;
  }
  qp->rnrWaiting = false;
  // Every request before the (N)ACKed one arrived.
  while (!qp->sq.empty() &&
         qp->sq.front().msn < p.msn + (p.type == kAck ? 1 : 0) &&
         qp->sq.front().transmitted &&
         qp->sq.front().sent == qp->sq.front().total) {
    SendWqe w = qp->sq.front();
    qp->sq.pop_front();
    if (qp->txCursor > 0)
      --qp->txCursor;
    completeSend(qp, w, IBV_WC_SUCCESS);
  }
  qp->lastProgressUs = monoUs();
  qp->retries = 0;
  if (p.type == kNak && !qp->sq.empty() && qp->sq.front().msn == p.msn)
    failFront(qp, static_cast<ibv_wc_status>(p.status));
}

/// Fires the configured fault if this request is the one; returns false
/// when the request must not be transmitted now.
static bool maybeFault(Context *c, Qp *qp, SendWqe &w) {
  if (c->opt.fault == FaultKind::None || c->faultFired)
    return true;
  if (c->requests.load() < c->opt.faultAfter)
    return true;
  bool isWrite =
      w.opcode == IBV_WR_RDMA_WRITE || w.opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
  switch (c->opt.fault) {
  case FaultKind::None:
    return true;
  case FaultKind::CqeError:
    c->faultFired = true;
    w.injectError = true;
    return false;
  case FaultKind::RemAccess:
    if (!isWrite)
      return true; // waits for the next RDMA write
    c->faultFired = true;
    w.rkey ^= 0x00A5A500u; // the responder's own checks reject it
    return true;
  case FaultKind::QpError:
    c->faultFired = true;
    qpToError(qp);
    postAsync(c, IBV_EVENT_QP_FATAL, qp);
    return false;
  case FaultKind::Stall:
    c->faultFired = true;
    c->stalled = true;
    return false;
  case FaultKind::PortError:
    c->faultFired = true;
    c->portDown.store(true);
    postAsync(c, IBV_EVENT_PORT_ERR, nullptr);
    qpToError(qp); // the others follow in the NIC loop
    return false;
  }
  return true;
}

/// Copies [off, off+len) of the request's gather list into `out`; false on
/// an lkey/bounds violation.
static bool gather(Context *c, Qp *qp, const SendWqe &w, uint64_t off,
                   char *out, uint64_t len) {
  std::shared_lock<std::shared_mutex> g(c->mrMu);
  uint64_t pos = 0;
  for (const ibv_sge &s : w.sges) {
    uint64_t a = pos, b = pos + s.length;
    pos = b;
    uint64_t lo = std::max(a, off), hi = std::min(b, off + len);
    if (lo >= hi)
      continue;
    Mr *mr = findMr(c, s.lkey);
    if (!mr || mr->pd != qp->pd)
      return false;
    uintptr_t src = s.addr + (lo - a);
    uintptr_t mb = reinterpret_cast<uintptr_t>(mr->mr.addr);
    if (src < mb || src + (hi - lo) > mb + mr->mr.length)
      return false;
    std::memcpy(out + (lo - off), reinterpret_cast<const void *>(src), hi - lo);
  }
  return true;
}

static bool validLocal(Context *c, Qp *qp, const SendWqe &w) {
  std::shared_lock<std::shared_mutex> g(c->mrMu);
  for (const ibv_sge &s : w.sges) {
    if (s.length == 0)
      continue;
    Mr *mr = findMr(c, s.lkey);
    uintptr_t mb = mr ? reinterpret_cast<uintptr_t>(mr->mr.addr) : 0;
    if (!mr || mr->pd != qp->pd || s.addr < mb ||
        s.addr + s.length > mb + mr->mr.length)
      return false;
  }
  return true;
}

/// Transmits what the peer's ring accepts; true when anything moved.
static bool transmit(Context *c, Qp *qp) {
  bool moved = false;
  while (qp->state == IBV_QPS_RTS && qp->txCursor < qp->sq.size() &&
         !c->stalled) {
    SendWqe &w = qp->sq[qp->txCursor];
    if (!w.transmitted) {
      if (w.injectError) {
        if (qp->txCursor != 0)
          return moved; // fails in order, after the earlier requests
        failFront(qp, IBV_WC_GENERAL_ERR);
        return true;
      }
      if (!maybeFault(c, qp, w))
        return true;
      if (!validLocal(c, qp, w)) {
        if (qp->txCursor != 0)
          return moved;
        failFront(qp, IBV_WC_LOC_PROT_ERR);
        return true;
      }
      c->requests.fetch_add(1);
      if (qp->txCursor == 0 || qp->lastProgressUs == 0)
        qp->lastProgressUs = monoUs();
      w.transmitted = true;
    }
    if (!resolvePeer(c, qp)) {
      w.sent = w.total; // lost on the wire; the retry timer will tell
      ++qp->txCursor;
      moved = true;
      continue;
    }
    do {
      uint64_t seg = std::min<uint64_t>(kSegBytes, w.total - w.sent);
      if (!qp->reqOut.canPushOrWait(seg, static_cast<uint32_t>(c->ctxSlot)))
        return moved;
      Pkt p{};
      switch (w.opcode) {
      case IBV_WR_RDMA_WRITE:
        p.type = kWrite;
        break;
      case IBV_WR_RDMA_WRITE_WITH_IMM:
        p.type = kWriteImm;
        break;
      case IBV_WR_SEND_WITH_IMM:
        p.type = kSendImm;
        break;
      default:
        p.type = kSend;
      }
      p.len = static_cast<uint32_t>(seg);
      p.srcQpn = qp->qp.qp_num;
      p.psn = static_cast<uint32_t>((qp->sqPsn + w.msn) & 0xffffff);
      p.msn = w.msn;
      p.raddr = w.raddr;
      p.total = w.total;
      p.offset = w.sent;
      p.rkey = w.rkey;
      p.imm = w.imm;
      uint64_t at;
      char *payload = qp->reqOut.begin(p, at);
      if (!gather(c, qp, w, w.sent, payload, seg)) {
        // The MR went away after posting: a local protection error.
        if (qp->txCursor == 0) {
          failFront(qp, IBV_WC_LOC_PROT_ERR);
          return true;
        }
        return moved;
      }
      qp->reqOut.publish(at, p);
      c->fabric->ring(qp->peerCtxSlot);
      w.sent += seg;
      moved = true;
    } while (w.sent < w.total);
    ++qp->txCursor;
  }
  return moved;
}

static void checkTimer(Qp *qp) {
  if (qp->state != IBV_QPS_RTS || qp->sq.empty() || !qp->sq.front().transmitted)
    return;
  int64_t now = monoUs();
  if (qp->rnrWaiting) {
    if (qp->rnrRetry == 7 ||
        static_cast<uint64_t>(now - qp->lastProgressUs) < qp->rnrDelayUs)
      return;
    qp->lastProgressUs = now;
    if (++qp->rnrRetries > qp->rnrRetry)
      failFront(qp, IBV_WC_RNR_RETRY_EXC_ERR);
    return;
  }
  uint64_t t = timeoutUs(qp);
  if (t == 0)
    return;
  if (static_cast<uint64_t>(now - qp->lastProgressUs) < t)
    return;
  qp->lastProgressUs = now;
  if (++qp->retries > qp->retryCnt)
    failFront(qp, IBV_WC_RETRY_EXC_ERR);
}

/// One pass over a QP; true when anything moved.
static bool serviceQp(Context *c, Qp *qp) {
  std::lock_guard<std::mutex> g(qp->mu);
  if (qp->destroyed)
    return false;
  bool moved = false;
  for (int i = 0; i < 256; ++i) {
    const Pkt *p = qp->rspIn.front();
    if (!p)
      break;
    Pkt copy = *p;
    qp->rspIn.pop();
    handleResponse(qp, copy);
    moved = true;
  }
  for (int i = 0; i < 64; ++i) {
    const Pkt *p = qp->reqIn.front();
    if (!p)
      break;
    Pkt copy = *p;
    if (handleRequest(c, qp, copy, reinterpret_cast<const char *>(p + 1)) ==
        Verdict::Hold)
      break;
    qp->reqIn.pop();
    moved = true;
  }
  if (moved) {
    qp->reqIn.notifyProducer(c->fabric);
    qp->rspIn.notifyProducer(c->fabric);
  }
  if (c->portDown.load() && qp->state != IBV_QPS_ERR &&
      qp->state != IBV_QPS_RESET) {
    qpToError(qp);
    moved = true;
  }
  moved = transmit(c, qp) || moved;
  checkTimer(qp);
  return moved;
}

/// The earliest retry-timer expiry of a QP (for the NIC's sleep).
static void nextTimer(Qp *qp, int64_t &wakeUs) {
  std::lock_guard<std::mutex> g(qp->mu);
  if (qp->destroyed || qp->state != IBV_QPS_RTS || qp->sq.empty() ||
      !qp->sq.front().transmitted)
    return;
  uint64_t t =
      qp->rnrWaiting ? (qp->rnrRetry == 7 ? 0 : qp->rnrDelayUs) : timeoutUs(qp);
  if (t)
    wakeUs =
        std::min<int64_t>(wakeUs, qp->lastProgressUs + static_cast<int64_t>(t));
}

static void run(Context *c) {
  CtxEntry &e = c->fabric->dir()->ctx[c->ctxSlot];
  auto pass = [c](std::vector<std::shared_ptr<Qp>> &qps) {
    {
      std::lock_guard<std::mutex> g(c->qpMu);
      qps = c->qps;
    }
    bool moved = false;
    if (!c->stalled)
      for (auto &qp : qps)
        moved = serviceQp(c, qp.get()) || moved;
    return moved;
  };
  std::vector<std::shared_ptr<Qp>> qps;
  while (!c->stop.load()) {
    if (pass(qps))
      continue;
    // Sleep until a post or a peer rings; the pass after raising the flag
    // catches whatever arrived before it was visible.
    uint32_t seq = e.seq.load(std::memory_order_seq_cst);
    e.sleeping.store(1, std::memory_order_seq_cst);
    if (!pass(qps) && !c->stop.load()) {
      int64_t now = monoUs();
      int64_t wake = now + 50000;
      if (!c->stalled)
        for (auto &qp : qps)
          nextTimer(qp.get(), wake);
      futexWait(&e.seq, seq, std::max<int64_t>(wake - now, 100));
    }
    e.sleeping.store(0, std::memory_order_relaxed);
  }
}

void startNic(Context *c) {
  std::lock_guard<std::mutex> g(c->startMu);
  if (c->started.load())
    return;
  c->nic = std::thread([c] { run(c); });
  c->started.store(true);
}

void stopNic(Context *c) {
  std::lock_guard<std::mutex> g(c->startMu);
  if (!c->started.load())
    return;
  c->stop.store(true);
  CtxEntry &e = c->fabric->dir()->ctx[c->ctxSlot];
  e.seq.fetch_add(1);
  futexWake(&e.seq);
  c->nic.join();
  c->started.store(false);
}

void kickNic(Context *c) {
  if (c->ctxSlot >= 0)
    c->fabric->ring(static_cast<uint32_t>(c->ctxSlot));
}

} // namespace fv
