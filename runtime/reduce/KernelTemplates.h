//===- KernelTemplates.h - Reduction kernels, one copy per ISA --*- C++ -*-===//
//
// Included by each Kernels<Isa>.cpp, which compiles it with its own target
// flags. Everything here has internal linkage on purpose: the same template
// built for AVX2 and for the baseline must never be merged by the linker.
//
// Two sources (the executor's common case) take one streaming pass; the loop
// is marked ivdep because dst may be the very same pointer as a source, which
// has no loop-carried dependence. More sources work on blocks small enough
// for L1: the running result lives in a local buffer and a block is stored to
// dst only after every source block has been read, so dst == srcs[i] is safe
// for any i.
//
// 16-bit floats go through float: each pairwise op is computed in float and
// rounded to the 16-bit type (round-to-nearest-even) before the next one.
// The ISA file supplies the conversion policy (portable bit manipulation, or
// F16C instructions); both produce identical bits.
//
// Streamed entries (dst written past the cache, for data another core reads
// next) run the same kernels on blocks of kStreamBlockBytes, each reduced in
// full into an L1 buffer before the ISA's streaming store writes it out, so
// dst may alias any source here too. An ISA may instead stream two-source
// fp32/fp64 kernels straight from registers (Stream::fusedPair).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_REDUCE_KERNELTEMPLATES_H
#define HCCL_RUNTIME_REDUCE_KERNELTEMPLATES_H

#include "KernelIsa.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace hccl::rt {
namespace {

// Block of the running result: 4 KiB keeps acc + one source block in L1.
constexpr size_t kBlockBytes = 4096;

// Element-wise loops whose dst may be the same pointer as a source: there is
// no loop-carried dependence (iteration i reads and writes index i only), so
// tell GCC, which would otherwise fall back to scalar code when they alias.
#if defined(__GNUC__) && !defined(__clang__)
#define HCCL_IVDEP _Pragma("GCC ivdep")
#else
#define HCCL_IVDEP
#endif

/// Types with IEEE semantics (max/min must propagate NaN). ISA files add
/// their vector-of-float types.
template <typename T> struct IsFloatLike : std::is_floating_point<T> {};

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

//===----------------------------------------------------------------------===//
// Operators. Integer sum/prod wrap: computed in an unsigned type at least as
// wide as int, so no signed overflow and no promotion to signed int.
//===----------------------------------------------------------------------===//

template <typename T> struct Wide {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                  std::make_unsigned_t<T>>;
};

struct OpSum {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using W = typename Wide<T>::type;
      return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
    } else {
      return a + b;
    }
  }
};
struct OpProd {
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using W = typename Wide<T>::type;
      return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
    } else {
      return a * b;
    }
  }
};
// max/min: NaN in either operand gives NaN (a's when a is NaN; b's
// otherwise, since a > b is false for an unordered b). Written so that it
// also compiles for GCC vector types (element-wise ?:): `a != a` is the NaN
// test that works element-wise, where std::isnan does not.
struct OpMax {
  template <typename T> static T apply(T a, T b) {
    T r = a > b ? a : b;
    if constexpr (IsFloatLike<T>::value)
      r = a != a ? a : r; // NOLINT(misc-redundant-expression): the NaN test
    return r;
  }
};
struct OpMin {
  template <typename T> static T apply(T a, T b) {
    T r = a < b ? a : b;
    if constexpr (IsFloatLike<T>::value)
      r = a != a ? a : r; // NOLINT(misc-redundant-expression): the NaN test
    return r;
  }
};

//===----------------------------------------------------------------------===//
// Native types (integers, fp32, fp64).
//===----------------------------------------------------------------------===//

