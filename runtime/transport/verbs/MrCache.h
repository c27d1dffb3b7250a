//===- MrCache.h - Memory registration cache --------------------*- C++ -*-===//
//
// Registering memory (ibv_reg_mr) pins pages and costs tens of microseconds
// per call, so buffers are registered once and sent zero-copy afterwards.
// Entries cover whole pages (the span is widened to page boundaries), are
// reference counted (a send holds its entry until the adapter completed
// it), and are invalidated when their memory goes away: HcclCommDeregister,
// HcclMemFree / a scratch buffer replaced (found by sweep() or by the
// caller's tag check at lookup). An invalidated entry is deregistered as
// soon as no send holds it any more.
//
// Only memory with a known lifetime is registered (runtime regions and
// ranges the user registered): pinning an arbitrary malloc'd buffer would
// keep stale pages behind an address that free() may hand out again.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_MRCACHE_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_MRCACHE_H

#include "common/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace hccl::rt::verbs {

/// Performs the registrations (ibv_reg_mr / ibv_dereg_mr; a counting fake
/// in unit tests).
class MrRegistrar {
public:
  virtual ~MrRegistrar() = default;
  struct Reg {
    void *mr = nullptr;
    uint32_t lkey = 0;
  };
  virtual StatusOr<Reg> registerSpan(void *base, size_t len) = 0;
  virtual void deregister(void *mr) = 0;
};

class MrCache {
public:
  explicit MrCache(MrRegistrar &reg, size_t pageBytes = 0);
  ~MrCache();
  MrCache(const MrCache &) = delete;
  MrCache &operator=(const MrCache &) = delete;

  struct Handle {
    uint64_t id = 0; ///< 0: none
    uint32_t lkey = 0;
    uint64_t tag = 0; ///< owner tag given at insert (a region id, ...)
    explicit operator bool() const { return id != 0; }
  };
  struct Stats {
    uint64_t hits = 0, misses = 0, registrations = 0, deregistrations = 0;
    size_t live = 0; ///< registered entries
  };

  /// A valid entry covering [p, p+len), referenced (release() it), or an
  /// empty handle (a miss).
  Handle acquire(const void *p, size_t len);
  /// Registers the page span of [p, p+len) and returns it referenced.
  /// `pinned`: the entry holds one extra reference of its own until it is
  /// invalidated (HcclCommRegister ranges).
  StatusOr<Handle> insert(const void *p, size_t len, uint64_t tag, bool pinned);
  void release(const Handle &h);
  /// Invalidates every entry overlapping [p, p+len); returns how many.
  size_t invalidate(const void *p, size_t len);
  /// Invalidates one entry (its owner went away).
  void invalidate(const Handle &h);
  /// Invalidates the entries for which `alive(tag, base, len)` is false.
  size_t sweep(const std::function<bool(uint64_t tag, uintptr_t base,
                                        size_t len)> &alive);
  /// Deregisters everything (transport shutdown; no send may be in flight).
  void clear();

  Stats stats() const;
  size_t pageBytes() const { return page_; }

private:
  struct Entry {
    uint64_t id = 0;
    uintptr_t base = 0;
    size_t len = 0;
    uint32_t lkey = 0;
    void *mr = nullptr;
    uint64_t tag = 0;
    int refs = 0;
    bool pinned = false;
    bool valid = true;
  };
  void invalidateLocked(Entry &e);
  void maybeDropLocked(uint64_t id);

  MrRegistrar &reg_;
  size_t page_;
  mutable std::mutex mu_;
  std::map<uint64_t, Entry> entries_; ///< by id
  uint64_t nextId_ = 1;
  Stats stats_;
};

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_MRCACHE_H
