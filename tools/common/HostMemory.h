//===- HostMemory.h - The host's memory settings the tools report -*- C++ -*-=//
//
// Whether shared memory can get transparent huge pages. The runtime asks for
// them on every large shared mapping (runtime/common/SharedMem.cpp); the host
// decides. On a VM that shadows page tables, 4 KiB pages of a large span cost
// more than the copies (docs/performance.md, "Huge pages for shared memory"),
// so hccl-run says when a span gets them. tools/calibrate/host_memory.py
// reads the same for the Python tools. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMON_HOSTMEMORY_H
#define HCCL_TOOLS_COMMON_HOSTMEMORY_H

#include <string>

namespace hccl::tools {

/// The sysfs directory of transparent huge pages (tests pass another).
inline constexpr const char *kThpDir = "/sys/kernel/mm/transparent_hugepage";

/// The file whose mode decides for PMD-sized (2 MiB on x86-64) shared-
/// memory pages: that size's own shmem_enabled (Linux 6.11+) unless it says
/// "inherit", else the top-level shmem_enabled; "" where neither can be
/// read (a kernel without transparent huge pages).
std::string shmemHugePageFile(const std::string &thpDir = kThpDir);

/// The bracketed mode of shmemHugePageFile(), "" where it has none.
std::string shmemHugePageMode(const std::string &thpDir = kThpDir);

/// Whether shared memory that asks for huge pages (MADV_HUGEPAGE) gets them
/// under `mode`.
bool shmemHugePagesAllowed(const std::string &mode);

/// What to tell a user whose shared memory gets 4 KiB pages: the deciding
/// file, its mode and how to change it, or that the kernel has none.
std::string shmemHugePageAdvice(const std::string &thpDir = kThpDir);

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMON_HOSTMEMORY_H
