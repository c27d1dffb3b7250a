//===- HostMemory.h - The host's memory settings the tools report -*- C++ -*-=//
//
// Whether shared memory can get transparent huge pages. The runtime asks for
// them on every large shared mapping (runtime/common/SharedMem.cpp); the host
// decides. On a VM that shadows page tables, 4 KiB pages of a large span cost
// more than the copies (docs/performance.md, "Huge pages for shared memory"),
// so hccl-run says when a span gets them. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMON_HOSTMEMORY_H
#define HCCL_TOOLS_COMMON_HOSTMEMORY_H

#include <string>

namespace hccl::tools {

/// The file that holds the setting.
extern const char *const kShmemHugePath;

/// The bracketed mode of kShmemHugePath ("never", "advise", ...), or "" where
/// it cannot be read (a kernel without transparent huge pages).
std::string shmemHugePageMode();

/// Whether shared memory that asks for huge pages (MADV_HUGEPAGE) gets them
/// under `mode`.
bool shmemHugePagesAllowed(const std::string &mode);

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMON_HOSTMEMORY_H