template <typename T, typename Op>
void reduceNative(void *dstv, const void *const *srcsv, int k, size_t n) {
  T *dst = static_cast<T *>(dstv);
  if (k == 2) { // the executor's common case: one streaming pass
    const T *s0 = static_cast<const T *>(srcsv[0]);
    const T *s1 = static_cast<const T *>(srcsv[1]);
    HCCL_IVDEP
    for (size_t i = 0; i < n; ++i)
      dst[i] = Op::apply(s0[i], s1[i]);
    return;
  }
  // k > 2: the running result stays in L1 until the last source, because dst
  // may be any source (an exact alias of srcs[j] must not be overwritten
  // before srcs[j] is read).
  constexpr size_t B = kBlockBytes / sizeof(T);
  alignas(64) T acc[B];
  for (size_t base = 0; base < n; base += B) {
    size_t m = std::min(B, n - base);
    const T *s0 = static_cast<const T *>(srcsv[0]) + base;
    const T *s1 = static_cast<const T *>(srcsv[1]) + base;
    for (size_t i = 0; i < m; ++i)
      acc[i] = Op::apply(s0[i], s1[i]);
    for (int j = 2; j + 1 < k; ++j) {
      const T *sj = static_cast<const T *>(srcsv[j]) + base;
      for (size_t i = 0; i < m; ++i)
        acc[i] = Op::apply(acc[i], sj[i]);
    }
    const T *last = static_cast<const T *>(srcsv[k - 1]) + base;
    T *d = dst + base;
    HCCL_IVDEP
    for (size_t i = 0; i < m; ++i)
      d[i] = Op::apply(acc[i], last[i]);
  }
}

//===----------------------------------------------------------------------===//
// Portable 16-bit float conversions, branch-free (selects are written as
// masks: GCC does not if-convert the ternaries and would not vectorise).
//===----------------------------------------------------------------------===//

// c ? x : y for a 0/1 condition, without a branch.
inline uint32_t selectBits(bool c, uint32_t x, uint32_t y) {
  uint32_t m = 0u - static_cast<uint32_t>(c);
  return (x & m) | (y & ~m);
}

// IEEE binary16 -> float, exact. NaNs are quieted keeping their payload, as
// F16C's vcvtph2ps does.
inline float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  // Normal: rebias the exponent (127 - 15 = 112).
  uint32_t normal = (em << 13) + (112u << 23);
  // Subnormal: mant * 2^-24 is exact in float, and needs no denormal support.
  uint32_t sub =
      floatBits(static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f);
  uint32_t mant = em & 0x3ffu;
  uint32_t special =
      0x7f800000u | (mant << 13) | (static_cast<uint32_t>(mant != 0) << 22);
  uint32_t bits = selectBits(em < 0x400u, sub, normal);
  bits = selectBits(em >= 0x7c00u, special, bits);
  return bitsFloat(bits | sign);
}

// float -> IEEE binary16, round-to-nearest-even; overflow gives infinity,
// NaN gives a quiet NaN keeping the top payload bits (as vcvtps2ph does).
inline uint16_t floatToHalf(float x) {
  uint32_t f = floatBits(x);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t a = f & 0x7fffffffu;
  // Normal results: drop 13 mantissa bits, rounding to nearest even; a carry
  // into the exponent is the correct result, up to infinity at 65520.
  uint32_t normal =
      (a + (static_cast<uint32_t>(-112) << 23) + 0xfffu + ((a >> 13) & 1u)) >>
      13;
  // Subnormal results (|x| < 2^-14): adding 0.5 puts the half ulp (2^-24) at
  // the float ulp of [0.5, 1), so the FPU's rounding (RNE) does the work.
  uint32_t sub = floatBits(bitsFloat(a) + 0.5f) - 0x3f000000u;
  uint32_t inf = 0x7c00u;
  uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
  uint32_t r = selectBits(a < 0x38800000u, sub, normal);
  r = selectBits(a >= 0x47800000u, inf, r);
  r = selectBits(a > 0x7f800000u, nan, r);
  return static_cast<uint16_t>(r | sign);
}

inline float bf16ToFloat(uint16_t h) {
  return bitsFloat(static_cast<uint32_t>(h) << 16);
}

// float -> bfloat16, round-to-nearest-even; NaN stays a quiet NaN.
inline uint16_t floatToBf16(float x) {
  uint32_t f = floatBits(x);
  uint32_t rounded = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
  uint32_t nan = (f >> 16) | 0x40u;
  bool isNan = (f & 0x7fffffffu) > 0x7f800000u;
  return static_cast<uint16_t>(selectBits(isNan, nan, rounded));
}

