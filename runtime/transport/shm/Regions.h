//===- Regions.h - Process-wide registry of shareable memory ----*- C++ -*-===//
//
// Memory a same-host peer may read directly: buffers from HcclMemAlloc and
// the executor's scratch buffers. Each region is a memfd mapping whose first
// page is a small header (id, "freed" flag); peers import the memfd through
// a pidfd and cache the mapping until the header says it was freed.
//
// The shm transport asks find() whether a send's source lies inside a region;
// if so the receiver pulls the data itself (zero-copy), otherwise the bytes
// go through the pair's FIFO (single copy).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_SHM_REGIONS_H
#define HCCL_RUNTIME_TRANSPORT_SHM_REGIONS_H

#include "common/SharedMem.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace hccl::rt {

/// First page of every shareable region.
struct RegionHeader {
  uint64_t magic;
  uint64_t id;
  std::atomic<uint32_t> freed;
  static constexpr uint64_t kMagic = 0x4843434c52454731ull; // "HCCLREG1"
};

/// Where a pointer lives, as a peer needs to know it.
struct RegionRef {
  uint64_t id = 0;
  int32_t fd = -1;       ///< descriptor number in the owner process
  uint64_t mapBytes = 0; ///< whole mapping, header page included
  uint64_t offset = 0;   ///< of the pointer from the mapping's start
};

/// A region owned by this process. Unregisters and marks itself freed on
/// destruction.
class Region {
public:
  ~Region();
  void *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  uint64_t id() const { return header()->id; }

private:
  friend class RegionRegistry;
  Region(std::unique_ptr<SharedMapping> m, size_t bytes);
  RegionHeader *header() const {
    return static_cast<RegionHeader *>(map_->base());
  }
  std::unique_ptr<SharedMapping> map_;
  void *data_;
  size_t bytes_;
};

class RegionRegistry {
public:
  static RegionRegistry &instance();

  /// A new zeroed region of at least `bytes` usable bytes, registered.
  StatusOr<std::unique_ptr<Region>> create(size_t bytes);

  /// HcclMemAlloc / HcclMemFree: regions owned by the registry itself.
  StatusOr<void *> userAlloc(size_t bytes);
  Status userFree(void *p);

  /// True (and fills `ref`) when [p, p+len) lies inside one live region.
  bool find(const void *p, size_t len, RegionRef &ref) const;

private:
  friend class Region;
  void add(Region *r);
  void remove(Region *r);

  mutable std::mutex mu_;
  std::map<uintptr_t, Region *> byStart_; // data start -> region
  std::map<void *, std::unique_ptr<Region>> user_;
  std::atomic<uint64_t> nextId_{1};
};

/// A peer's regions as this process maps them (one cache per peer process):
/// read-only for the zero-copy reads, writable for the destinations a peer
/// offers (ShmPair's tee).
class PeerRegionCache {
public:
  explicit PeerRegionCache(bool writable = false) : writable_(writable) {}
  /// Maps (or reuses) the peer region; returns the address of `ref.offset`.
  /// `ref` comes from the peer: [offset, offset + bytes) must lie in the
  /// region's data (after its header page) or this is an error.
  StatusOr<char *> resolve(const class PeerProcess &peer, const RegionRef &ref,
                           size_t bytes);
  void clear() { maps_.clear(); }
  size_t size() const { return maps_.size(); }

private:
  void sweepFreed();
  bool writable_;
  std::map<uint64_t, std::unique_ptr<SharedMapping>> maps_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_TRANSPORT_SHM_REGIONS_H
