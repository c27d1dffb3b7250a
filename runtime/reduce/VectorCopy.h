//===- VectorCopy.h - The 64-byte SSE2 copy loop (internal) -----*- C++ -*-===//
//
// One loop for reduce/'s two hand-written copies: copyBytes (plain stores,
// Copy.cpp) and copyNontemporal (streaming stores, Nontemporal.cpp). x86-64
// only; SSE2 is in every x86-64 CPU.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_REDUCE_VECTORCOPY_H
#define HCCL_RUNTIME_REDUCE_VECTORCOPY_H

#if defined(__x86_64__)
#include <cstddef>
#include <emmintrin.h>

namespace hccl::rt::detail {

/// Copies the whole 64-byte units at the front of [src, src + bytes) to dst
/// with four 16-byte moves each; returns how many bytes it copied. With
/// kStream the stores are non-temporal, which needs dst 16-byte aligned.
template <bool kStream>
inline size_t copy64(char *dst, const char *src, size_t bytes) {
  size_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    __m128i v[4];
    for (int k = 0; k < 4; ++k)
      v[k] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i) + k);
    for (int k = 0; k < 4; ++k) {
      auto *d = reinterpret_cast<__m128i *>(dst + i) + k;
      if constexpr (kStream)
        _mm_stream_si128(d, v[k]);
      else
        _mm_storeu_si128(d, v[k]);
    }
  }
  return i;
}

} // namespace hccl::rt::detail

#endif // __x86_64__
#endif // HCCL_RUNTIME_REDUCE_VECTORCOPY_H
