//===- ShmPair.cpp - Same-host pair over shared memory --------------------===//
#include "transport/shm/ShmPair.h"
#include "reduce/Copy.h"
#include "reduce/Nontemporal.h"

#include <algorithm>
#include <cstring>

namespace hccl::rt {

namespace {
enum SendMode : int {
  kUndecided = 0,
  kFifo = 1,
  kZeroCopy = 2,
  kDelivered = 3 ///< written through the peer's tee: one header slot
};
enum RecvMode : int {
  kRecvNew = 0,      ///< no slot seen yet
  kRecvStarted = 1,  ///< its first slot was seen
  kRecvAwaitPush = 2 ///< the peer writes it into our buffer (the push)
};
} // namespace

ShmPair::ShmPair(int myRank, int peer, Segment *own,
                 std::unique_ptr<Segment> peerSeg,
                 std::unique_ptr<PeerProcess> proc, ShmPairOptions opts)
    : Pair(peer), me_(myRank), own_(own), peerSeg_(std::move(peerSeg)),
      proc_(std::move(proc)), opts_(opts) {
  peerSeg_->prefaultRing(me_);
  out_ = peerSeg_->ctl(me_);
  in_ = own_->ctl(peer);
  outHead_ = out_->head.load(std::memory_order_acquire);
  inTail_ = in_->tail.load(std::memory_order_acquire);
  askSeen_ = in_->askSeq.load(std::memory_order_acquire);
  askSent_ = out_->askSeq.load(std::memory_order_acquire);
}

ShmPair::~ShmPair() = default;

Status ShmPair::postSend(SendOp &op) {
  op.sent = 0;
  op.emptyPosted = false;
  op.mode = kUndecided;
  op.push = SendOp::Push::Undecided;
  op.pushDst = nullptr;
  op.pushWritten = false;
  op.splitSeq = 0;
  op.splitDst = nullptr;
  op.splitBytes = 0;
  op.splitWritten = 0;
  op.splitStreamed = false;
  op.done.store(false, std::memory_order_relaxed);
  sends_.push_back(&op);
  return Status::ok();
}

Status ShmPair::postRecv(RecvOp &op) {
  op.received = 0;
  op.also = nullptr;
  op.splitSeq = 0;
  op.mode = kRecvNew;
  op.done.store(false, std::memory_order_relaxed);
  recvs_.push_back(&op);
  return Status::ok();
}

Status ShmPair::progress(bool &moved) {
  // Sends first: an offer for the push must be out before this rank's
  // receive starts, or it is withdrawn (ShmPair.h, "The push").
  HCCL_RT_TRY(progressSends(moved));
  return progressRecvs(moved);
}

SlotHeader *ShmPair::headerSlot(const WireHeader &w, uint32_t kind) {
  SlotHeader *sh = peerSeg_->slotHeader(me_, outHead_);
  sh->w = w;
  sh->kind = kind;
  sh->chunkBytes = 0;
  sh->chunkOffset = 0;
  sh->teeOffered = 0;
  sh->pushCapable = 0;
  sh->splitCapable = 0;
  return sh;
}

Status ShmPair::progressSends(bool &moved) {
  const RingGeometry &g = peerSeg_->geometry();
  bool published = false;
  uint64_t tail = out_->tail.load(std::memory_order_acquire);
  // The split: the peer asks before it releases the RTS, so asks taken
  // after this load of the tail include every ask made before the releases
  // it shows; a split send's completion counts releases by this load only.
  const uint64_t splitTail = tail;
  HCCL_RT_TRY(takeAsk());
  // Post as much as the ring takes, in order.
  while (firstUnposted_ < sends_.size()) {
    SendOp &op = *sends_[firstUnposted_];
    // A tee write is announced by the very next message; a send past it
    // means the executor's plan changed, and the flag must not outlive it.
    if (op.mode == kUndecided && delivered_ &&
        (op.hdr.call != deliveredCall_ || op.hdr.ordinal > deliveredOrdinal_))
      delivered_ = false;
    if (op.mode == kUndecided && delivered_ &&
        op.hdr.ordinal == deliveredOrdinal_) {
      // Already in the peer's buffer (this rank's tee write): say so.
      if (outHead_ - tail >= g.nSlots)
        break;
      headerSlot(op.hdr, kSlotDelivered);
      delivered_ = false;
      op.mode = kDelivered;
      if (op.pushCapable)
        op.push = SendOp::Push::Pull; // already there
      op.ticket = ++outHead_;
      op.sent = op.bytes;
      published = true;
      ++firstUnposted_;
      continue;
    }
    if (op.mode == kUndecided) {
      RegionRef ref;
      if (opts_.zeroCopy &&
          RegionRegistry::instance().find(op.src, op.bytes, ref)) {
        if (outHead_ - tail >= g.nSlots)
          break;
        SlotHeader *sh = headerSlot(op.hdr, kSlotRts);
        sh->region = ref;
        // A push already declined is not announced (either way the peer
        // then reads the message: it did not offer for it).
        sh->pushCapable = op.pushCapable && op.push != SendOp::Push::Pull;
        sh->splitCapable = op.splitCapable ? 1 : 0;
        // An offer for a receive that has started would come too late: the
        // peer may have read this rank's RTS for it already.
        bool late = started_ && op.hdr.call == startedCall_ &&
                    op.teeOrdinal <= startedOrdinal_;
        RegionRef teeRef;
        if (op.teeDst && !offer_.active && !late &&
            RegionRegistry::instance().find(op.teeDst, op.bytes, teeRef)) {
          sh->tee = teeRef;
          sh->teeOrdinal = op.teeOrdinal;
          sh->teeOffered = 1;
          offer_ = {true,        op.teeNow, op.teeOrdinal,
                    op.hdr.call, op.teeDst, op.bytes};
        }
        op.mode = kZeroCopy;
        op.ticket = ++outHead_;
        op.sent = op.bytes;
        published = true;
        ++firstUnposted_;
        continue;
      }
      op.mode = kFifo;
      // Only an RTS announces a push: the copy goes on alone (a FIFO send
      // may complete before the step's receive starts and settles it).
      if (op.pushCapable)
        op.push = SendOp::Push::Pull;
    }
    // A zero-byte message still occupies one (empty) slot so that pairing
    // stays exact (all-to-all-v).
    while ((op.sent < op.bytes || (op.bytes == 0 && !op.emptyPosted)) &&
           outHead_ - tail < g.nSlots) {
      op.emptyPosted = true;
      size_t chunk = std::min<size_t>(g.slotBytes, op.bytes - op.sent);
      SlotHeader *sh = peerSeg_->slotHeader(me_, outHead_);
      // The empty message's source may be null (a zero count): memcpy from
      // null is undefined even for 0 bytes (UBSan, the sanitizer leg).
      if (chunk)
        copyBytes(peerSeg_->slotData(me_, outHead_),
                  static_cast<const char *>(op.src) + op.sent, chunk);
      sh->w = op.hdr;
      sh->kind = kSlotData;
      sh->chunkBytes = static_cast<uint32_t>(chunk);
      sh->chunkOffset = op.sent;
      op.sent += chunk;
      ++outHead_;
      // Publish each chunk at once so the receiver starts reducing it while
      // we copy the next one.
      out_->head.store(outHead_, std::memory_order_seq_cst);
      peerSeg_->header()->bell.ring();
      published = false;
      moved = true;
      tail = out_->tail.load(std::memory_order_acquire);
    }
    if (op.sent < op.bytes || (op.bytes == 0 && !op.emptyPosted))
      break;
    op.ticket = outHead_; // FIFO data is out of the source once copied
    ++firstUnposted_;
  }
  if (published) {
    out_->head.store(outHead_, std::memory_order_seq_cst);
    peerSeg_->header()->bell.ring();
    moved = true;
  }
  writeSplits(moved);
  // Completions, in order: FIFO and delivered ops once published, RTS ops
  // once released.
  while (!sends_.empty() && firstUnposted_ > 0) {
    SendOp &op = *sends_.front();
    if (op.mode == kZeroCopy && op.pushCapable &&
        op.push != SendOp::Push::Pull) {
      // Announced as pushCapable: the peer waits for kSlotDelivered unless
      // it did not offer (settled as Pull). Undecided, or a push not yet
      // written (or stopped by an abort): not done.
      if (op.push != SendOp::Push::Push || !op.pushWritten ||
          outHead_ - tail >= g.nSlots)
        break;
      headerSlot(op.hdr, kSlotDelivered);
      ++outHead_;
      out_->head.store(outHead_, std::memory_order_seq_cst);
      peerSeg_->header()->bell.ring();
      ++teesWritten_;
      op.mode = kDelivered;
    }
    if (op.mode == kZeroCopy && tail < op.ticket)
      break;
    if (op.mode == kZeroCopy && op.splitCapable &&
        (splitTail < op.ticket || op.splitWritten < op.splitBytes))
      break; // a release seen before the asks were taken, or our part unwritten
    op.done.store(true, std::memory_order_release);
    sends_.pop_front();
    --firstUnposted_;
    moved = true;
  }
  return Status::ok();
}

Status ShmPair::progressRecvs(bool &moved) {
  bool released = false;
  Status st;
  while (!recvs_.empty()) {
    RecvOp &op = *recvs_.front();
    if (op.splitSeq != 0 && op.received == op.bytes) {
      // The split: our half is read; the peer's is written when it says so.
      if (in_->doneSeq.load(std::memory_order_acquire) < op.splitSeq)
        break;
      ++splitsReceived_;
      op.done.store(true, std::memory_order_release);
      recvs_.pop_front();
      moved = true;
      continue;
    }
    uint64_t head = in_->head.load(std::memory_order_acquire);
    if (inTail_ == head)
      break;
    const SlotHeader *sh = own_->slotHeader(peer(), inTail_);
    if (sh->w.call != op.expect.call || sh->w.bytes != op.expect.bytes ||
        sh->w.ordinal != op.expect.ordinal ||
        sh->w.magic != WireHeader::kMagic) {
      st = Status(HCCL_E_PARA, describeMismatch(peer(), op.expect, sh->w));
      break;
    }
    // The peer writes these fields: read each once, check and use that
    // copy only.
    const uint32_t kind = sh->kind;
    RegionRef region, tee;
    uint32_t teeOffered = 0, teeOrdinal = 0, pushCapable = 0, splitCapable = 0;
    if (kind == kSlotRts) {
      region = sh->region;
      tee = sh->tee;
      teeOffered = sh->teeOffered;
      teeOrdinal = sh->teeOrdinal;
      pushCapable = sh->pushCapable;
      splitCapable = sh->splitCapable;
    }
    if (op.mode == kRecvNew) {
      op.mode = kRecvStarted;
      started_ = true;
      startedCall_ = op.expect.call;
      startedOrdinal_ = op.expect.ordinal;
      st = settlePushes(op.expect.call, kind, tee, teeOffered, teeOrdinal);
      if (!st.isOk())
        break;
    }
    bool offered = offer_.active && sh->w.ordinal == offer_.ordinal &&
                   sh->w.call == offer_.call;
    if (op.mode == kRecvAwaitPush && kind != kSlotDelivered) {
      st = Status(HCCL_E_REMOTE,
                  "rank " + std::to_string(peer()) + " announced that it " +
                      "writes message " + std::to_string(sh->w.ordinal) +
                      " into this rank's buffer, then sent it otherwise");
      break;
    }
    if (kind == kSlotRts && pushCapable == 1 && offered && offer_.now &&
        op.acc == nullptr && op.received == 0 && offer_.dst == op.dst &&
        offer_.bytes == op.bytes) {
      // The push: the peer writes this message into the buffer we offered
      // while it copies its own; release its RTS unread and wait for its
      // kSlotDelivered.
      op.mode = kRecvAwaitPush;
      ++inTail_;
      in_->tail.store(inTail_, std::memory_order_seq_cst);
      released = true;
      moved = true;
      continue;
    }
    // An offered receive that the peer answers with data: the offer was
    // declined.
    if (offered && kind != kSlotDelivered)
      offer_.active = false;
    if (kind == kSlotDelivered) {
      // Only for the ordinal and buffer this rank offered: anything else
      // would claim data that never arrived.
      if (!offered || offer_.dst != op.dst || offer_.bytes != op.bytes ||
          op.acc != nullptr || op.received != 0) {
        st = Status(HCCL_E_REMOTE,
                    "rank " + std::to_string(peer()) +
                        " says it wrote message " +
                        std::to_string(sh->w.ordinal) +
                        " into this rank's buffer, which this rank never "
                        "offered");
        break;
      }
      offer_.active = false;
      op.received = op.bytes;
      ++teesReceived_;
      ++inTail_;
      in_->tail.store(inTail_, std::memory_order_seq_cst);
      released = true;
    } else if (kind == kSlotData) {
      if (sh->chunkOffset != op.received ||
          sh->chunkOffset + sh->chunkBytes > op.bytes) {
        st = errInternal("shm ring from rank " + std::to_string(peer()) +
                         " out of order");
        break;
      }
      if (!applyIncoming(op, sh->chunkOffset, own_->slotData(peer(), inTail_),
                         sh->chunkBytes)) {
        st = errInternal("reduction failed (unsupported type/op)");
        break;
      }
      op.received += sh->chunkBytes;
      ++inTail_;
      // Free the slot at once: the sender refills it while we reduce the next.
      in_->tail.store(inTail_, std::memory_order_seq_cst);
      released = true;
    } else if (kind == kSlotRts) {
      auto src = cache_.resolve(*proc_, region, op.bytes);
      if (!src) {
        // The peer published this region and waits for us to read it; if
        // it is gone, the peer tore down (aborted or died).
        st = Status(HCCL_E_REMOTE, "zero-copy read from rank " +
                                       std::to_string(peer()) +
                                       " failed, its buffer is gone (the peer "
                                       "aborted or freed it): " +
                                       src.status().message());
        break;
      }
      if (op.received == 0) {
        // Take the peer's offer when this reduction is our next message to
        // it; a region that does not resolve is declined, not an error.
        op.also = nullptr;
        if (op.teeable && op.acc && teeOffered == 1 &&
            teeOrdinal == op.teeOrdinal) {
          auto t = teeCache_.resolve(*proc_, tee, op.bytes);
          if (t)
            op.also = *t;
        } else if (splitCapable == 1 && op.acc == nullptr && op.splitSeq == 0) {
          askSplit(op);
        }
      }
      // A rank that aborted returns from its call at once: stop writing
      // into its buffer (at most this piece's worth lands after its
      // return; docs/runtime.md, "The tee").
      if (op.also && own_->header()->abortFlag.load(std::memory_order_acquire))
        op.also = nullptr;
      size_t len = std::min(opts_.pieceBytes, op.bytes - op.received);
      if (!applyIncoming(op, op.received, *src + op.received, len)) {
        st = errInternal("reduction failed (unsupported type/op)");
        break;
      }
      op.received += len;
      moved = true;
      if (op.received < op.bytes)
        break; // one piece per call: let other pairs progress too
      if (op.also) {
        delivered_ = true;
        deliveredOrdinal_ = op.teeOrdinal;
        deliveredCall_ = op.expect.call;
        ++teesWritten_;
        op.also = nullptr;
      }
      ++inTail_;
      in_->tail.store(inTail_, std::memory_order_seq_cst);
      released = true;
    } else {
      st = errInternal("corrupt shm slot from rank " + std::to_string(peer()));
      break;
    }
    moved = true;
    if (op.received == op.bytes && op.splitSeq == 0) {
      op.done.store(true, std::memory_order_release);
      recvs_.pop_front();
    }
  }
  if (released)
    peerSeg_->header()->bell.ring();
  return st;
}

Status ShmPair::health(const CallId &current) {
  // A peer that finished its part of the call may leave (or even crash):
  // only operations still waiting on it make that an error.
  if (sends_.empty() && recvs_.empty())
    return peekMismatch(current);
  const SegmentHeader *ph = peerSeg_->header();
  if (ph->closed.load(std::memory_order_acquire) && !leftEnoughToFinish()) {
    // A peer that left because another rank aborted the communicator
    // (the record in its own segment) may do so before that rank's abort
    // reaches us: report the root cause, not the symptom.
    if (ph->abortFlag.load(std::memory_order_acquire) == 1)
      return Status(
          HCCL_E_REMOTE,
          "rank " + std::to_string(peer()) + " left after rank " +
              std::to_string(ph->abortFrom) + " aborted the communicator: " +
              std::string(ph->abortMsg,
                          strnlen(ph->abortMsg, sizeof(ph->abortMsg))));
    return Status(
        HCCL_E_REMOTE,
        "rank " + std::to_string(peer()) +
            " destroyed its communicator while this rank waits for it");
  }
  if (!proc_->alive())
    return Status(HCCL_E_REMOTE, "rank " + std::to_string(peer()) + " (pid " +
                                     std::to_string(proc_->pid()) +
                                     " on this host) died");
  return peekMismatch(current);
}

bool ShmPair::leftEnoughToFinish() const {
  // A peer that finished its part may destroy its communicator before this
  // rank has looked: messages it published are still in our ring (our own
  // segment), and zero-copy sends it read have their slots released. Its
  // `closed` store follows both, so after the acquire load above they show.
  if (!recvs_.empty()) {
    const RecvOp *r = recvs_.front();
    if (r->splitSeq != 0 && r->received == r->bytes) // the split's last word
      return in_->doneSeq.load(std::memory_order_acquire) >= r->splitSeq;
    return in_->head.load(std::memory_order_acquire) != inTail_;
  }
  if (firstUnposted_ != sends_.size())
    return false; // data it never took: it left without what it needed
  uint64_t tail = out_->tail.load(std::memory_order_acquire);
  for (const SendOp *op : sends_)
    if (op->mode == kZeroCopy && tail < op->ticket)
      return false;
  return true;
}

Status ShmPair::peekMismatch(const CallId &current) {
  // A message of the current call number but a different call waiting at the
  // head means the two ranks called different things.
  uint64_t head = in_->head.load(std::memory_order_acquire);
  if (head != inTail_) {
    const SlotHeader *sh = own_->slotHeader(peer(), inTail_);
    bool sameClass = (sh->w.call.kind == CallKind::SendRecv) ==
                     (current.kind == CallKind::SendRecv);
    if (sameClass && sh->w.call.seq == current.seq && sh->w.call != current) {
      WireHeader want;
      want.call = current;
      return Status(HCCL_E_PARA, describeMismatch(peer(), want, sh->w));
    }
  }
  return Status::ok();
}

Status ShmPair::liveness() {
  if (peerSeg_->header()->closed.load(std::memory_order_acquire))
    return Status::ok();
  if (!proc_->alive())
    return Status(HCCL_E_REMOTE, "rank " + std::to_string(peer()) + " (pid " +
                                     std::to_string(proc_->pid()) +
                                     " on this host) died");
  return Status::ok();
}

void ShmPair::cancelAll() {
  // Messages already published stay in the rings; the communicator is broken
  // after a failure, so nothing will read them.
  sends_.clear();
  recvs_.clear();
  firstUnposted_ = 0;
  offer_ = Offer();
  delivered_ = false;
  started_ = false;
}

Status ShmPair::settlePushes(const CallId &call, uint32_t kind,
                             const RegionRef &tee, uint32_t teeOffered,
                             uint32_t teeOrdinal) {
  for (SendOp *s : sends_) {
    if (!s->pushCapable || s->push != SendOp::Push::Undecided ||
        s->hdr.call != call)
      continue;
    // Pushed only when announced (its RTS says pushCapable: zero-copy, as
    // decided for every message) and the peer offered for it.
    RegionRef own;
    bool zeroCopy = s->mode == kZeroCopy ||
                    (s->mode == kUndecided && opts_.zeroCopy &&
                     RegionRegistry::instance().find(s->src, s->bytes, own));
    if (!zeroCopy || kind != kSlotRts || teeOffered != 1 ||
        teeOrdinal != s->hdr.ordinal) {
      s->push = SendOp::Push::Pull;
      continue;
    }
    auto dst = teeCache_.resolve(*proc_, tee, s->bytes);
    if (!dst)
      return Status(
          HCCL_E_REMOTE,
          "rank " + std::to_string(peer()) + " offered a buffer " +
              "for message " + std::to_string(s->hdr.ordinal) +
              " that this rank cannot map: " + dst.status().message());
    s->pushDst = *dst;
    s->push = SendOp::Push::Push;
  }
  return Status::ok();
}

Status ShmPair::takeAsk() {
  uint64_t seq = in_->askSeq.load(std::memory_order_acquire);
  if (seq == askSeen_)
    return Status::ok();
  askSeen_ = seq;
  // The peer writes the ask: read it once, check and use that copy only.
  SplitAsk a;
  std::memcpy(&a, &in_->ask, sizeof(a));
  for (SendOp *s : sends_) {
    if (s->mode != kZeroCopy || !s->splitCapable || s->splitSeq != 0 ||
        s->hdr.call != a.call || s->hdr.ordinal != a.ordinal)
      continue;
    if (a.bytes == 0 || a.bytes > s->bytes)
      return Status(HCCL_E_REMOTE,
                    "rank " + std::to_string(peer()) +
                        " asked this rank to write " + std::to_string(a.bytes) +
                        " bytes of its " + std::to_string(s->bytes) +
                        "-byte message " + std::to_string(a.ordinal));
    auto dst = teeCache_.resolve(*proc_, a.dst, a.bytes);
    if (!dst)
      return Status(
          HCCL_E_REMOTE,
          "rank " + std::to_string(peer()) +
              " asked this rank to write message " + std::to_string(a.ordinal) +
              " into a buffer it cannot map: " + dst.status().message());
    s->splitSeq = seq;
    s->splitDst = *dst;
    s->splitBytes = a.bytes;
    s->splitWritten = 0;
    s->splitStreamed = a.streamed == 1;
    return Status::ok();
  }
  return Status(HCCL_E_REMOTE,
                "rank " + std::to_string(peer()) + " asked this rank to " +
                    "write a part of message " + std::to_string(a.ordinal) +
                    " of " + a.call.str() +
                    ", which this rank did not offer to split");
}

void ShmPair::writeSplits(bool &moved) {
  for (SendOp *s : sends_) {
    if (s->splitSeq == 0 || s->splitWritten == s->splitBytes)
      continue;
    // A rank that aborted returns from its call at once: stop writing into
    // its buffer (at most one piece lands after its return, as with the
    // tee). The send then never completes and the call fails.
    if (own_->header()->abortFlag.load(std::memory_order_acquire))
      return;
    size_t len = std::min(opts_.pieceBytes, s->splitBytes - s->splitWritten);
    const char *src = static_cast<const char *>(s->src) + s->splitWritten;
    char *dst = s->splitDst + s->splitWritten;
    if (s->splitStreamed)
      copyNontemporal(dst, src, len);
    else
      copyBytes(dst, src, len);
    s->splitWritten += len;
    moved = true;
    if (s->splitWritten == s->splitBytes) {
      // seq_cst before the ring, as every doorbell flag (common/Futex.h).
      out_->doneSeq.store(s->splitSeq, std::memory_order_seq_cst);
      peerSeg_->header()->bell.ring();
      ++splitsWritten_;
    }
    return; // one piece per call, as the reads: other pairs progress too
  }
}

void ShmPair::askSplit(RecvOp &op) {
  // Whole pages, so that either part keeps any element type's alignment.
  size_t part = op.bytes / 2 / 4096 * 4096;
  RegionRef ref;
  if (part == 0 || !RegionRegistry::instance().find(op.dst, part, ref))
    return; // not shareable: this rank reads it all
  SplitAsk &a = out_->ask;
  a.call = op.expect.call;
  a.ordinal = op.expect.ordinal;
  a.streamed = op.nontemporal || op.pastCache ? 1 : 0;
  a.bytes = part;
  a.dst = ref;
  out_->askSeq.store(++askSent_, std::memory_order_seq_cst);
  peerSeg_->header()->bell.ring();
  op.splitSeq = askSent_;
  op.received = part; // the peer's part: this rank reads from there on
}

void ShmPair::notifyAbort(const Status &why) {
  SegmentHeader *h = peerSeg_->header();
  uint32_t expected = 0;
  if (h->abortFlag.compare_exchange_strong(expected, 2)) {
    h->abortFrom = me_;
    h->abortCode = static_cast<int32_t>(why.code());
    std::strncpy(h->abortMsg, why.message().c_str(), sizeof(h->abortMsg) - 1);
    h->abortMsg[sizeof(h->abortMsg) - 1] = '\0';
    h->abortFlag.store(1, std::memory_order_release);
  }
  h->bell.ringAlways();
}

} // namespace hccl::rt
