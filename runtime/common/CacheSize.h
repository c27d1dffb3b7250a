//===- CacheSize.h - The host's last-level cache, from sysfs ----*- C++ -*-===//
//
// A call whose outputs outgrow the last-level cache gains nothing from
// writing them with plain stores: they are evicted before its caller reads
// them, and on the way they evict the inputs the call still reads. Measured
// on the 2-core EPYC VM (32 MiB L3): 2-rank all-reduces of 24-64 MB took
// 0.75-0.92x the time with this rank's own output streamed too, 16 MB
// 1.08x (docs/performance.md, "Outputs past the cache").
//
// sysfs, not sysconf: glibc's _SC_LEVEL3_CACHE_SIZE said 320 MiB on that
// VM, whose sysfs and lscpu say 32 MiB.
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

/// The last-level cache of all of this host's cores together: the
/// highest-level data or unified cache of cpu0 under `cpuDir` (sysfs's
/// /sys/devices/system/cpu), times the instances the host's `cores` need
/// (cores over the CPUs that share one). 0 when sysfs says nothing usable.
size_t lastLevelCacheIn(const std::string &cpuDir, int cores);
/// lastLevelCacheIn(/sys/devices/system/cpu, hostCores()), read once.
size_t lastLevelCacheBytes();

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_CACHESIZE_H
