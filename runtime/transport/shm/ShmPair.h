//===- ShmPair.h - Same-host pair over shared memory ------------*- C++ -*-===//
//
// Messages from this rank to the peer go through ring[myRank] of the peer's
// segment, messages from the peer through ring[peer] of ours. A message is
//  - a run of data slots (FIFO, single copy): the sender copies chunks into
//    free slots, the receiver copies or reduces each chunk out and frees it;
//    sender and receiver overlap chunk by chunk;
//  - one RTS slot (zero-copy) when the source lies in shareable memory
//    (HcclMemAlloc, executor scratch): the receiver maps the sender's region
//    and reads/reduces straight from it, then frees the slot, which is the
//    sender's completion.
// All progress happens on the executor threads of the two ranks; nothing
// spins here: the executor sleeps on its doorbell, which the peer rings.
//
// The tee. In a 2-rank two-shot all-reduce each rank reduces one half and
// then sends that half to the other, who copies it: the reduced half is
// written once, read back once and written again. Instead, a rank whose
// next receive from the peer is such a half offers its destination in the
// RTS of the message the peer reduces (SendOp::teeDst); the peer, if that
// reduction's result is its next message to this rank (RecvOp::teeable),
// writes the result into both buffers in one pass and later sends a
// kSlotDelivered slot in place of the data. Either side may decline: an
// untaken offer is just a normal message later. The receiver accepts a
// kSlotDelivered only for the ordinal and buffer it offered.
//
// The push. In a 2-rank all-gather step each rank copies its block into
// its output and sends the same block to the peer. A rank whose Copy
// reads exactly the message's source marks its RTS pushCapable, and
// offers the destination of its own receive of this step in the same RTS.
// Whether a message is pushed follows from the two RTS alone, so both
// ranks agree: the sender of a pushCapable RTS whose receiver offered for
// that ordinal writes it into the offered buffer during its copy and then
// sends kSlotDelivered; the receiver releases the RTS without reading and
// waits for that slot. A sender learns of the offer when its receive of
// the step starts (the peer's RTS is its first slot) and settles the push
// then (SendOp::push); an offer not yet published by then is withdrawn,
// since the peer may already have read this rank's RTS without it.
//
// The split. A rank whose step only sends one message (a 2-rank broadcast's
// root, HcclSend) would wait idle while its peer copies the whole message
// out of its buffer; two cores copy about twice as fast as one. Its RTS
// says splitCapable. A receiver that copies (no reduction) into a buffer
// of its own in shareable memory asks, in its ring's split cell, that the
// sender write the first half of the message into that buffer, then reads
// the second half itself and releases the RTS. The sender writes its half
// and publishes the ask's number as done; the receive completes on both.
// The receiver alone decides, before it releases the RTS, and the sender
// looks for an ask before it counts a released RTS as its completion, so
// an ask is never missed. The cells lie beside the ring, not in it, so an
// ask never queues behind messages the sender has not yet received.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_SHM_SHMPAIR_H
#define HCCL_RUNTIME_TRANSPORT_SHM_SHMPAIR_H

#include "transport/Transport.h"
#include "transport/shm/Regions.h"
#include "transport/shm/Segment.h"

#include <deque>
#include <memory>

namespace hccl::rt {

struct ShmPairOptions {
  bool zeroCopy = true;          ///< use RTS for sources in shareable memory
  size_t pieceBytes = 256 << 10; ///< zero-copy reads per progress() call
};

class ShmPair final : public Pair {
public:
  ShmPair(int myRank, int peer, Segment *own, std::unique_ptr<Segment> peerSeg,
          std::unique_ptr<PeerProcess> proc, ShmPairOptions opts);
  ~ShmPair() override;

  const char *kind() const override { return "shm"; }
  bool zeroCopyCapable() const override { return opts_.zeroCopy; }
  int peerCpu() const override {
    return peerSeg_->header()->runCpu.load(std::memory_order_relaxed);
  }
  Status postSend(SendOp &op) override;
  Status postRecv(RecvOp &op) override;
  Status progress(bool &moved) override;
  Status health(const CallId &current) override;
  Status liveness() override;
  Status peekMismatch(const CallId &current) override;
  void cancelAll() override;
  void notifyAbort(const Status &why) override;
  void closeGraceful() override { peerSeg_->header()->bell.ringAlways(); }

