//===- Reference.cpp - hccl-test's input data and expected results --------===//
#include "Reference.h"
#include "Options.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hccltest {
namespace {

uint64_t mix(uint64_t x) { // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Encodes |v| in a binary format with `ebits`/`mbits`, nearest-even.
uint16_t encodeSmall(double v, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const uint32_t expMask = ((1u << ebits) - 1) << mbits;
  uint32_t sign = std::signbit(v) ? 1u << (ebits + mbits) : 0;
  double a = std::fabs(v);
  if (std::isnan(v))
    return static_cast<uint16_t>(expMask | (1u << (mbits - 1)));
  if (std::isinf(a))
    return static_cast<uint16_t>(sign | expMask);
  if (a == 0)
    return static_cast<uint16_t>(sign);
  int e;
  std::frexp(a, &e);
  int exp = std::max(e - 1, 1 - bias);
  double q = std::ldexp(1.0, exp - mbits);
  double units = std::nearbyint(a / q);
  double r = units * q;
  if (r >= std::ldexp(1.0, bias + 1))
    return static_cast<uint16_t>(sign | expMask);
  if (r < std::ldexp(1.0, 1 - bias))
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(units));
  std::frexp(r, &e);
  uint32_t m =
      static_cast<uint32_t>(std::ldexp(r, mbits - (e - 1))) - (1u << mbits);
  return static_cast<uint16_t>(
      sign | (static_cast<uint32_t>(e - 1 + bias) << mbits) | m);
}

double decodeSmall(uint16_t h, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  double sign = (h >> (ebits + mbits)) & 1 ? -1.0 : 1.0;
  uint32_t e = (h >> mbits) & ((1u << ebits) - 1);
  uint32_t m = h & ((1u << mbits) - 1);
  if (e == (1u << ebits) - 1)
    return m ? NAN : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(m, 1 - bias - mbits);
  return sign *
         std::ldexp(m + (1u << mbits), static_cast<int>(e) - bias - mbits);
}

bool isSigned(HcclDataType t) {
  return t == HCCL_DATA_TYPE_INT8 || t == HCCL_DATA_TYPE_INT16 ||
         t == HCCL_DATA_TYPE_INT32 || t == HCCL_DATA_TYPE_INT64;
}

} // namespace

uint16_t encodeHalf(double v) { return encodeSmall(v, 5, 10); }
uint16_t encodeBf16(double v) { return encodeSmall(v, 8, 7); }
double decodeHalf(uint16_t h) { return decodeSmall(h, 5, 10); }
double decodeBf16(uint16_t h) { return decodeSmall(h, 8, 7); }

DataGen::DataGen(HcclDataType type, HcclReduceOp op, bool reduction,
                 uint64_t seed)
    : type_(type), op_(op), reduction_(reduction), seed_(seed),
      size_(dataTypeSize(type)),
      isFloat_(type == HCCL_DATA_TYPE_FP16 || type == HCCL_DATA_TYPE_FP32 ||
               type == HCCL_DATA_TYPE_FP64 || type == HCCL_DATA_TYPE_BFP16) {}

Value DataGen::input(uint32_t rank, uint64_t index) const {
  uint64_t h = mix(seed_ ^ mix((static_cast<uint64_t>(rank) << 40) ^ index));
  Value v;
  if (!isFloat_) {
    unsigned bits = static_cast<unsigned>(size_ * 8);
    uint64_t raw = bits == 64 ? h : h & ((1ull << bits) - 1);
    if (isSigned(type_) && bits < 64 && (raw >> (bits - 1)))
      raw |= ~0ull << bits; // sign-extend
    v.bits = raw;
    return v;
  }
  bool narrow = size_ == 2;
  if (reduction_ && op_ == HCCL_REDUCE_SUM) {
    // Sums of p values stay exact integers: |sum| <= p (16-bit) or 4p.
    int range = narrow ? 1 : 4;
    v.f = static_cast<double>(static_cast<int>(h % (2 * range + 1)) - range);
  } else if (reduction_ && op_ == HCCL_REDUCE_PROD) {
    static const double kPow[] = {0.5, 1.0, 2.0};
    v.f = kPow[h % 3] * ((h >> 8) & 1 ? -1.0 : 1.0);
  } else {
    int range = narrow ? 100 : 1000; // exact in bf16 (8 significant bits)
    v.f = static_cast<double>(static_cast<int>(h % (2 * range + 1)) - range);
  }
  return v;
}

Value DataGen::combine(const Value &a, const Value &b) const {
  Value r;
  if (isFloat_) {
    switch (op_) {
    case HCCL_REDUCE_SUM:
      r.f = a.f + b.f;
      break;
    case HCCL_REDUCE_PROD:
      r.f = a.f * b.f;
      break;
    case HCCL_REDUCE_MAX:
      r.f = a.f > b.f ? a.f : b.f;
      break;
    default:
      r.f = a.f < b.f ? a.f : b.f;
      break;
    }
    return r;
  }
  // Integers: sum/prod modulo 2^64 (the low bits are the wrapped result);
  // max/min compare as the signed or unsigned type.
  switch (op_) {
  case HCCL_REDUCE_SUM:
    r.bits = a.bits + b.bits;
    break;
  case HCCL_REDUCE_PROD:
    r.bits = a.bits * b.bits;
    break;
  default: {
    bool aGreater = isSigned(type_) ? static_cast<int64_t>(a.bits) >
                                          static_cast<int64_t>(b.bits)
                                    : a.bits > b.bits;
    bool takeA =
        op_ == HCCL_REDUCE_MAX ? aGreater : !aGreater && a.bits != b.bits;
    r.bits = takeA ? a.bits : b.bits;
    break;
  }
  }
  return r;
}

void DataGen::store(void *buf, uint64_t index, const Value &v) const {
  unsigned char *p = static_cast<unsigned char *>(buf) + index * size_;
  switch (type_) {
  case HCCL_DATA_TYPE_FP16: {
    uint16_t h = encodeHalf(v.f);
    std::memcpy(p, &h, 2);
    return;
  }
  case HCCL_DATA_TYPE_BFP16: {
    uint16_t h = encodeBf16(v.f);
    std::memcpy(p, &h, 2);
    return;
  }
  case HCCL_DATA_TYPE_FP32: {
    float f = static_cast<float>(v.f);
    std::memcpy(p, &f, 4);
    return;
  }
  case HCCL_DATA_TYPE_FP64:
    std::memcpy(p, &v.f, 8);
    return;
  default:
    // Little-endian: the low bytes are the element (truncation = wrap).
    std::memcpy(p, &v.bits, size_);
    return;
  }
}

void DataGen::fill(void *buf, uint32_t rank, uint64_t first,
                   uint64_t count) const {
  for (uint64_t i = 0; i < count; ++i)
    store(buf, i, input(rank, first + i));
}

} // namespace hccltest
