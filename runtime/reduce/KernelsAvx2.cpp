//===- KernelsAvx2.cpp - Reduction kernels for x86-64 with AVX2 + F16C ----===//
//
// Compiled with -mavx2 -mfma -mf16c (see CMakeLists.txt) and only called
// after the CPU has been checked for those features. binary16 conversions
// use F16C, which rounds to nearest even like the portable code, so both
// paths give identical bits (reduce_isa_test checks it).
//
//===----------------------------------------------------------------------===//
#include "KernelTemplates.h"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>

namespace hccl::rt {
namespace {

typedef float V8f __attribute__((vector_size(32)));
template <> struct IsFloatLike<V8f> : std::true_type {};

struct HalfConvF16c {
  template <typename Op>
  static void pair(uint16_t *dst, const uint16_t *a, const uint16_t *b,
                   size_t m) {
    size_t i = 0;
    // Both operands are loaded before dst is stored: exact aliasing is safe.
    for (; i + 8 <= m; i += 8) {
      V8f x = (V8f)_mm256_cvtph_ps(
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(a + i)));
      V8f y = (V8f)_mm256_cvtph_ps(
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + i)));
      __m128i r =
          _mm256_cvtps_ph((__m256)Op::apply(x, y), _MM_FROUND_TO_NEAREST_INT);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), r);
    }
    for (; i < m; ++i)
      dst[i] = _cvtss_sh(Op::apply(_cvtsh_ss(a[i]), _cvtsh_ss(b[i])),
                         _MM_FROUND_TO_NEAREST_INT);
  }
  static void toFloat(const uint16_t *src, float *dst, size_t m) {
    size_t i = 0;
    for (; i + 8 <= m; i += 8) {
      __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
      _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < m; ++i)
      dst[i] = _cvtsh_ss(src[i]);
  }
  static void fromFloat(const float *src, uint16_t *dst, size_t m) {
    size_t i = 0;
    for (; i + 8 <= m; i += 8) {
      __m128i h =
          _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), h);
    }
    for (; i < m; ++i)
      dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
  }
  static void roundInPlace(float *x, size_t m) {
    size_t i = 0;
    for (; i + 8 <= m; i += 8) {
      __m128i h =
          _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
      _mm256_storeu_ps(x + i, _mm256_cvtph_ps(h));
    }
    for (; i < m; ++i)
      x[i] = _cvtsh_ss(_cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT));
  }
};

typedef double V4d __attribute__((vector_size(32)));
template <> struct IsFloatLike<V4d> : std::true_type {};

/// 32-byte streaming stores; the unaligned head and the tail take plain ones.
/// fp32 and fp64 with two sources stream straight from registers: Op::apply
/// on 8 floats or 4 doubles at once is the scalar operation per element
/// (IEEE, no contraction), so the bits are reduce()'s. An 8 MB fp32 sum
/// took 0.58-0.61x the time of the earlier 4 KiB blocks, as fast as a loop
/// written by hand (docs/performance.md, "Streamed reductions"). Integers
/// keep the blocks: their operators widen per element, which vector types
/// do not.
struct StreamAvx2 {
  template <typename T, typename Op>
  static bool fusedPair(T *dst, T *copy, bool copyStreamed, const T *a,
                        const T *b, size_t n) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      using V = std::conditional_t<std::is_same_v<T, float>, V8f, V4d>;
      constexpr size_t L = 32 / sizeof(T);
      auto addr = reinterpret_cast<uintptr_t>(dst);
      if (addr % sizeof(T) != 0)
        return false;
      // The copy streams where it shares dst's alignment (the tee's two
      // outputs do: both sit at the same offset of page-aligned buffers).
      bool both = copy && copyStreamed &&
                  ((reinterpret_cast<uintptr_t>(copy) - addr) & 31) == 0;
      auto scalar = [&](size_t i) {
        T r = Op::apply(a[i], b[i]);
        dst[i] = r;
        if (copy)
          copy[i] = r;
      };
      size_t head = std::min(n, ((32 - (addr & 31)) & 31) / sizeof(T));
      size_t i = 0;
      for (; i < head; ++i)
        scalar(i);
      for (; i + L <= n; i += L) {
        V x, y;
        std::memcpy(&x, a + i, 32);
        std::memcpy(&y, b + i, 32);
        V r = Op::apply(x, y);
        __m256i bits;
        std::memcpy(&bits, &r, 32);
        _mm256_stream_si256(reinterpret_cast<__m256i *>(dst + i), bits);
        if (both)
          _mm256_stream_si256(reinterpret_cast<__m256i *>(copy + i), bits);
        else if (copy)
          _mm256_storeu_si256(reinterpret_cast<__m256i *>(copy + i), bits);
      }
      for (; i < n; ++i)
        scalar(i);
      return true;
    } else {
      return false;
    }
  }
  static void store(char *dst, const char *src, size_t bytes) {
    size_t head = (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31;
    head = std::min(head, bytes);
    std::memcpy(dst, src, head);
    size_t i = head;
    for (; i + 32 <= bytes; i += 32)
      _mm256_stream_si256(
          reinterpret_cast<__m256i *>(dst + i),
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i)));
    std::memcpy(dst + i, src + i, bytes - i);
  }
};

} // namespace

namespace detail {
const KernelTable *avx2Kernels() {
  static const KernelTable table = makeKernelTable<HalfConvF16c, StreamAvx2>();
  return &table;
}
} // namespace detail
} // namespace hccl::rt

#else

namespace hccl::rt::detail {
const KernelTable *avx2Kernels() { return nullptr; }
} // namespace hccl::rt::detail

#endif
