//===- Nontemporal.cpp - Copies and reductions that bypass the cache ------===//
//
// Reductions go block by block through an L1-resident buffer: the kernels
// stay the ones reduce() uses (one source of truth for every type and
// operator), and only the final store of each block streams. A block is
// reduced completely before any of it is stored, so dst may alias a source.
//
//===----------------------------------------------------------------------===//
#include "reduce/Nontemporal.h"
#include "reduce/Reduce.h"
#include "reduce/VectorCopy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace hccl::rt {
namespace {

// 4 KiB: a block and its sources stay in L1.
constexpr size_t kBlockBytes = 4096;

#if defined(__x86_64__)
// Streams whole 16-byte units; the unaligned head and the tail take plain
// stores (a partial line would gain nothing and movntdq needs alignment).
void stream(char *dst, const char *src, size_t bytes) {
  size_t head = (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15;
  head = std::min(head, bytes);
  std::memcpy(dst, src, head);
  size_t i = head + detail::copy64<true>(dst + head, src + head, bytes - head);
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(
        reinterpret_cast<__m128i *>(dst + i),
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
  std::memcpy(dst + i, src + i, bytes - i);
}
void fence() { _mm_sfence(); }
#else
void stream(char *dst, const char *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void fence() {}
#endif

} // namespace

bool nontemporalStoresAvailable() {
#if defined(__x86_64__)
  return true;
#else
  return false;
#endif
}

void copyNontemporal(void *dst, const void *src, size_t bytes) {
  if (bytes == 0 || dst == src)
    return;
  stream(static_cast<char *>(dst), static_cast<const char *>(src), bytes);
  fence();
}

bool reduceManyNontemporal(void *dst, const void *const *srcs, int k,
                           size_t count, sched::DataType type,
                           sched::ReduceOp op) {
  size_t es = sched::dataTypeSize(type);
  if (k > 64) // rare (star programs over > 64 ranks): plain stores
    return reduceMany(dst, srcs, k, count, type, op);
  if (k < 1 || es == 0 || !isValidReduction(type, op))
    return false;
  alignas(64) char block[kBlockBytes];
  const size_t per = kBlockBytes / es;
  const void *at[64];
  for (size_t base = 0; base < count; base += per) {
    size_t m = std::min(per, count - base);
    for (int j = 0; j < k; ++j)
      at[j] = static_cast<const char *>(srcs[j]) + base * es;
    if (!reduceMany(block, at, k, m, type, op))
      return false;
    stream(static_cast<char *>(dst) + base * es, block, m * es);
  }
  fence();
  return true;
}

} // namespace hccl::rt
