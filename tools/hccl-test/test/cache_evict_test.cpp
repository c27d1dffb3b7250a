//===- cache_evict_test.cpp - hccl-test --evict-buffers' eviction ---------===//
//
// Evicting must write dirty lines back, never drop them: a buffer written,
// evicted (whole, in part, from an unaligned start) and read again holds
// what was written. Whether the lines left the caches is a matter of time,
// which tests do not measure; bench/ and docs/performance.md do.
//
//===----------------------------------------------------------------------===//
#include "CacheEvict.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace hccltest;

TEST(CacheEvict, KeepsWhatWasWritten) {
  if (!cacheEvictionSupported())
    GTEST_SKIP() << "no cache eviction on this CPU architecture";
  std::vector<uint32_t> buf(1 << 18); // 1 MiB
  for (size_t i = 0; i < buf.size(); ++i)
    buf[i] = static_cast<uint32_t>(i * 2654435761u);
  evictFromCaches(buf.data(), buf.size() * sizeof(uint32_t));
  // An unaligned start and an odd length: the lines they touch go too.
  evictFromCaches(reinterpret_cast<char *>(buf.data()) + 13, 4099);
  evictFromCaches(buf.data(), 0);
  for (size_t i = 0; i < buf.size(); ++i)
    ASSERT_EQ(buf[i], static_cast<uint32_t>(i * 2654435761u)) << "at " << i;
  // Written again after the eviction: the new values, not stale ones.
  for (size_t i = 0; i < buf.size(); i += 7)
    buf[i] = ~buf[i];
  evictFromCaches(buf.data(), buf.size() * sizeof(uint32_t));
  for (size_t i = 0; i < buf.size(); ++i) {
    uint32_t v = static_cast<uint32_t>(i * 2654435761u);
    ASSERT_EQ(buf[i], i % 7 == 0 ? ~v : v) << "at " << i;
  }
}

// The range ends where it says: a buffer that ends at a page followed by an
// inaccessible one is evicted whole and from an unaligned start without a
// touch of the next page (an eviction there faults, like a load).
TEST(CacheEvict, StaysInsideTheRange) {
  if (!cacheEvictionSupported())
    GTEST_SKIP() << "no cache eviction on this CPU architecture";
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void *m = ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  char *p = static_cast<char *>(m);
  ASSERT_EQ(::mprotect(p + page, page, PROT_NONE), 0);
  std::memset(p, 0x5a, page);
  evictFromCaches(p, page);
  evictFromCaches(p + 13, page - 13);
  evictFromCaches(p + page - 1, 1);
  for (size_t i = 0; i < page; ++i)
    ASSERT_EQ(p[i], 0x5a) << "at " << i;
  ::munmap(m, 2 * page);
}
