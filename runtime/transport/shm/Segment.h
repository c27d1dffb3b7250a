//===- Segment.h - A rank's shared control segment --------------*- C++ -*-===//
//
// Each rank of a communicator owns one memfd segment that its same-host peers
// map read-write:
//
//   header   magic, pid, rank, the rank's doorbell (it sleeps there), the
//            abort record peers fill in when they give up, the "closed" flag
//   ring[j]  the FIFO of messages from rank j to this rank: head (advanced
//            by j), tail (advanced by this rank), slot headers, slot data
//
// Rings are indexed by communicator rank and the memfd is sparse: rings of
// ranks on other hosts are never touched and cost no memory.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_SHM_SEGMENT_H
#define HCCL_RUNTIME_TRANSPORT_SHM_SEGMENT_H

#include "common/Futex.h"
#include "common/SharedMem.h"
#include "transport/Transport.h"
#include "transport/shm/Regions.h"

#include <atomic>
#include <cstdint>
#include <memory>

namespace hccl::rt {

struct SegmentHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t nRings;
  uint32_t nSlots;
  uint32_t slotBytes;
  int32_t pid;
  int32_t rank;
  uint64_t commTag; ///< guards against mapping another communicator's segment
  std::atomic<uint32_t> closed;
  Doorbell bell;
  alignas(64) std::atomic<uint32_t> abortFlag;
  int32_t abortFrom;
  int32_t abortCode;
  char abortMsg[500];
  /// The CPU this rank's executor ran on when it last posted or waited
  /// (-1 before that): a peer that finds it on its own CPU sleeps at once
  /// instead of spinning (core/WaitPolicy.h).
  alignas(64) std::atomic<int32_t> runCpu;
  /// "HCCLSEG2": builds from before the tee's slot fields checked only the
  /// magic, so the layout change is in the magic too.
  static constexpr uint64_t kMagic = 0x4843434c53454732ull;
  /// The slot layout's version: 2 added the tee fields, 3 pushCapable, 4
  /// splitCapable and the ring's split cells.
  static constexpr uint32_t kVersion = 4;
};

/// Slot kinds. kSlotDelivered: the message is already in the receiver's
/// buffer, written there through the receiver's tee offer.
enum : uint32_t { kSlotData = 1, kSlotRts = 2, kSlotDelivered = 3 };

/// Header of one slot (three cache lines).
struct alignas(64) SlotHeader {
  WireHeader w;
  uint32_t kind;
  uint32_t chunkBytes;
  uint64_t chunkOffset;
  RegionRef region; ///< kSlotRts: where the receiver reads the message
  /// kSlotRts with teeOffered: the sender's buffer for its receive with
  /// ordinal teeOrdinal from this receiver (ShmPair.h, "tee").
  RegionRef tee;
  uint32_t teeOrdinal;
  uint32_t teeOffered;
  /// kSlotRts: the sender writes this message into the receiver's offered
  /// buffer itself if the receiver offered one for it (ShmPair.h, "push"),
  /// and then sends a kSlotDelivered slot.
  uint32_t pushCapable;
  /// kSlotRts: the sender has nothing else to do in its step and writes a
  /// part of this message into the receiver's buffer if asked (ShmPair.h,
  /// "The split").
  uint32_t splitCapable;
};
static_assert(sizeof(SlotHeader) <= 192, "slot header size");

/// The split's request: write the first `bytes` of message (call, ordinal)
/// into `dst` (a region of the asking rank), streamed or not.
struct SplitAsk {
  CallId call;
  uint32_t ordinal;
  uint32_t streamed;
  uint64_t bytes;
  RegionRef dst;
};

struct RingCtl {
  alignas(64) std::atomic<uint64_t> head; ///< messages published (sender)
  alignas(64) std::atomic<uint64_t> tail; ///< messages released (receiver)
  /// The split (ShmPair.h), both cells written by this ring's sender only.
  /// askSeq numbers its asks of the segment's owner (`ask` holds the latest,
  /// published by the askSeq store); doneSeq is the latest ask of the
  /// owner's that this ring's sender has written whole.
  alignas(64) std::atomic<uint64_t> askSeq;
  SplitAsk ask;
  alignas(64) std::atomic<uint64_t> doneSeq;
};

/// Geometry shared by all ranks (they must agree; it is in the header).
struct RingGeometry {
  uint32_t nSlots = 16;
  uint32_t slotBytes = 64 * 1024;
  size_t ringBytes() const;
  size_t headerBytes() const;
  size_t segmentBytes(uint32_t nRings) const;
};

/// A mapped segment (own or a peer's).
class Segment {
public:
  static StatusOr<std::unique_ptr<Segment>>
  create(int rank, uint32_t nRings, uint64_t commTag, RingGeometry g);
  /// Maps a peer's segment through its pidfd and validates the header.
  static StatusOr<std::unique_ptr<Segment>>
  import(const PeerProcess &peer, int remoteFd, int expectRank, uint32_t nRings,
         uint64_t commTag, RingGeometry g);

  SegmentHeader *header() const {
    return static_cast<SegmentHeader *>(map_->base());
  }
  int fd() const { return map_->fd(); }
  RingCtl *ctl(int ring) const;
  SlotHeader *slotHeader(int ring, uint64_t slot) const;
  char *slotData(int ring, uint64_t slot) const;
  const RingGeometry &geometry() const { return geo_; }
  /// Writes every page of `ring` through this mapping (a compare-and-swap of
  /// its first word), so that a sender's first writes into a peer's ring
  /// take no page fault. Only the ring's sender may call it.
  void prefaultRing(int ring) const;

private:
  Segment(std::unique_ptr<SharedMapping> m, RingGeometry g)
      : map_(std::move(m)), geo_(g) {}
  char *ringBase(int ring) const;
  std::unique_ptr<SharedMapping> map_;
  RingGeometry geo_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_TRANSPORT_SHM_SEGMENT_H
