//===- reduce_copy_test.cpp - Copies that avoid memcpy's slow distances ---===//
//
// copyBytes / moveBytes must give exactly what memcpy / memmove give at every
// distance between the two addresses modulo a page (where the vector loop
// takes over and where it does not), for sizes around the loop's 64-byte
// step and the 1 KiB threshold, and moveBytes for overlapping ranges in
// both directions. The rule itself (which pairs avoid memcpy) is checked
// directly: the speed it buys is the benchmark's to show, not a test's.
//
//===----------------------------------------------------------------------===//
#include "reduce/Copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace {

struct PageBuffer {
  // aligned_alloc takes whole multiples of the alignment only.
  explicit PageBuffer(size_t bytes)
      : p(static_cast<unsigned char *>(
            std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096))) {}
  ~PageBuffer() { std::free(p); }
  unsigned char *p;
};

TEST(CopyBytes, MatchesMemcpyAtEveryDistance) {
  constexpr size_t kBytes = 3 * 4096 + 256;
  PageBuffer src(kBytes), dst(kBytes + 2 * 4096);
  std::vector<unsigned char> expect(kBytes + 2 * 4096);
  std::mt19937_64 rng(11);
  for (size_t i = 0; i < kBytes; ++i)
    src.p[i] = static_cast<unsigned char>(rng());
  std::vector<size_t> distances;
  for (size_t d = 0; d <= 130; ++d)
    distances.push_back(d);
  for (size_t d = 4030; d < 4096; ++d)
    distances.push_back(d);
  for (size_t d : distances)
    for (size_t n :
         {size_t(0), size_t(1), size_t(63), size_t(64), size_t(1023),
          size_t(1024), size_t(1025), size_t(4103), size_t(3 * 4096 + 7)}) {
      std::memset(dst.p, 0xAB, kBytes + 2 * 4096);
      std::memcpy(expect.data(), dst.p, expect.size());
      std::memcpy(expect.data() + d, src.p + 5, n);
      // dst - src = d - 5 (mod 4096): both sides of every distance.
      hccl::rt::copyBytes(dst.p + d, src.p + 5, n);
      ASSERT_EQ(0, std::memcmp(dst.p, expect.data(), expect.size()))
          << "distance " << d << ", " << n << " bytes";
    }
}

TEST(CopyBytes, AvoidsMemcpyOnlyAtShortDistancesAheadOfTheSource) {
  PageBuffer src(1 << 17), dst(1 << 17);
  const size_t n = 64 << 10;
  bool x86 = false;
#if defined(__x86_64__)
  x86 = true;
#endif
  // A 64 KiB-aligned slot copied into a malloc'd buffer 16 bytes into a
  // page: the case that ran at a tenth of memcpy's speed.
  EXPECT_EQ(x86, hccl::rt::copyAvoidsMemcpy(dst.p + 16, src.p, n));
  EXPECT_EQ(x86, hccl::rt::copyAvoidsMemcpy(dst.p + 1, src.p, n));
  EXPECT_EQ(x86, hccl::rt::copyAvoidsMemcpy(dst.p + 63, src.p, n));
  EXPECT_FALSE(hccl::rt::copyAvoidsMemcpy(dst.p, src.p, n));
  EXPECT_FALSE(hccl::rt::copyAvoidsMemcpy(dst.p + 64, src.p, n));
  EXPECT_FALSE(hccl::rt::copyAvoidsMemcpy(dst.p, src.p + 16, n));
  // Small copies stay with memcpy, which uses no `rep movsb` for them.
  EXPECT_FALSE(hccl::rt::copyAvoidsMemcpy(dst.p + 16, src.p, 1023));
  // Overlapping ranges are memmove's.
  EXPECT_FALSE(hccl::rt::copyAvoidsMemcpy(src.p + 16, src.p, n));
}

TEST(MoveBytes, MatchesMemmoveForOverlappingRanges) {
  std::mt19937_64 rng(13);
  std::vector<unsigned char> buf(30000), expect;
  for (long shift : {-4097L, -64L, -16L, -1L, 1L, 16L, 63L, 4111L})
    for (size_t n : {size_t(1), size_t(100), size_t(5000), size_t(12000)}) {
      for (auto &c : buf)
        c = static_cast<unsigned char>(rng());
      expect = buf;
      size_t from = 4200;
      size_t to = static_cast<size_t>(static_cast<long>(from) + shift);
      std::memmove(expect.data() + to, expect.data() + from, n);
      hccl::rt::moveBytes(buf.data() + to, buf.data() + from, n);
      ASSERT_EQ(buf, expect) << "shift " << shift << ", " << n << " bytes";
    }
}

} // namespace
