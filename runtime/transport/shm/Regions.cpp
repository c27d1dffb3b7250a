//===- Regions.cpp - Process-wide registry of shareable memory -----------===//
#include "transport/shm/Regions.h"

#include <new>

namespace hccl::rt {

Region::Region(std::unique_ptr<SharedMapping> m, size_t bytes)
    : map_(std::move(m)), bytes_(bytes) {
  data_ = static_cast<char *>(map_->base()) + pageSize();
}

Region::~Region() {
  RegionRegistry::instance().remove(this);
  // Peers that cached a mapping drop it when they see the flag.
  header()->freed.store(1, std::memory_order_release);
}

RegionRegistry &RegionRegistry::instance() {
  // Never destroyed: regions may outlive static destruction order.
  static RegionRegistry *r = new RegionRegistry();
  return *r;
}

StatusOr<std::unique_ptr<Region>> RegionRegistry::create(size_t bytes) {
  size_t usable = roundUp(bytes == 0 ? 1 : bytes, pageSize());
  auto m = SharedMapping::create(usable + pageSize(), "hccl-region");
  if (!m)
    return m.status();
  auto *h = static_cast<RegionHeader *>(m->get()->base());
  new (h) RegionHeader();
  h->magic = RegionHeader::kMagic;
  h->id = nextId_.fetch_add(1);
  h->freed.store(0);
  std::unique_ptr<Region> r(new Region(m.take(), usable));
  add(r.get());
  return r;
}

StatusOr<void *> RegionRegistry::userAlloc(size_t bytes) {
  auto r = create(bytes);
  if (!r)
    return r.status();
  void *p = r->get()->data();
  std::lock_guard<std::mutex> g(mu_);
  user_[p] = r.take();
  return p;
}

Status RegionRegistry::userFree(void *p) {
  std::unique_ptr<Region> r;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = user_.find(p);
    if (it == user_.end())
      return errPara("HcclMemFree: pointer was not returned by HcclMemAlloc "
                     "(or is freed)");
    r = std::move(it->second);
    user_.erase(it);
  }
  r.reset(); // outside the lock: ~Region takes it
  return Status::ok();
}

void RegionRegistry::add(Region *r) {
  std::lock_guard<std::mutex> g(mu_);
  byStart_[reinterpret_cast<uintptr_t>(r->data())] = r;
}

void RegionRegistry::remove(Region *r) {
  std::lock_guard<std::mutex> g(mu_);
  byStart_.erase(reinterpret_cast<uintptr_t>(r->data()));
}

bool RegionRegistry::find(const void *p, size_t len, RegionRef &ref) const {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> g(mu_);
  auto it = byStart_.upper_bound(a);
  if (it == byStart_.begin())
    return false;
  --it;
  Region *r = it->second;
  uintptr_t start = it->first;
  if (a + len > start + r->bytes() || a + len < a)
    return false;
  ref.id = r->id();
  ref.fd = r->map_->fd();
  ref.mapBytes = r->map_->size();
  ref.offset = pageSize() + (a - start);
  return true;
}

void PeerRegionCache::sweepFreed() {
  for (auto it = maps_.begin(); it != maps_.end();) {
    auto *h = static_cast<const RegionHeader *>(it->second->base());
    if (h->freed.load(std::memory_order_acquire))
      it = maps_.erase(it);
    else
      ++it;
  }
}

StatusOr<char *> PeerRegionCache::resolve(const PeerProcess &peer,
                                          const RegionRef &ref, size_t bytes) {
  auto it = maps_.find(ref.id);
  if (it == maps_.end() || it->second->size() < ref.mapBytes) {
    sweepFreed();
    if (ref.mapBytes < sizeof(RegionHeader))
      return Status(HCCL_E_INTERNAL,
                    "peer pid " + std::to_string(peer.pid()) +
                        ": shared region " + std::to_string(ref.id) +
                        " claims " + std::to_string(ref.mapBytes) + " bytes");
    auto fd = peer.importFd(ref.fd);
    if (!fd)
      return fd.status();
    auto m = SharedMapping::mapPeer(*fd, ref.mapBytes, writable_);
    if (!m)
      return m.status();
    auto *h = static_cast<const RegionHeader *>(m->get()->base());
    // The descriptor number may have been reused by the owner: check identity.
    if (h->magic != RegionHeader::kMagic || h->id != ref.id)
      return Status(HCCL_E_INTERNAL, "peer pid " + std::to_string(peer.pid()) +
                                         ": shared region " +
                                         std::to_string(ref.id) +
                                         " is gone (freed while in use?)");
    it = maps_.insert_or_assign(ref.id, m.take()).first;
  }
  size_t size = it->second->size();
  if (ref.offset < pageSize() || ref.offset > size || bytes > size - ref.offset)
    return Status(HCCL_E_INTERNAL,
                  "peer region " + std::to_string(ref.id) + ": bytes [" +
                      std::to_string(ref.offset) + ", +" +
                      std::to_string(bytes) + ") are outside its " +
                      std::to_string(size) + "-byte mapping");
  return static_cast<char *>(it->second->base()) + ref.offset;
}

} // namespace hccl::rt
