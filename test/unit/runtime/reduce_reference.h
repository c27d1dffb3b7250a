//===- reduce_reference.h - Scalar reference for the reduce tests -*- C++ -*-=//
//
// Written independently of runtime/reduce: 16-bit floats are decoded with
// ldexp and encoded by scaling and std::nearbyint (round-to-nearest-even)
// from double, integers wrap through 128-bit arithmetic. A pairwise op on
// fp16/bf16 is computed in double (exact for fp16 sum and prod) and rounded
// once; the kernels' through-float result must agree bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_RUNTIME_REDUCE_REFERENCE_H
#define HCCL_TEST_RUNTIME_REDUCE_REFERENCE_H

#include "hccl-mlir/schedule/Types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace reftest {

using hccl::sched::DataType;
using hccl::sched::ReduceOp;

/// Every data type, for INSTANTIATE_TEST_SUITE_P over the kernels.
inline auto allDataTypes() {
  return ::testing::Values(DataType::Int8, DataType::Int16, DataType::Int32,
                           DataType::Fp16, DataType::Fp32, DataType::Int64,
                           DataType::Uint64, DataType::Uint8, DataType::Uint16,
                           DataType::Uint32, DataType::Fp64, DataType::Bf16);
}
/// `k` buffers of `n` random elements of `t`, and pointers to them.
struct Sources {
  std::vector<std::vector<unsigned char>> data;
  std::vector<const void *> ptrs;
};
inline Sources randomSources(DataType t, int k, size_t n, std::mt19937_64 &rng);
/// Test names: the data type's name.
inline std::string
dataTypeTestName(const ::testing::TestParamInfo<DataType> &info) {
  return hccl::sched::dataTypeName(info.param);
}

/// A binary floating-point format with `ebits` exponent and `mbits` stored
/// mantissa bits (fp16: 5/10, bf16: 8/7).
struct SmallFloat {
  int ebits, mbits;
  int bias() const { return (1 << (ebits - 1)) - 1; }
  uint32_t expMask() const { return ((1u << ebits) - 1) << mbits; }
  uint32_t mantMask() const { return (1u << mbits) - 1; }
  uint32_t signBit() const { return 1u << (ebits + mbits); }
  uint32_t quietBit() const { return 1u << (mbits - 1); }

  bool isNan(uint32_t h) const {
    return (h & expMask()) == expMask() && (h & mantMask()) != 0;
  }

  double decode(uint32_t h) const {
    double sign = (h & signBit()) ? -1.0 : 1.0;
    uint32_t e = (h & expMask()) >> mbits;
    uint32_t m = h & mantMask();
    if (e == ((1u << ebits) - 1))
      return m ? std::nan("") : sign * INFINITY;
    if (e == 0)
      return sign * std::ldexp(static_cast<double>(m), 1 - bias() - mbits);
    return sign * std::ldexp(static_cast<double>(m + (1u << mbits)),
                             static_cast<int>(e) - bias() - mbits);
  }

  /// Round a double to this format, nearest-even (NaN: the default quiet
  /// NaN; callers needing payloads handle NaN themselves).
  uint32_t encode(double x) const {
    if (std::isnan(x))
      return expMask() | quietBit();
    uint32_t sign = std::signbit(x) ? signBit() : 0;
    double ax = std::fabs(x);
    if (std::isinf(ax))
      return sign | expMask();
    if (ax == 0)
      return sign;
    int emin = 1 - bias();
    int e;
    std::frexp(ax, &e); // ax in [2^(e-1), 2^e)
    int exp = std::max(e - 1, emin);
    double quantum = std::ldexp(1.0, exp - mbits);
    double units = std::nearbyint(ax / quantum); // exact scaling, RNE
    double v = units * quantum;
    if (v >= std::ldexp(1.0, bias() + 1))
      return sign | expMask();     // overflow
    if (v < std::ldexp(1.0, emin)) // subnormal (or zero)
      return sign | static_cast<uint32_t>(units);
    std::frexp(v, &e);
    int ve = e - 1;
    uint32_t m =
        static_cast<uint32_t>(std::ldexp(v, mbits - ve)) - (1u << mbits);
    return sign | (static_cast<uint32_t>(ve + bias()) << mbits) | m;
  }
};

inline constexpr SmallFloat kHalf{5, 10};
inline constexpr SmallFloat kBf16{8, 7};

template <typename T> T wrapTo(unsigned __int128 v) {
  // Keep the low bits; the conversion to a signed T is modular (GCC/C++20).
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(v));
}

template <typename T> T refInt(T a, T b, ReduceOp op) {
  __int128 x = a, y = b;
  switch (op) {
  case ReduceOp::Sum:
    return wrapTo<T>(static_cast<unsigned __int128>(x + y));
  case ReduceOp::Prod:
    return wrapTo<T>(static_cast<unsigned __int128>(x) *
                     static_cast<unsigned __int128>(y));
  case ReduceOp::Max:
    return x > y ? a : b;
  case ReduceOp::Min:
    return x < y ? a : b;
  }
  return 0;
}

/// IEEE types: NaN-propagating max/min (a's NaN first), b on ties.
template <typename T> T refFloat(T a, T b, ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return a + b;
  case ReduceOp::Prod:
    return a * b;
  case ReduceOp::Max:
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
    return a > b ? a : b;
  case ReduceOp::Min:
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
    return a < b ? a : b;
  }
  return 0;
}

