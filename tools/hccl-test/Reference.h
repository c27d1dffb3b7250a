//===- Reference.h - hccl-test's input data and expected results -*- C++ -*-=//
//
// Every rank can compute any rank's input element, so each rank computes the
// expected value of its own output locally, without the runtime. Values are
// chosen so that the exact result does not depend on the reduction order:
// small integers for float sums, powers of two for float products, full-range
// bits for integers (whose sum and product wrap modulo 2^bits in any order).
// Independent of runtime/reduce on purpose: its own 16-bit float codec.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_HCCL_TEST_REFERENCE_H
#define HCCL_TOOLS_HCCL_TEST_REFERENCE_H

#include "hccl/hccl_types.h"

#include <cstddef>
#include <cstdint>

namespace hccltest {

/// A value of any supported type: floats as double, integers as their bits
/// zero- or sign-extended to 64.
struct Value {
  double f = 0;
  uint64_t bits = 0;
};

class DataGen {
public:
  /// `op` chooses the value set (see the file comment); `seed` varies the
  /// data between sizes so stale results cannot pass.
  DataGen(HcclDataType type, HcclReduceOp op, bool reduction, uint64_t seed);

  /// Rank `rank`'s input element `index`.
  Value input(uint32_t rank, uint64_t index) const;
  /// Writes v into one element of the type.
  void store(void *buf, uint64_t index, const Value &v) const;
  /// a op b for this type (exact for the generated values).
  Value combine(const Value &a, const Value &b) const;
  /// Fills buf[0..count) with rank `rank`'s input starting at `first`.
  void fill(void *buf, uint32_t rank, uint64_t first, uint64_t count) const;
  size_t elemSize() const { return size_; }
  bool isFloat() const { return isFloat_; }

private:
  HcclDataType type_;
  HcclReduceOp op_;
  bool reduction_;
  uint64_t seed_;
  size_t size_;
  bool isFloat_;
};

/// IEEE binary16 / bfloat16 <-> double (nearest-even when encoding).
uint16_t encodeHalf(double v);
uint16_t encodeBf16(double v);
double decodeHalf(uint16_t h);
double decodeBf16(uint16_t h);

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_REFERENCE_H
