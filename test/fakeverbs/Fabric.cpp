//===- Fabric.cpp - Shared directory, packet rings and doorbells ----------===//
//
// The directory (/dev/shm/hccl-fakeverbs-<fabric>) is zero-filled by
// ftruncate, and zero is the valid empty state, so whoever maps it first
// needs no initialisation step. Entries of processes that died are
// reclaimed when a new claim finds their pid gone.
//
//===----------------------------------------------------------------------===//
#include "FakeVerbs.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace fv {

int64_t monoUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool pidAlive(int pid) {
  if (pid <= 0)
    return false;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

void futexWait(std::atomic<uint32_t> *w, uint32_t expect, int64_t timeoutUs) {
  struct timespec ts;
  ts.tv_sec = timeoutUs / 1000000;
  ts.tv_nsec = (timeoutUs % 1000000) * 1000;
  ::syscall(SYS_futex, reinterpret_cast<uint32_t *>(w), FUTEX_WAIT, expect,
            timeoutUs >= 0 ? &ts : nullptr, nullptr, 0);
}

void futexWake(std::atomic<uint32_t> *w) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t *>(w), FUTEX_WAKE, INT_MAX,
            nullptr, nullptr, 0);
}

//===----------------------------------------------------------------------===//
// Rings
//===----------------------------------------------------------------------===//

static uint64_t pktBytes(uint64_t payload) {
  return sizeof(Pkt) + ((payload + 63) & ~63ull);
}

bool Ring::canPush(uint64_t payload) const {
  uint64_t size = pktBytes(payload);
  uint64_t head = h->head.load(std::memory_order_relaxed);
  uint64_t tail = h->tail.load(std::memory_order_acquire);
  uint64_t toEnd = h->cap - head % h->cap;
  uint64_t need = size + (toEnd < size ? toEnd : 0);
  return h->cap - (head - tail) >= need;
}

bool Ring::canPushOrWait(uint64_t payload, uint32_t mySlot) {
  if (canPush(payload))
    return true;
  h->producerSlot = mySlot;
  h->waiting.store(1, std::memory_order_seq_cst);
  return canPush(payload);
}

void Ring::notifyProducer(Fabric *f) {
  if (h->waiting.load(std::memory_order_seq_cst) != 0 &&
      h->waiting.exchange(0) != 0)
    f->ring(h->producerSlot);
}

char *Ring::begin(const Pkt &p, uint64_t &at) {
  uint64_t size = pktBytes(p.len);
  uint64_t head = h->head.load(std::memory_order_relaxed);
  uint64_t toEnd = h->cap - head % h->cap;
  if (toEnd < size) {
    Pkt pad{};
    pad.type = kPad;
    pad.len = static_cast<uint32_t>(toEnd - sizeof(Pkt));
    std::memcpy(data + head % h->cap, &pad, sizeof(pad));
    head += toEnd;
  }
  char *where = data + head % h->cap;
  std::memcpy(where, &p, sizeof(p));
  at = head + size;
  return where + sizeof(Pkt);
}

void Ring::publish(uint64_t at, const Pkt &) {
  h->head.store(at, std::memory_order_release);
}

const Pkt *Ring::front() {
  for (;;) {
    uint64_t tail = h->tail.load(std::memory_order_relaxed);
    if (tail == h->head.load(std::memory_order_acquire))
      return nullptr;
    const Pkt *p = reinterpret_cast<const Pkt *>(data + tail % h->cap);
    if (p->type != kPad)
      return p;
    h->tail.store(tail + pktBytes(p->len), std::memory_order_release);
  }
}

void Ring::pop() {
  uint64_t tail = h->tail.load(std::memory_order_relaxed);
  const Pkt *p = reinterpret_cast<const Pkt *>(data + tail % h->cap);
  h->tail.store(tail + pktBytes(p->len), std::memory_order_release);
}

//===----------------------------------------------------------------------===//
// Directory
//===----------------------------------------------------------------------===//

Fabric *Fabric::get(const std::string &name, std::string &err) {
  static std::mutex mu;
  // Never destroyed, as gDevices in Api.cpp (LeakSanitizer at exit).
  static auto &open = *new std::map<std::string, Fabric *>;
  std::lock_guard<std::mutex> g(mu);
  auto it = open.find(name);
  if (it != open.end())
    return it->second;
  std::string path = "/hccl-fakeverbs-" + name;
  int fd = ::shm_open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    err = "shm_open(" + path + "): " + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 ||
      (static_cast<size_t>(st.st_size) < sizeof(Directory) &&
       ::ftruncate(fd, sizeof(Directory)) != 0)) {
    err = "sizing " + path + ": " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  void *p = ::mmap(nullptr, sizeof(Directory), PROT_READ | PROT_WRITE,
                   MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    err = "mmap(" + path + "): " + std::strerror(errno);
    return nullptr;
  }
  auto *f = new Fabric();
  f->dir_ = static_cast<Directory *>(p);
  open[name] = f;
  return f;
}

template <typename E> static int claimEntry(E *entries, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t s = entries[i].state.load();
    if (s == 0) {
      uint32_t zero = 0;
      if (entries[i].state.compare_exchange_strong(zero, 1))
        return static_cast<int>(i);
    } else if (s == 2 && !pidAlive(entries[i].pid)) {
      uint32_t two = 2;
      if (entries[i].state.compare_exchange_strong(two, 1))
        return static_cast<int>(i);
    }
  }
  return -1;
}

int Fabric::claimCtx(uint32_t node, const std::vector<GidEnt> &gids) {
  int i = claimEntry(dir_->ctx, kMaxDevEntries);
  if (i < 0)
    return -1;
  CtxEntry &e = dir_->ctx[i];
  e.pid = ::getpid();
  e.node = node;
  e.nGids = static_cast<uint32_t>(std::min<size_t>(gids.size(), kMaxGids));
  for (uint32_t k = 0; k < e.nGids; ++k)
    std::memcpy(e.gids[k], gids[k].raw, 16);
  e.sleeping.store(0);
  e.state.store(2);
  return i;
}

void Fabric::releaseCtx(int slot) {
  if (slot >= 0)
    dir_->ctx[slot].state.store(0);
}

int Fabric::claimQp() { return claimEntry(dir_->qp, kMaxQpEntries); }

void Fabric::releaseQp(int slot) {
  if (slot >= 0)
    dir_->qp[slot].state.store(0);
}

uint32_t Fabric::nodeOfGid(const uint8_t gid[16]) const {
  static const uint8_t zero[16] = {0};
  if (std::memcmp(gid, zero, 16) == 0)
    return 0;
  for (uint32_t i = 0; i < kMaxDevEntries; ++i) {
    const CtxEntry &e = dir_->ctx[i];
    if (e.state.load() != 2 || !pidAlive(e.pid))
      continue;
    for (uint32_t k = 0; k < e.nGids && k < kMaxGids; ++k)
      if (std::memcmp(e.gids[k], gid, 16) == 0)
        return e.node;
  }
  return 0;
}

void Fabric::ring(uint32_t slot) {
  CtxEntry &e = dir_->ctx[slot];
  if (e.sleeping.load(std::memory_order_seq_cst) != 0) {
    e.seq.fetch_add(1, std::memory_order_seq_cst);
    futexWake(&e.seq);
  }
}

} // namespace fv
