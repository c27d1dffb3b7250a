//===- TypesTest.cpp - Names and the one byte-size parser -----------------===//
#include "hccl-mlir/schedule/Types.h"

#include <gtest/gtest.h>

using namespace hccl::sched;

namespace {

TEST(ByteSize, Decimal) {
  EXPECT_EQ(parseByteSize("8192"), 8192u);
  EXPECT_EQ(parseByteSize("8K"), 8192u);
  EXPECT_EQ(parseByteSize("8kb"), 8192u);
  EXPECT_EQ(parseByteSize("64M"), 64u << 20);
  EXPECT_EQ(parseByteSize("1G"), 1u << 30);
  EXPECT_EQ(parseByteSize("7B"), 7u);
  EXPECT_EQ(parseByteSize("010"), 10u) << "decimal: no octal";
  EXPECT_EQ(parseByteSize("18446744073709551615"), UINT64_MAX);
  for (const char *bad : {"", "K", "B", "KB", "-1", "+1", "1.5K", "0x10", "8 K",
                          "1T", "18446744073709551616", "17179869184G"})
    EXPECT_FALSE(parseByteSize(bad)) << bad;
}

// Huawei hccl_test's -b/-e/-i: strtoull with base 0, then one of K, M, G.
TEST(ByteSize, CSyntax) {
  auto c = [](const char *s) { return parseByteSize(s, SizeDigits::C); };
  EXPECT_EQ(c("0x1000"), 4096u);
  EXPECT_EQ(c("0XfF"), 255u);
  EXPECT_EQ(c("0xB"), 11u) << "B is a hex digit here, not a unit";
  EXPECT_EQ(c("010"), 8u);
  EXPECT_EQ(c("0"), 0u);
  EXPECT_EQ(c("00"), 0u);
  EXPECT_EQ(c("0x10K"), 16u << 10);
  EXPECT_EQ(c("2k"), 2048u);
  EXPECT_EQ(c("64M"), 64u << 20);
  for (const char *bad : {"", "0x", "09", "0xG1", "8KB", "8B", "-1", "x10",
                          "0x10000000000000000"})
    EXPECT_FALSE(c(bad)) << bad;
}

} // namespace