/// Portable conversion policy for binary16.
struct HalfConvGeneric {
  template <typename Op>
  static void pair(uint16_t *dst, const uint16_t *a, const uint16_t *b,
                   size_t m) {
    HCCL_IVDEP
    for (size_t i = 0; i < m; ++i)
      dst[i] = floatToHalf(Op::apply(halfToFloat(a[i]), halfToFloat(b[i])));
  }
  static void toFloat(const uint16_t *src, float *dst, size_t m) {
    for (size_t i = 0; i < m; ++i)
      dst[i] = halfToFloat(src[i]);
  }
  static void fromFloat(const float *src, uint16_t *dst, size_t m) {
    for (size_t i = 0; i < m; ++i)
      dst[i] = floatToHalf(src[i]);
  }
  static void roundInPlace(float *x, size_t m) {
    for (size_t i = 0; i < m; ++i)
      x[i] = halfToFloat(floatToHalf(x[i]));
  }
};

/// Conversion policy for bfloat16 (integer ops only: vectorises anywhere).
struct Bf16Conv {
  template <typename Op>
  static void pair(uint16_t *dst, const uint16_t *a, const uint16_t *b,
                   size_t m) {
    HCCL_IVDEP
    for (size_t i = 0; i < m; ++i)
      dst[i] = floatToBf16(Op::apply(bf16ToFloat(a[i]), bf16ToFloat(b[i])));
  }
  static void toFloat(const uint16_t *src, float *dst, size_t m) {
    for (size_t i = 0; i < m; ++i)
      dst[i] = bf16ToFloat(src[i]);
  }
  static void fromFloat(const float *src, uint16_t *dst, size_t m) {
    for (size_t i = 0; i < m; ++i)
      dst[i] = floatToBf16(src[i]);
  }
  static void roundInPlace(float *x, size_t m) {
    for (size_t i = 0; i < m; ++i)
      x[i] = bf16ToFloat(floatToBf16(x[i]));
  }
};

//===----------------------------------------------------------------------===//
// 16-bit floats: widen a block, combine in float, round after every op.
//===----------------------------------------------------------------------===//

template <typename Conv, typename Op>
void reduce16(void *dstv, const void *const *srcsv, int k, size_t n) {
  constexpr size_t B = kBlockBytes / sizeof(float);
  alignas(64) float acc[B];
  alignas(64) float in[B];
  uint16_t *dst = static_cast<uint16_t *>(dstv);
  if (k == 2) {
    Conv::template pair<Op>(dst, static_cast<const uint16_t *>(srcsv[0]),
                            static_cast<const uint16_t *>(srcsv[1]), n);
    return;
  }
  for (size_t base = 0; base < n; base += B) {
    size_t m = std::min(B, n - base);
    Conv::toFloat(static_cast<const uint16_t *>(srcsv[0]) + base, acc, m);
    for (int j = 1; j < k; ++j) {
      Conv::toFloat(static_cast<const uint16_t *>(srcsv[j]) + base, in, m);
      for (size_t i = 0; i < m; ++i)
        acc[i] = Op::apply(acc[i], in[i]);
      if (j + 1 < k)
        Conv::roundInPlace(acc, m);
    }
    Conv::fromFloat(acc, dst + base, m);
  }
}

//===----------------------------------------------------------------------===//
// Streamed: block by block through L1.
//===----------------------------------------------------------------------===//

// 1 KiB: an 8 MB fp32 sum through 1 KiB blocks took 0.84-0.92x the time of
// the earlier 4 KiB blocks stored 16 bytes at a time; 512 bytes and 2 KiB
// were no better (docs/performance.md, "Streamed reductions").
constexpr size_t kStreamBlockBytes = 1024;

