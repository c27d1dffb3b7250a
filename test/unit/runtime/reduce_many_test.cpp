//===- reduce_many_test.cpp - reduceMany(): k sources, order, aliasing ----===//
#include "reduce/Reduce.h"
#include "reduce_reference.h"

#include <gtest/gtest.h>

using hccl::sched::DataType;
using hccl::sched::ReduceOp;

namespace {

/// Left-to-right fold with the pairwise reference.
std::vector<unsigned char>
refFold(DataType t, ReduceOp op,
        const std::vector<std::vector<unsigned char>> &srcs, size_t n) {
  std::vector<unsigned char> acc = srcs[0];
  for (size_t j = 1; j < srcs.size(); ++j)
    reftest::refReduce(t, op, acc.data(), srcs[j].data(), acc.data(), n);
  return acc;
}

class ReduceMany : public ::testing::TestWithParam<DataType> {};

TEST_P(ReduceMany, FoldsLeftToRightForEveryK) {
  DataType t = GetParam();
  size_t sz = hccl::sched::dataTypeSize(t);
  std::mt19937_64 rng(1234 + static_cast<int>(t));
  for (int op = 0; op < 4; ++op) {
    for (int k : {1, 2, 3, 4, 5, 8}) {
      for (size_t n : {size_t(1), size_t(9), size_t(1500), size_t(5000)}) {
        auto [srcs, ptrs] = reftest::randomSources(t, k, n, rng);
        auto expect = refFold(t, static_cast<ReduceOp>(op), srcs, n);
        std::vector<unsigned char> out(n * sz);
        ASSERT_TRUE(hccl::rt::reduceMany(out.data(), ptrs.data(), k, n, t,
                                         static_cast<ReduceOp>(op)));
        // Long bf16/fp16 folds reach inf and then NaN (inf - inf): NaNs
        // compare equal whatever their payload.
        EXPECT_EQ(reftest::firstMismatch(t, out.data(), expect.data(), n), n)
            << hccl::sched::dataTypeName(t) << " op " << op << " k=" << k
            << " n=" << n;
        // In place on each source in turn (the executor accumulates into
        // srcs[0]; any exact alias is supported).
        for (int j : {0, k - 1}) {
          auto copy = srcs;
          std::vector<const void *> cp;
          for (auto &s : copy)
            cp.push_back(s.data());
          ASSERT_TRUE(hccl::rt::reduceMany(copy[j].data(), cp.data(), k, n, t,
                                           static_cast<ReduceOp>(op)));
          EXPECT_EQ(reftest::firstMismatch(t, copy[j].data(), expect.data(), n),
                    n)
              << "dst == srcs[" << j << "], k=" << k;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, ReduceMany, reftest::allDataTypes(),
                         reftest::dataTypeTestName);

TEST(ReduceManyOrder, Fp16RoundsAfterEveryPairwiseOp) {
  // 2048 + 1 + 1 in fp16: each +1 is a tie at 2048 (ulp 2) and rounds back
  // to even 2048, so the left fold gives 2048. Summing 1 + 1 first would
  // give 2050: the order and the per-op rounding are observable.
  const uint16_t big = 0x6800, one = 0x3c00; // 2048.0, 1.0
  uint16_t a[1] = {big}, b[1] = {one}, c[1] = {one}, out[1];
  const void *srcs[3] = {a, b, c};
  ASSERT_TRUE(
      hccl::rt::reduceMany(out, srcs, 3, 1, DataType::Fp16, ReduceOp::Sum));
  EXPECT_EQ(out[0], big);
  const void *rev[3] = {b, c, a};
  ASSERT_TRUE(
      hccl::rt::reduceMany(out, rev, 3, 1, DataType::Fp16, ReduceOp::Sum));
  EXPECT_EQ(out[0], 0x6801); // 2050.0
}

TEST(ReduceManyOrder, Bf16RoundsAfterEveryPairwiseOp) {
  // bf16 has 8 significant bits: ulp(256) = 2, so 256 + 1 ties to 256.
  const uint16_t big = 0x4380, one = 0x3f80; // 256.0, 1.0
  uint16_t a[1] = {big}, b[1] = {one}, out[1];
  const void *srcs[3] = {a, b, b};
  ASSERT_TRUE(
      hccl::rt::reduceMany(out, srcs, 3, 1, DataType::Bf16, ReduceOp::Sum));
  EXPECT_EQ(out[0], big);
  const void *rev[3] = {b, b, a};
  ASSERT_TRUE(
      hccl::rt::reduceMany(out, rev, 3, 1, DataType::Bf16, ReduceOp::Sum));
  EXPECT_EQ(out[0], 0x4381); // 258.0
}

TEST(ReduceManyInvalid, RejectsNonPositiveK) {
  float a[2] = {1, 2}, out[2] = {7, 7};
  const void *srcs[1] = {a};
  EXPECT_FALSE(
      hccl::rt::reduceMany(out, srcs, 0, 2, DataType::Fp32, ReduceOp::Sum));
  EXPECT_FALSE(
      hccl::rt::reduceMany(out, srcs, -3, 2, DataType::Fp32, ReduceOp::Sum));
  EXPECT_EQ(out[0], 7.0f);
}

TEST(ReduceManyInvalid, SingleSourceIsACopy) {
  double a[3] = {1.5, -2.25, 3.0}, out[3] = {0, 0, 0};
  const void *srcs[1] = {a};
  ASSERT_TRUE(
      hccl::rt::reduceMany(out, srcs, 1, 3, DataType::Fp64, ReduceOp::Prod));
  EXPECT_EQ(out[1], -2.25);
}

} // namespace
