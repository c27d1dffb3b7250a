//===- VectorCopy.h - The 64-byte SSE2 copy loop (internal) -----*- C++ -*-===//
//
// One loop for reduce/'s hand-written copies: copyBytes (plain stores,
// Copy.cpp), copyNontemporal and copyTee (streaming stores,
// Nontemporal.cpp) and the baseline kernels' streamed reductions
// (KernelsGeneric.cpp). SSE2 is in
// every x86-64 CPU; elsewhere streamBytes is memcpy.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_REDUCE_VECTORCOPY_H
#define HCCL_RUNTIME_REDUCE_VECTORCOPY_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace hccl::rt::detail {

#if defined(__x86_64__)

/// Copies the whole 64-byte units at the front of [src, src + bytes) to dst
/// with four 16-byte moves each; returns how many bytes it copied. With
/// kStream dst's stores are non-temporal, which needs dst 16-byte aligned.
/// With kTee the units also go to `streamDst` (16-byte aligned), streamed,
/// from the same registers.
template <bool kStream, bool kTee = false>
inline size_t copy64(char *dst, const char *src, size_t bytes,
                     char *streamDst = nullptr) {
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
      if constexpr (kTee)
        _mm_stream_si128(reinterpret_cast<__m128i *>(streamDst + i) + k, v[k]);
    }
  }
  return i;
}
#endif // __x86_64__

/// memcpy(dst, src, bytes) with non-temporal stores for the 16-byte units of
/// dst (no fence: the caller fences once after its last one). The unaligned
/// head and the tail take plain stores: a partial line gains nothing, and
/// movntdq needs alignment. No overlap.
inline void streamBytes(char *dst, const char *src, size_t bytes) {
#if defined(__x86_64__)
  size_t head = (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15;
  head = std::min(head, bytes);
  std::memcpy(dst, src, head);
  size_t i = head + copy64<true>(dst + head, src + head, bytes - head);
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(
        reinterpret_cast<__m128i *>(dst + i),
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

/// memcpy(dst, src, bytes) and memcpy(streamDst, src, bytes) in one pass
/// over src: streamDst with non-temporal stores where aligned (as
/// streamBytes; no fence), dst with plain ones, or streamed too with
/// `dstStreamed` where it shares streamDst's alignment. Neither destination
/// may overlap src or the other.
inline void copyAndStreamBytes(char *dst, char *streamDst, const char *src,
                               size_t bytes, bool dstStreamed = false) {
#if defined(__x86_64__)
  size_t head = (16 - (reinterpret_cast<uintptr_t>(streamDst) & 15)) & 15;
  head = std::min(head, bytes);
  std::memcpy(dst, src, head);
  std::memcpy(streamDst, src, head);
  bool both = dstStreamed && ((reinterpret_cast<uintptr_t>(dst) -
                               reinterpret_cast<uintptr_t>(streamDst)) &
                              15) == 0;
  size_t i =
      head + (both ? copy64<true, true>(dst + head, src + head, bytes - head,
                                        streamDst + head)
                   : copy64<false, true>(dst + head, src + head, bytes - head,
                                         streamDst + head));
  for (; i + 16 <= bytes; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    if (both)
      _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i), v);
    else
      _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), v);
    _mm_stream_si128(reinterpret_cast<__m128i *>(streamDst + i), v);
  }
  std::memcpy(dst + i, src + i, bytes - i);
  std::memcpy(streamDst + i, src + i, bytes - i);
#else
  (void)dstStreamed;
  std::memcpy(dst, src, bytes);
  std::memcpy(streamDst, src, bytes);
#endif
}

} // namespace hccl::rt::detail
#endif // HCCL_RUNTIME_REDUCE_VECTORCOPY_H
