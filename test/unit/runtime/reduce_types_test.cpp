//===- reduce_types_test.cpp - reduce() for every data type and operator --===//
//
// Every (DataType, ReduceOp) pair against the scalar reference, with counts
// that hit vector tails and block boundaries, unaligned pointers, and dst
// aliasing either operand.
//
//===----------------------------------------------------------------------===//
#include "reduce/Reduce.h"
#include "reduce_reference.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

using hccl::sched::DataType;
using hccl::sched::ReduceOp;

namespace {

// 0, tails of 16/32/64-byte vectors, the 4 KiB block boundary (fp16 blocks
// hold 1024 elements, int8 blocks 4096), and several blocks plus a tail.
const size_t kCounts[] = {0,    1,    2,    3,    7,    8,
                          15,   17,   31,   33,   63,   65,
                          1023, 1024, 1025, 4095, 4097, 3 * 4096 + 5};

enum class Alias { None, DstIsA, DstIsB };

class ReduceTypes
    : public ::testing::TestWithParam<std::tuple<DataType, ReduceOp>> {};

std::string bytesOf(const std::vector<unsigned char> &v, size_t i, size_t sz) {
  static const char *hex = "0123456789abcdef";
  std::string s = "0x";
  for (size_t b = sz; b-- > 0;) {
    s += hex[v[i * sz + b] >> 4];
    s += hex[v[i * sz + b] & 15];
  }
  return s;
}

void checkOne(DataType t, ReduceOp op, size_t n, Alias alias, size_t offset,
              std::mt19937_64 &rng) {
  size_t sz = hccl::sched::dataTypeSize(t);
  // One spare element in front so `offset` can misalign the pointers.
  auto a = reftest::randomData(t, n + 1, rng);
  auto b = reftest::randomData(t, n + 1, rng);
  std::vector<unsigned char> expect((n + 1) * sz);
  reftest::refReduce(t, op, a.data() + offset * sz, b.data() + offset * sz,
                     expect.data(), n);
  std::vector<unsigned char> out((n + 1) * sz, 0xA5);
  unsigned char *dst = alias == Alias::DstIsA   ? a.data()
                       : alias == Alias::DstIsB ? b.data()
                                                : out.data();
  ASSERT_TRUE(hccl::rt::reduce(dst + offset * sz, a.data() + offset * sz,
                               b.data() + offset * sz, n, t, op));
  std::vector<unsigned char> got(dst + offset * sz, dst + (offset + n) * sz);
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(&got[i * sz], &expect[i * sz], sz) != 0) {
      FAIL() << hccl::sched::dataTypeName(t) << " "
             << hccl::sched::reduceOpName(op) << " n=" << n
             << " alias=" << static_cast<int>(alias) << " offset=" << offset
             << ": element " << i << " is " << bytesOf(got, i, sz)
             << ", expected " << bytesOf(expect, i, sz);
    }
  }
  if (alias == Alias::None && n > 0) {
    EXPECT_EQ(out[(offset ? 0 : n * sz)], 0xA5)
        << "wrote outside [dst, dst+count)";
  }
}

TEST_P(ReduceTypes, MatchesReference) {
  auto [t, op] = GetParam();
  std::mt19937_64 rng(static_cast<uint64_t>(t) * 31 + static_cast<int>(op));
  for (size_t n : kCounts)
    for (Alias alias : {Alias::None, Alias::DstIsA, Alias::DstIsB})
      for (size_t offset : {0, 1})
        checkOne(t, op, n, alias, offset, rng);
}

std::vector<std::tuple<DataType, ReduceOp>> allPairs() {
  std::vector<std::tuple<DataType, ReduceOp>> v;
  for (int t = 0; t < hccl::sched::kNumDataTypes; ++t)
    for (int op = 0; op < 4; ++op)
      v.emplace_back(static_cast<DataType>(t), static_cast<ReduceOp>(op));
  return v;
}

INSTANTIATE_TEST_SUITE_P(
    All, ReduceTypes, ::testing::ValuesIn(allPairs()),
    [](const ::testing::TestParamInfo<ReduceTypes::ParamType> &info) {
      return std::string(hccl::sched::dataTypeName(std::get<0>(info.param))) +
             "_" + hccl::sched::reduceOpName(std::get<1>(info.param));
    });

TEST(ReduceInvalid, UnknownTypeOrOpIsRejectedWithoutWriting) {
  int32_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, out[4] = {9, 9, 9, 9};
  EXPECT_FALSE(
      hccl::rt::reduce(out, a, b, 4, static_cast<DataType>(12), ReduceOp::Sum));
  EXPECT_FALSE(
      hccl::rt::reduce(out, a, b, 4, static_cast<DataType>(-1), ReduceOp::Sum));
  EXPECT_FALSE(hccl::rt::reduce(out, a, b, 4, DataType::Int32,
                                static_cast<ReduceOp>(4)));
  for (int v : out)
    EXPECT_EQ(v, 9);
  EXPECT_FALSE(
      hccl::rt::isValidReduction(DataType::Int32, static_cast<ReduceOp>(7)));
  EXPECT_TRUE(hccl::rt::isValidReduction(DataType::Bf16, ReduceOp::Prod));
}

TEST(ReduceInvalid, ZeroCountTouchesNothing) {
  // count 0 with null pointers is a valid no-op (empty collectives).
  EXPECT_TRUE(hccl::rt::reduce(nullptr, nullptr, nullptr, 0, DataType::Fp32,
                               ReduceOp::Sum));
}

TEST(ReduceIntegers, WrapAroundIsModular) {
  // Hand-written cases: signed overflow must wrap, not be undefined.
  int8_t a8[3] = {127, -128, 100}, b8[3] = {1, -1, 3}, o8[3];
  ASSERT_TRUE(hccl::rt::reduce(o8, a8, b8, 3, DataType::Int8, ReduceOp::Sum));
  EXPECT_EQ(o8[0], -128);
  EXPECT_EQ(o8[1], 127);
  ASSERT_TRUE(hccl::rt::reduce(o8, a8, b8, 3, DataType::Int8, ReduceOp::Prod));
  EXPECT_EQ(o8[2], 44); // 300 mod 256
  uint16_t a16[1] = {65535}, b16[1] = {65535}, o16[1];
  ASSERT_TRUE(
      hccl::rt::reduce(o16, a16, b16, 1, DataType::Uint16, ReduceOp::Prod));
  EXPECT_EQ(o16[0], 1); // (2^16-1)^2 mod 2^16
  int64_t a64[1] = {INT64_MAX}, b64[1] = {2}, o64[1];
  ASSERT_TRUE(
      hccl::rt::reduce(o64, a64, b64, 1, DataType::Int64, ReduceOp::Prod));
  EXPECT_EQ(o64[0], -2);
}

} // namespace