template <size_t ES, detail::ReduceFn Kernel, typename Stream>
void reduceStreamed(void *dstv, void *copyv, bool copyStreamed,
                    const void *const *srcsv, int k, size_t n) {
  constexpr size_t B = kStreamBlockBytes / ES;
  alignas(64) char block[kStreamBlockBytes];
  const void *at[kMaxStreamedSources];
  char *dst = static_cast<char *>(dstv);
  char *copy = static_cast<char *>(copyv);
  for (size_t base = 0; base < n; base += B) {
    size_t m = std::min(B, n - base);
    for (int j = 0; j < k; ++j)
      at[j] = static_cast<const char *>(srcsv[j]) + base * ES;
    Kernel(block, at, k, m);
    Stream::store(dst + base * ES, block, m * ES);
    if (copy && copyStreamed)
      Stream::store(copy + base * ES, block, m * ES);
    else if (copy)
      std::memcpy(copy + base * ES, block, m * ES);
  }
}

// Native types: two sources may stream straight from registers where the ISA
// does that for T (it returns false where it does not).
template <typename T, typename Op, typename Stream>
void reduceNativeStreamed(void *dst, void *copy, bool copyStreamed,
                          const void *const *srcs, int k, size_t n) {
  if (k == 2 &&
      Stream::template fusedPair<T, Op>(
          static_cast<T *>(dst), static_cast<T *>(copy), copyStreamed,
          static_cast<const T *>(srcs[0]), static_cast<const T *>(srcs[1]), n))
    return;
  reduceStreamed<sizeof(T), &reduceNative<T, Op>, Stream>(
      dst, copy, copyStreamed, srcs, k, n);
}

//===----------------------------------------------------------------------===//
// The table of one code path.
//===----------------------------------------------------------------------===//

template <typename HalfConv, typename Stream>
detail::KernelTable makeKernelTable() {
  using sched::DataType;
  detail::KernelTable t{};
  auto setNative = [&](DataType dt, auto tag) {
    using T = decltype(tag);
    int i = static_cast<int>(dt);
    t.fn[i][0] = &reduceNative<T, OpSum>;
    t.fn[i][1] = &reduceNative<T, OpProd>;
    t.fn[i][2] = &reduceNative<T, OpMax>;
    t.fn[i][3] = &reduceNative<T, OpMin>;
    t.streamed[i][0] = &reduceNativeStreamed<T, OpSum, Stream>;
    t.streamed[i][1] = &reduceNativeStreamed<T, OpProd, Stream>;
    t.streamed[i][2] = &reduceNativeStreamed<T, OpMax, Stream>;
    t.streamed[i][3] = &reduceNativeStreamed<T, OpMin, Stream>;
  };
  setNative(DataType::Int8, int8_t{});
  setNative(DataType::Int16, int16_t{});
  setNative(DataType::Int32, int32_t{});
  setNative(DataType::Int64, int64_t{});
  setNative(DataType::Uint8, uint8_t{});
  setNative(DataType::Uint16, uint16_t{});
  setNative(DataType::Uint32, uint32_t{});
  setNative(DataType::Uint64, uint64_t{});
  setNative(DataType::Fp32, float{});
  setNative(DataType::Fp64, double{});
  auto set16 = [&](DataType dt, auto conv) {
    using C = decltype(conv);
    int i = static_cast<int>(dt);
    t.fn[i][0] = &reduce16<C, OpSum>;
    t.fn[i][1] = &reduce16<C, OpProd>;
    t.fn[i][2] = &reduce16<C, OpMax>;
    t.fn[i][3] = &reduce16<C, OpMin>;
    t.streamed[i][0] = &reduceStreamed<2, &reduce16<C, OpSum>, Stream>;
    t.streamed[i][1] = &reduceStreamed<2, &reduce16<C, OpProd>, Stream>;
    t.streamed[i][2] = &reduceStreamed<2, &reduce16<C, OpMax>, Stream>;
    t.streamed[i][3] = &reduceStreamed<2, &reduce16<C, OpMin>, Stream>;
  };
  set16(DataType::Fp16, HalfConv{});
  set16(DataType::Bf16, Bf16Conv{});
  return t;
}

} // namespace
} // namespace hccl::rt

#endif // HCCL_RUNTIME_REDUCE_KERNELTEMPLATES_H
