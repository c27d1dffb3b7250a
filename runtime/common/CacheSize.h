//===- CacheSize.h - The last-level cache, from sysfs -----------*- C++ -*-===//
//
// A call whose outputs outgrow the last-level cache gains nothing from
// writing them with plain stores: they are evicted before its caller reads
// them, and on the way they evict the inputs the call still reads
// (docs/performance.md, "Outputs past the cache").
//
// sysfs, not sysconf: glibc's _SC_LEVEL3_CACHE_SIZE said 320 MiB on the
// 2-core VM whose sysfs and lscpu say 32 MiB.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_CACHESIZE_H
#define HCCL_RUNTIME_COMMON_CACHESIZE_H

#include <cstddef>
#include <string>

namespace hccl::rt {

/// Bytes of a sysfs cache `size` ("32768K", "1M", "512"); 0 if malformed.
size_t cacheSizeOf(const std::string &text);
/// CPUs in a sysfs cpu list ("0-3,8,10-11" is 7); 0 if malformed.
int cpuListCount(const std::string &text);

/// One instance of cpu0's last-level cache: its highest data or unified
/// cache of level 3 or more (an L2 is no last level worth the name: a host
/// that shows none says nothing usable), and the CPUs sharing it (0 when
/// unreadable). bytes 0: none.
struct LastLevelCache {
  size_t bytes = 0;
  int sharing = 0;
};
/// Read from `cpuDir` (sysfs's /sys/devices/system/cpu).
LastLevelCache lastLevelCacheIn(const std::string &cpuDir);

/// One rank's share when `localRanks` ranks run on `cpus` CPUs: the
/// instances those CPUs reach, at most one per rank, over the ranks
/// (two ranks under one 32 MiB L3: 16 MiB each; under two: 32 MiB). 0
/// when there is no cache or the product overflows.
size_t cacheSharePerRank(const LastLevelCache &llc, int cpus, int localRanks);
/// The same from sysfs (read once) and this process's CPU affinity.
size_t cacheSharePerRank(int localRanks);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_CACHESIZE_H
