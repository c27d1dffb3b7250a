//===- CacheEvict.cpp - Evicting a buffer from the CPU caches -------------===//
#include "CacheEvict.h"

#include <cstdint>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hccltest {
namespace {

// The smallest line the instructions act on: a step of it reaches every
// line (a larger real line is only flushed more than once).
size_t lineBytes() {
#if defined(__aarch64__)
  // CTR_EL0.DminLine: log2 of the words in the smallest data cache line.
  uint64_t ctr;
  asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
  return size_t{4} << ((ctr >> 16) & 0xf);
#else
  long l = ::sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  return l >= 16 && l <= 4096 ? static_cast<size_t>(l) : 64;
#endif
}

} // namespace

bool cacheEvictionSupported() {
#if defined(__x86_64__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

void evictFromCaches(const void *p, size_t bytes) {
  if (bytes == 0)
    return;
  static const size_t line = lineBytes();
  uintptr_t a = reinterpret_cast<uintptr_t>(p) & ~(uintptr_t{line} - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
#if defined(__x86_64__)
  for (; a < end; a += line)
    _mm_clflush(reinterpret_cast<const void *>(a));
  _mm_mfence(); // clflush is ordered by mfence, not by plain loads
#elif defined(__aarch64__)
  for (; a < end; a += line)
    asm volatile("dc civac, %0" : : "r"(a) : "memory");
  asm volatile("dsb ish" : : : "memory");
#else
  (void)a;
  (void)end;
#endif
}

} // namespace hccltest