  /// For tests: how many peer regions are mapped.
  size_t mappedRegions() const { return cache_.size() + teeCache_.size(); }
  /// For tests: messages this rank wrote into the peer's buffer through a
  /// tee, and messages the peer wrote into this rank's.
  uint64_t teesWritten() const { return teesWritten_; }
  uint64_t teesReceived() const { return teesReceived_; }
  /// For tests: split parts this rank wrote into the peer's buffer, and
  /// receives that the peer completed so.
  uint64_t splitsWritten() const { return splitsWritten_; }
  uint64_t splitsReceived() const { return splitsReceived_; }

private:
  /// The next free slot of our ring in the peer's segment, filled in as a
  /// header-only message of `kind` (not yet published).
  SlotHeader *headerSlot(const WireHeader &w, uint32_t kind);
  Status progressSends(bool &moved);
  Status progressRecvs(bool &moved);
  /// A receive's first slot arrived: settle the step's pushCapable sends
  /// (pushed when that slot is an RTS offering for them).
  Status settlePushes(const CallId &call, uint32_t kind, const RegionRef &tee,
                      uint32_t teeOffered, uint32_t teeOrdinal);
  /// The split: take the peer's latest ask, if new, for one of our sends.
  Status takeAsk();
  /// The split: write one piece of an asked part into the peer's buffer.
  void writeSplits(bool &moved);
  /// The split: ask the peer to write the first half of `op` (an RTS
  /// announced splitCapable), if our buffer is shareable.
  void askSplit(RecvOp &op);
  /// After the peer destroyed its communicator: whether what it left behind
  /// completes every pending operation (so its leaving is no error).
  bool leftEnoughToFinish() const;

  int me_;
  Segment *own_;
  std::unique_ptr<Segment> peerSeg_;
  std::unique_ptr<PeerProcess> proc_;
  ShmPairOptions opts_;
  PeerRegionCache cache_;                       ///< read-only: zero-copy reads
  PeerRegionCache teeCache_{/*writable=*/true}; ///< the peer's offered buffers
  /// This rank's one outstanding offer (its next receive from the peer).
  struct Offer {
    bool active = false;
    /// For a receive of the step that carried it: only such an offer
    /// makes a pushCapable RTS a push (the peer settles on that RTS alone;
    /// an older offer still open, for a later receive, is not one).
    bool now = false;
    uint32_t ordinal = 0;
    CallId call;
    const void *dst = nullptr;
    size_t bytes = 0;
  } offer_;
  /// The latest receive whose first slot was seen: an offer for it or an
  /// earlier one may no longer be published (the push's agreement).
  bool started_ = false;
  CallId startedCall_;
  uint32_t startedOrdinal_ = 0;
  /// A message this rank wrote through the peer's offer and has not yet
  /// announced (its send with that call and ordinal posts kSlotDelivered).
  bool delivered_ = false;
  uint32_t deliveredOrdinal_ = 0;
  CallId deliveredCall_;
  uint64_t teesWritten_ = 0, teesReceived_ = 0;
  /// The split: the peer's last ask seen (in_), this rank's last ask (out_).
  uint64_t askSeen_ = 0, askSent_ = 0;
  uint64_t splitsWritten_ = 0, splitsReceived_ = 0;
  RingCtl *out_;         ///< ring me -> peer, in the peer's segment
  RingCtl *in_;          ///< ring peer -> me, in our segment
  uint64_t outHead_ = 0; ///< our copy of out_->head (we are its only writer)
  uint64_t inTail_ = 0;  ///< our copy of in_->tail
  std::deque<SendOp *> sends_;
  std::deque<RecvOp *> recvs_;
  size_t firstUnposted_ =
      0; ///< index into sends_ of the first op not fully posted
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_TRANSPORT_SHM_SHMPAIR_H