/// One pairwise op on 16-bit floats. NaN operands give a quiet NaN: for
/// max/min the operand itself (quieted), for sum/prod some quiet NaN (the
/// tests compare NaN-ness only there).
inline uint16_t ref16(const SmallFloat &f, uint16_t a, uint16_t b,
                      ReduceOp op) {
  bool an = f.isNan(a), bn = f.isNan(b);
  if (an || bn) {
    if (op == ReduceOp::Max || op == ReduceOp::Min)
      return static_cast<uint16_t>((an ? a : b) | f.quietBit());
    return static_cast<uint16_t>(f.expMask() | f.quietBit());
  }
  double x = f.decode(a), y = f.decode(b);
  switch (op) {
  case ReduceOp::Sum:
    return static_cast<uint16_t>(f.encode(x + y));
  case ReduceOp::Prod:
    return static_cast<uint16_t>(f.encode(x * y));
  case ReduceOp::Max:
    return x > y ? a : b;
  case ReduceOp::Min:
    return x < y ? a : b;
  }
  return 0;
}

template <typename T> T load(const void *p, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char *>(p) + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T> void store(void *p, size_t i, T v) {
  std::memcpy(static_cast<char *>(p) + i * sizeof(T), &v, sizeof(T));
}

/// out[i] = a[i] op b[i], element by element, for any DataType.
inline void refReduce(DataType t, ReduceOp op, const void *a, const void *b,
                      void *out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    switch (t) {
#define INT_CASE(DT, T)                                                        \
  case DataType::DT:                                                           \
    store<T>(out, i, refInt<T>(load<T>(a, i), load<T>(b, i), op));             \
    break;
      INT_CASE(Int8, int8_t)
      INT_CASE(Int16, int16_t)
      INT_CASE(Int32, int32_t)
      INT_CASE(Int64, int64_t)
      INT_CASE(Uint8, uint8_t)
      INT_CASE(Uint16, uint16_t)
      INT_CASE(Uint32, uint32_t)
      INT_CASE(Uint64, uint64_t)
#undef INT_CASE
    case DataType::Fp32:
      store<float>(out, i,
                   refFloat<float>(load<float>(a, i), load<float>(b, i), op));
      break;
    case DataType::Fp64:
      store<double>(
          out, i, refFloat<double>(load<double>(a, i), load<double>(b, i), op));
      break;
    case DataType::Fp16:
      store<uint16_t>(
          out, i, ref16(kHalf, load<uint16_t>(a, i), load<uint16_t>(b, i), op));
      break;
    case DataType::Bf16:
      store<uint16_t>(
          out, i, ref16(kBf16, load<uint16_t>(a, i), load<uint16_t>(b, i), op));
      break;
    }
  }
}

/// Element-wise equality of two arrays of type t, where any two NaNs are
/// equal (the payload of a NaN made by inf - inf or 0 * inf is the
/// hardware's choice). Returns the first differing index, or n.
inline size_t firstMismatch(DataType t, const void *x, const void *y,
                            size_t n) {
  size_t sz = hccl::sched::dataTypeSize(t);
  for (size_t i = 0; i < n; ++i) {
    const char *px = static_cast<const char *>(x) + i * sz;
    const char *py = static_cast<const char *>(y) + i * sz;
    if (std::memcmp(px, py, sz) == 0)
      continue;
    bool bothNan = false;
    switch (t) {
    case DataType::Fp16:
      bothNan = kHalf.isNan(load<uint16_t>(x, i)) &&
                kHalf.isNan(load<uint16_t>(y, i));
      break;
    case DataType::Bf16:
      bothNan = kBf16.isNan(load<uint16_t>(x, i)) &&
                kBf16.isNan(load<uint16_t>(y, i));
      break;
    case DataType::Fp32:
      bothNan = std::isnan(load<float>(x, i)) && std::isnan(load<float>(y, i));
      break;
    case DataType::Fp64:
      bothNan =
          std::isnan(load<double>(x, i)) && std::isnan(load<double>(y, i));
      break;
    default:
      break;
    }
    if (!bothNan)
      return i;
  }
  return n;
}

/// Random data of type t. Integers use the full range; floats are finite
/// (16-bit types: any finite bit pattern; fp32/fp64: spread over many
/// magnitudes, both signs).
inline std::vector<unsigned char> randomData(DataType t, size_t n,
                                             std::mt19937_64 &rng) {
  size_t sz = hccl::sched::dataTypeSize(t);
  std::vector<unsigned char> v(n * sz);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = rng();
    switch (t) {
    case DataType::Fp16:
    case DataType::Bf16: {
      const SmallFloat &f = t == DataType::Fp16 ? kHalf : kBf16;
      uint16_t h = static_cast<uint16_t>(bits);
      while ((h & f.expMask()) == f.expMask())
        h = static_cast<uint16_t>(rng());
      store<uint16_t>(v.data(), i, h);
      break;
    }
    case DataType::Fp32: {
      std::uniform_real_distribution<float> m(-1, 1);
      std::uniform_int_distribution<int> e(-30, 30);
      store<float>(v.data(), i, std::ldexp(m(rng), e(rng)));
      break;
    }
    case DataType::Fp64: {
      std::uniform_real_distribution<double> m(-1, 1);
      std::uniform_int_distribution<int> e(-200, 200);
      store<double>(v.data(), i, std::ldexp(m(rng), e(rng)));
      break;
    }
    default:
      std::memcpy(v.data() + i * sz, &bits, sz);
    }
  }
  return v;
}

inline Sources randomSources(DataType t, int k, size_t n,
                             std::mt19937_64 &rng) {
  Sources s;
  for (int j = 0; j < k; ++j)
    s.data.push_back(randomData(t, n, rng));
  for (auto &d : s.data)
    s.ptrs.push_back(d.data());
  return s;
}

} // namespace reftest

#endif // HCCL_TEST_RUNTIME_REDUCE_REFERENCE_H
