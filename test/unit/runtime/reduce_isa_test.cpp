//===- reduce_isa_test.cpp - Every kernel code path, special values -------===//
//
// Runs each code path this CPU supports (baseline and AVX2/F16C) against the
// reference: exhaustively over all 2^16 fp16 and bf16 operands, and over
// NaN, infinity, signed zero and subnormal cases. A path the CPU lacks is
// reported as skipped.
//
//===----------------------------------------------------------------------===//
#include "reduce/KernelIsa.h"
#include "reduce/Reduce.h"
#include "reduce_reference.h"

#include <gtest/gtest.h>

#include <limits>

using hccl::rt::KernelIsa;
using hccl::sched::DataType;
using hccl::sched::ReduceOp;

namespace {

bool runOn(KernelIsa isa, void *dst, const void *a, const void *b, size_t n,
           DataType t, ReduceOp op) {
  const void *srcs[2] = {a, b};
  return hccl::rt::reduceManyWith(isa, dst, srcs, 2, n, t, op);
}

class KernelPath : public ::testing::TestWithParam<KernelIsa> {
protected:
  void SetUp() override {
    if (!hccl::rt::kernelIsaAvailable(GetParam()))
      GTEST_SKIP() << hccl::rt::kernelIsaName(GetParam())
                   << " kernels are not available on this CPU/build";
  }
  bool run(void *dst, const void *a, const void *b, size_t n, DataType t,
           ReduceOp op) {
    return runOn(GetParam(), dst, a, b, n, t, op);
  }
};

// Every 16-bit pattern as the left operand, against a shifting set of right
// operands, for all ops; NaN results are compared by NaN-ness for sum/prod
// (the hardware picks the payload) and bit-exactly otherwise.
void exhaustive16(KernelIsa isa, DataType t, const reftest::SmallFloat &f) {
  const size_t n = 65536;
  std::vector<uint16_t> a(n), b(n), out(n), expect(n);
  for (size_t i = 0; i < n; ++i)
    a[i] = static_cast<uint16_t>(i);
  std::mt19937_64 rng(99);
  for (int round = 0; round < 6; ++round) {
    for (size_t i = 0; i < n; ++i)
      b[i] = round == 0   ? static_cast<uint16_t>(i)          // x op x
             : round == 1 ? static_cast<uint16_t>(i ^ 0x8000) // x op -x
             : round == 2 ? static_cast<uint16_t>(i + 1)      // neighbours
                          : static_cast<uint16_t>(rng());
    for (int op = 0; op < 4; ++op) {
      auto rop = static_cast<ReduceOp>(op);
      ASSERT_TRUE(runOn(isa, out.data(), a.data(), b.data(), n, t, rop));
      reftest::refReduce(t, rop, a.data(), b.data(), expect.data(), n);
      size_t bad = 0;
      for (size_t i = 0; i < n && bad < 5; ++i) {
        bool same = out[i] == expect[i] ||
                    (f.isNan(out[i]) && f.isNan(expect[i]) &&
                     (rop == ReduceOp::Sum || rop == ReduceOp::Prod));
        if (!same) {
          ++bad;
          ADD_FAILURE() << hccl::sched::dataTypeName(t) << " "
                        << hccl::sched::reduceOpName(rop) << " round " << round
                        << ": 0x" << std::hex << a[i] << " op 0x" << b[i]
                        << " = 0x" << out[i] << ", expected 0x" << expect[i];
        }
      }
    }
  }
}

TEST_P(KernelPath, Fp16ExhaustiveMatchesReference) {
  exhaustive16(GetParam(), DataType::Fp16, reftest::kHalf);
}

TEST_P(KernelPath, Bf16ExhaustiveMatchesReference) {
  exhaustive16(GetParam(), DataType::Bf16, reftest::kBf16);
}

TEST_P(KernelPath, EveryTypeAndOpMatchesReference) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < hccl::sched::kNumDataTypes; ++t) {
    DataType dt = static_cast<DataType>(t);
    size_t sz = hccl::sched::dataTypeSize(dt);
    for (size_t n : {size_t(1), size_t(13), size_t(4099)}) {
      auto a = reftest::randomData(dt, n, rng);
      auto b = reftest::randomData(dt, n, rng);
      for (int op = 0; op < 4; ++op) {
        std::vector<unsigned char> out(n * sz), expect(n * sz);
        ASSERT_TRUE(run(out.data(), a.data(), b.data(), n, dt,
                        static_cast<ReduceOp>(op)));
        reftest::refReduce(dt, static_cast<ReduceOp>(op), a.data(), b.data(),
                           expect.data(), n);
        EXPECT_EQ(out, expect)
            << hccl::sched::dataTypeName(dt) << " op " << op << " n=" << n;
      }
    }
  }
}

