//===- SharedMem.cpp - memfd mappings shared with peer processes ----------===//
#include "common/SharedMem.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1U
#endif

namespace hccl::rt {

namespace {

// Large mappings ask for transparent huge pages. Where the host allows them
// for shared memory (/sys/kernel/mm/transparent_hugepage/shmem_enabled at
// "advise"), a 2 MiB page takes one page-table entry where 4 KiB pages take
// 512. On a VM that shadows the guest's page tables (PVM) the 4 KiB pages of
// a collective's buffers cost more than the copies: resnet18-host's exposed
// communication at 2 ranks went from about 40 ms to under 2 ms
// (docs/performance.md, "Huge pages for shared memory"). Only a hint: where
// the host refuses (shmem_enabled "never", or no THP in the kernel) the
// mapping keeps 4 KiB pages and works the same.
void adviseHugePages(void *p, size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  if (bytes >= kHugePage)
    (void)::madvise(p, bytes, MADV_HUGEPAGE);
}

} // namespace

size_t pageSize() {
  static const size_t ps = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return ps;
}

StatusOr<std::unique_ptr<SharedMapping>>
SharedMapping::create(size_t bytes, const char *name) {
  size_t size = roundUp(bytes == 0 ? 1 : bytes, pageSize());
  int fd = static_cast<int>(
      ::syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd < 0)
    return errSyscall("memfd_create", errno);
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    int e = errno;
    ::close(fd);
    return Status(HCCL_E_MEMORY,
                  "cannot size shared memory of " + std::to_string(size) +
                      " bytes: " + errSyscall("ftruncate", e).message());
  }
  // Its size is final: a peer that maps it may rely on every page existing
  // (mapPeer requires this seal).
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) !=
      0) {
    int e = errno;
    ::close(fd);
    return errSyscall("sealing shared memory (fcntl F_ADD_SEALS)", e);
  }
  return map(fd, size, true);
}

StatusOr<std::unique_ptr<SharedMapping>>
SharedMapping::mapPeer(int fd, size_t bytes, bool writable) {
  // The size comes from a peer: pages past the memory's end would fault
  // with SIGBUS when touched, so the memory must be sealed against
  // shrinking (a later ftruncate by the peer fails) and at least as long as
  // the mapping (map() checks).
  int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
    ::close(fd);
    return Status(HCCL_E_MEMORY, "cannot map a peer's shared memory: it is "
                                 "not sealed against shrinking");
  }
  auto m = map(fd, bytes, writable);
  if (m) {
    // The mapping holds the memory; the descriptor is not needed again.
    ::close(m->get()->fd_);
    m->get()->fd_ = -1;
  }
  return m;
}

StatusOr<std::unique_ptr<SharedMapping>>
SharedMapping::map(int fd, size_t bytes, bool writable) {
  // A mapping longer than the memory would fault with SIGBUS when its last
  // pages are touched: an error here, not a crash later.
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status(HCCL_E_MEMORY, "cannot map shared memory: " +
                                     errSyscall("fstat", e).message());
  }
  if (st.st_size < 0 || static_cast<uint64_t>(st.st_size) < bytes) {
    ::close(fd);
    return Status(HCCL_E_MEMORY, "cannot map " + std::to_string(bytes) +
                                     " bytes of shared memory: it has " +
                                     std::to_string(st.st_size));
  }
  int prot = PROT_READ | (writable ? PROT_WRITE : 0);
  void *p = ::mmap(nullptr, bytes, prot, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    ::close(fd);
    return Status(HCCL_E_MEMORY, "cannot map " + std::to_string(bytes) +
                                     " bytes of shared memory: " +
                                     errSyscall("mmap", e).message());
  }
  adviseHugePages(p, bytes);
  return std::unique_ptr<SharedMapping>(new SharedMapping(fd, p, bytes));
}

SharedMapping::~SharedMapping() {
  ::munmap(base_, size_);
  if (fd_ >= 0)
    ::close(fd_);
}

StatusOr<std::unique_ptr<PeerProcess>> PeerProcess::open(pid_t pid) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0)
    return errSyscall("pidfd_open(" + std::to_string(pid) + ")", errno);
  return std::unique_ptr<PeerProcess>(new PeerProcess(pid, fd));
}

PeerProcess::~PeerProcess() { ::close(pidfd_); }

bool PeerProcess::alive() const {
  // A pidfd polls readable once the process has terminated.
  struct pollfd p = {pidfd_, POLLIN, 0};
  int rc = ::poll(&p, 1, 0);
  return !(rc > 0 && (p.revents & (POLLIN | POLLHUP)));
}

StatusOr<int> PeerProcess::importFd(int remoteFd) const {
  int fd = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd_, remoteFd, 0));
  if (fd < 0)
    return errSyscall("pidfd_getfd(pid " + std::to_string(pid_) + ", fd " +
                          std::to_string(remoteFd) + ")",
                      errno);
  return fd;
}

} // namespace hccl::rt
