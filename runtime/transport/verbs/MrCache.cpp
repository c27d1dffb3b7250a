//===- MrCache.cpp - Memory registration cache ----------------------------===//
#include "transport/verbs/MrCache.h"

#include <unistd.h>
#include <vector>

namespace hccl::rt::verbs {

MrCache::MrCache(MrRegistrar &reg, size_t pageBytes)
    : reg_(reg),
      page_(pageBytes ? pageBytes
                      : static_cast<size_t>(::sysconf(_SC_PAGESIZE))) {}

MrCache::~MrCache() { clear(); }

MrCache::Handle MrCache::acquire(const void *p, size_t len) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> g(mu_);
  for (auto &kv : entries_) {
    Entry &e = kv.second;
    if (e.valid && a >= e.base && a + len <= e.base + e.len) {
      ++e.refs;
      ++stats_.hits;
      return Handle{e.id, e.lkey, e.tag};
    }
  }
  ++stats_.misses;
  return Handle{};
}

StatusOr<MrCache::Handle> MrCache::insert(const void *p, size_t len,
                                          uint64_t tag, bool pinned) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uintptr_t base = a / page_ * page_;
  uintptr_t end = (a + len + page_ - 1) / page_ * page_;
  if (end == base)
    end = base + page_;
  auto r = reg_.registerSpan(reinterpret_cast<void *>(base), end - base);
  if (!r)
    return r.status();
  std::lock_guard<std::mutex> g(mu_);
  Entry e;
  e.id = nextId_++;
  e.base = base;
  e.len = end - base;
  e.lkey = r->lkey;
  e.mr = r->mr;
  e.tag = tag;
  e.pinned = pinned;
  e.refs = 1 + (pinned ? 1 : 0);
  entries_[e.id] = e;
  ++stats_.registrations;
  return Handle{e.id, e.lkey, e.tag};
}

void MrCache::maybeDropLocked(uint64_t id) {
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.valid || it->second.refs > 0)
    return;
  reg_.deregister(it->second.mr);
  ++stats_.deregistrations;
  entries_.erase(it);
}

void MrCache::release(const Handle &h) {
  if (!h)
    return;
  std::lock_guard<std::mutex> g(mu_);
  auto it = entries_.find(h.id);
  if (it == entries_.end())
    return;
  --it->second.refs;
  maybeDropLocked(h.id);
}

void MrCache::invalidateLocked(Entry &e) {
  if (!e.valid)
    return;
  e.valid = false;
  if (e.pinned) {
    e.pinned = false;
    --e.refs;
  }
}

size_t MrCache::invalidate(const void *p, size_t len) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> g(mu_);
  std::vector<uint64_t> hit;
  for (auto &kv : entries_) {
    Entry &e = kv.second;
    if (e.valid && a < e.base + e.len && e.base < a + (len ? len : 1)) {
      invalidateLocked(e);
      hit.push_back(e.id);
    }
  }
  for (uint64_t id : hit)
    maybeDropLocked(id);
  return hit.size();
}

void MrCache::invalidate(const Handle &h) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = entries_.find(h.id);
  if (it == entries_.end())
    return;
  invalidateLocked(it->second);
  maybeDropLocked(h.id);
}

size_t
MrCache::sweep(const std::function<bool(uint64_t, uintptr_t, size_t)> &alive) {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<uint64_t> dead;
  for (auto &kv : entries_) {
    Entry &e = kv.second;
    if (e.valid && !alive(e.tag, e.base, e.len)) {
      invalidateLocked(e);
      dead.push_back(e.id);
    }
  }
  for (uint64_t id : dead)
    maybeDropLocked(id);
  return dead.size();
}

void MrCache::clear() {
  std::lock_guard<std::mutex> g(mu_);
  for (auto &kv : entries_) {
    reg_.deregister(kv.second.mr);
    ++stats_.deregistrations;
  }
  entries_.clear();
}

MrCache::Stats MrCache::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  Stats s = stats_;
  s.live = entries_.size();
  return s;
}

} // namespace hccl::rt::verbs
