//===- SharedMem.h - memfd mappings shared with peer processes --*- C++ -*-===//
//
// Shared memory without names: a region is an anonymous memfd mapped
// MAP_SHARED. A same-host peer imports it by duplicating the owner's file
// descriptor through a pidfd (pidfd_getfd) and mapping it. Nothing ever
// appears in /dev/shm, and the memory is released when the last process
// unmaps it, even when a process dies.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_SHAREDMEM_H
#define HCCL_RUNTIME_COMMON_SHAREDMEM_H

#include "common/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <sys/types.h>

namespace hccl::rt {

/// A MAP_SHARED mapping of a memfd (owned or imported). Unmaps and closes on
/// destruction.
class SharedMapping {
public:
  /// Creates a zero-filled memfd of `bytes` (rounded up to pages) and maps it.
  static StatusOr<std::unique_ptr<SharedMapping>> create(size_t bytes,
                                                         const char *name);
  /// Maps `bytes` of an already open memfd (takes ownership of fd); an
  /// error when the memory is shorter than `bytes`.
  static StatusOr<std::unique_ptr<SharedMapping>> map(int fd, size_t bytes,
                                                      bool writable);
  /// map() for a memfd imported from a peer: it must also be sealed against
  /// shrinking (create() seals), and the descriptor is closed once mapped
  /// (fd() is then -1).
  static StatusOr<std::unique_ptr<SharedMapping>> mapPeer(int fd, size_t bytes,
                                                          bool writable);
  ~SharedMapping();
  SharedMapping(const SharedMapping &) = delete;
  SharedMapping &operator=(const SharedMapping &) = delete;

  void *base() const { return base_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }

private:
  SharedMapping(int fd, void *base, size_t size)
      : fd_(fd), base_(base), size_(size) {}
  int fd_;
  void *base_;
  size_t size_;
};

/// A handle on a peer process of this host (a pidfd): liveness checks and
/// importing its file descriptors.
class PeerProcess {
public:
  static StatusOr<std::unique_ptr<PeerProcess>> open(pid_t pid);
  ~PeerProcess();
  PeerProcess(const PeerProcess &) = delete;
  PeerProcess &operator=(const PeerProcess &) = delete;

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_; }
  /// False once the process has exited (zombies included).
  bool alive() const;
  /// Duplicates the peer's descriptor `remoteFd` into this process.
  StatusOr<int> importFd(int remoteFd) const;

private:
  PeerProcess(pid_t pid, int pidfd) : pid_(pid), pidfd_(pidfd) {}
  pid_t pid_;
  int pidfd_;
};

size_t pageSize();
inline size_t roundUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_SHAREDMEM_H