TEST_P(KernelPath, FloatSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float den = std::numeric_limits<float>::denorm_min();
  float a[] = {inf, inf, nan, 1.0f, 0.0f, -0.0f, den, -inf};
  float b[] = {-inf, 1.0f, 2.0f, nan, -0.0f, 0.0f, den, -inf};
  float out[8];
  ASSERT_TRUE(run(out, a, b, 8, DataType::Fp32, ReduceOp::Sum));
  EXPECT_TRUE(std::isnan(out[0])); // inf + -inf
  EXPECT_EQ(out[1], inf);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_TRUE(std::isnan(out[3]));
  EXPECT_EQ(out[6], 2 * den); // denormals are kept, not flushed
  EXPECT_EQ(out[7], -inf);
  ASSERT_TRUE(run(out, a, b, 8, DataType::Fp32, ReduceOp::Max));
  EXPECT_TRUE(std::isnan(out[2])) << "max propagates a NaN on the left";
  EXPECT_TRUE(std::isnan(out[3])) << "max propagates a NaN on the right";
  EXPECT_TRUE(std::signbit(out[4])) << "max(+0, -0) is the right operand";
  EXPECT_FALSE(std::signbit(out[5]));
  ASSERT_TRUE(run(out, a, b, 8, DataType::Fp32, ReduceOp::Min));
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_TRUE(std::isnan(out[3]));
  EXPECT_EQ(out[0], -inf);
  ASSERT_TRUE(run(out, a, b, 8, DataType::Fp32, ReduceOp::Prod));
  EXPECT_EQ(out[1], inf);
  EXPECT_EQ(out[6], 0.0f); // denorm * denorm underflows to +0
}

TEST_P(KernelPath, HalfOverflowAndSubnormals) {
  // Hand-picked fp16 cases whose answers follow from the format alone.
  uint16_t a[] = {0x7bff, 0x7bff, 0x0001, 0x03ff, 0x3c00, 0x7c00, 0xfc00};
  uint16_t b[] = {0x7bff, 0x0001, 0x0001, 0x0001, 0x8000, 0xfc00, 0xfc00};
  uint16_t out[7];
  ASSERT_TRUE(run(out, a, b, 7, DataType::Fp16, ReduceOp::Sum));
  EXPECT_EQ(out[0], 0x7c00); // 65504 + 65504 overflows to +inf
  EXPECT_EQ(out[1], 0x7bff); // 65504 + 2^-24 rounds back down
  EXPECT_EQ(out[2], 0x0002); // subnormal + subnormal, exact
  EXPECT_EQ(out[3], 0x0400); // largest subnormal + ulp = smallest normal
  EXPECT_EQ(out[4], 0x3c00); // 1 + -0 = 1
  EXPECT_EQ(out[5] & 0x7c00, 0x7c00);
  EXPECT_NE(out[5] & 0x3ff, 0) << "inf + -inf is NaN";
  EXPECT_EQ(out[6], 0xfc00);
  ASSERT_TRUE(run(out, a, b, 7, DataType::Fp16, ReduceOp::Prod));
  EXPECT_EQ(out[0], 0x7c00);
  EXPECT_EQ(out[2], 0x0000); // 2^-48 underflows to +0
  // Signalling NaN in, quiet NaN with the same payload out (max/min).
  uint16_t snan[1] = {0x7d01}, one[1] = {0x3c00};
  ASSERT_TRUE(run(out, snan, one, 1, DataType::Fp16, ReduceOp::Max));
  EXPECT_EQ(out[0], 0x7f01);
  ASSERT_TRUE(run(out, one, snan, 1, DataType::Fp16, ReduceOp::Min));
  EXPECT_EQ(out[0], 0x7f01);
}

TEST_P(KernelPath, Bf16NanStaysNan) {
  // 0x7f81 is a signalling NaN; rounding must not carry it into infinity.
  uint16_t a[] = {0x7f81, 0x7f7f}, b[] = {0x3f80, 0x7f7f}, out[2];
  ASSERT_TRUE(run(out, a, b, 2, DataType::Bf16, ReduceOp::Max));
  EXPECT_EQ(out[0], 0x7fc1);
  ASSERT_TRUE(run(out, a, b, 2, DataType::Bf16, ReduceOp::Sum));
  EXPECT_TRUE((out[0] & 0x7f80) == 0x7f80 && (out[0] & 0x7f));
  EXPECT_EQ(out[1], 0x7f80); // max bf16 + max bf16 = +inf
}

INSTANTIATE_TEST_SUITE_P(Isa, KernelPath,
                         ::testing::Values(KernelIsa::Generic, KernelIsa::Avx2),
                         [](const ::testing::TestParamInfo<KernelIsa> &info) {
                           return std::string(
                               hccl::rt::kernelIsaName(info.param));
                         });

TEST(KernelPaths, ActivePathIsAvailableAndPathsAgree) {
  KernelIsa active = hccl::rt::activeKernelIsa();
  EXPECT_TRUE(hccl::rt::kernelIsaAvailable(active));
  EXPECT_TRUE(hccl::rt::kernelIsaAvailable(KernelIsa::Generic));
  // Same random fp16 input through every available path: identical bits.
  std::mt19937_64 rng(5);
  const size_t n = 10007;
  auto a = reftest::randomData(DataType::Fp16, n, rng);
  auto b = reftest::randomData(DataType::Fp16, n, rng);
  auto c = reftest::randomData(DataType::Fp16, n, rng);
  const void *srcs[3] = {a.data(), b.data(), c.data()};
  std::vector<unsigned char> first;
  for (int i = 0; i < hccl::rt::kNumKernelIsas; ++i) {
    auto isa = static_cast<KernelIsa>(i);
    if (!hccl::rt::kernelIsaAvailable(isa))
      continue;
    std::vector<unsigned char> out(n * 2);
    ASSERT_TRUE(hccl::rt::reduceManyWith(isa, out.data(), srcs, 3, n,
                                         DataType::Fp16, ReduceOp::Sum));
    if (first.empty())
      first = out;
    else
      EXPECT_EQ(out, first) << hccl::rt::kernelIsaName(isa);
  }
}

} // namespace
