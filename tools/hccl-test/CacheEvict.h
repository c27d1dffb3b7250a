//===- CacheEvict.h - Evicting a buffer from the CPU caches -----*- C++ -*-===//
//
// hccl-test --evict-buffers: each rank writes its buffers' dirty lines back
// and drops them from every cache level before a timed call, so the call
// reads its data from memory while everything else stays as warm as it was.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_HCCL_TEST_CACHEEVICT_H
#define HCCL_TOOLS_HCCL_TEST_CACHEEVICT_H

#include <cstddef>

namespace hccltest {

/// Whether evictFromCaches does anything on this CPU architecture.
bool cacheEvictionSupported();

/// Writes back and invalidates every cache line of [p, p + bytes) in the
/// whole coherence domain (x86-64 clflush, AArch64 dc civac), and waits
/// until that is done.
void evictFromCaches(const void *p, size_t bytes);

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_CACHEEVICT_H
