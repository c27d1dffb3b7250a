//===- Segment.cpp - A rank's shared control segment ----------------------===//
#include "transport/shm/Segment.h"

#include <cstring>
#include <new>
#include <unistd.h>

namespace hccl::rt {

// Ring layout: RingCtl (2 lines), slot headers, then page-aligned slot data.
size_t RingGeometry::headerBytes() const {
  return roundUp(sizeof(RingCtl) + size_t(nSlots) * sizeof(SlotHeader),
                 pageSize());
}
size_t RingGeometry::ringBytes() const {
  return headerBytes() + size_t(nSlots) * roundUp(slotBytes, pageSize());
}
size_t RingGeometry::segmentBytes(uint32_t nRings) const {
  return roundUp(sizeof(SegmentHeader), pageSize()) +
         size_t(nRings) * ringBytes();
}

StatusOr<std::unique_ptr<Segment>>
Segment::create(int rank, uint32_t nRings, uint64_t commTag, RingGeometry g) {
  auto m = SharedMapping::create(g.segmentBytes(nRings), "hccl-segment");
  if (!m)
    return m.status();
  // Write every page now (the memfd is zero already). The rings' slots are
  // otherwise first written one call at a time, and a first write to a page
  // is a page fault, in the guest and, on a VM, in the hypervisor: a 2-rank
  // barrier took 30-60 us a call instead of 1-2 until each ring had wrapped
  // once (docs/performance.md, "First writes"). The senders' mappings of
  // the same pages fault on their own: ShmPair calls prefaultRing.
  std::memset(m->get()->base(), 0, m->get()->size());
  auto *h = new (m->get()->base()) SegmentHeader();
  h->magic = SegmentHeader::kMagic;
  h->version = SegmentHeader::kVersion;
  h->nRings = nRings;
  h->nSlots = g.nSlots;
  h->slotBytes = g.slotBytes;
  h->pid = static_cast<int32_t>(::getpid());
  h->rank = rank;
  h->commTag = commTag;
  h->runCpu.store(-1, std::memory_order_relaxed);
  return std::unique_ptr<Segment>(new Segment(m.take(), g));
}

StatusOr<std::unique_ptr<Segment>>
Segment::import(const PeerProcess &peer, int remoteFd, int expectRank,
                uint32_t nRings, uint64_t commTag, RingGeometry g) {
  auto fd = peer.importFd(remoteFd);
  if (!fd)
    return fd.status();
  auto m = SharedMapping::mapPeer(*fd, g.segmentBytes(nRings), true);
  if (!m)
    return m.status();
  auto *h = static_cast<SegmentHeader *>(m->get()->base());
  if (h->magic != SegmentHeader::kMagic ||
      h->version != SegmentHeader::kVersion || h->rank != expectRank ||
      h->commTag != commTag || h->nRings != nRings || h->nSlots != g.nSlots ||
      h->slotBytes != g.slotBytes || h->pid != peer.pid())
    return Status(HCCL_E_INTERNAL, "shared segment of rank " +
                                       std::to_string(expectRank) + " (pid " +
                                       std::to_string(peer.pid()) +
                                       ") does not match this communicator");
  return std::unique_ptr<Segment>(new Segment(m.take(), g));
}

char *Segment::ringBase(int ring) const {
  return static_cast<char *>(map_->base()) +
         roundUp(sizeof(SegmentHeader), pageSize()) +
         size_t(ring) * geo_.ringBytes();
}

RingCtl *Segment::ctl(int ring) const {
  return reinterpret_cast<RingCtl *>(ringBase(ring));
}

void Segment::prefaultRing(int ring) const {
  // A compare-and-swap of each page's first word with itself: atomic, so a
  // word the receiver also writes (the ring's tail shares the first page)
  // loses nothing, and a write, which an atomic add of 0 is not once clang
  // has turned it into a load.
  char *base = ringBase(ring);
  for (size_t off = 0; off < geo_.ringBytes(); off += pageSize()) {
    auto *word = reinterpret_cast<uint64_t *>(base + off);
    uint64_t v = __atomic_load_n(word, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(word, &v, v, /*weak=*/false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
}

SlotHeader *Segment::slotHeader(int ring, uint64_t slot) const {
  return reinterpret_cast<SlotHeader *>(ringBase(ring) + sizeof(RingCtl)) +
         (slot % geo_.nSlots);
}

char *Segment::slotData(int ring, uint64_t slot) const {
  return ringBase(ring) + geo_.headerBytes() +
         (slot % geo_.nSlots) * roundUp(geo_.slotBytes, pageSize());
}

} // namespace hccl::rt
