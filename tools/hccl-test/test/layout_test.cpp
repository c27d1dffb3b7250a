//===- layout_test.cpp - Buffer shapes, busbw factors, reference data -----===//
#include "Layout.h"
#include "Reference.h"
#include "Verify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace hccltest;

namespace {

TEST(HcclTestLayout, CountsFollowTheHcclDefinitions) {
  // 8 KiB of fp32 on 4 ranks.
  Layout ar = layoutFor(Op::AllReduce, 8192, 4, 0, 4);
  EXPECT_EQ(ar.count, 2048u);
  EXPECT_EQ(ar.sendElems, 2048u);
  EXPECT_EQ(ar.dataBytes, 8192u);
  Layout ag = layoutFor(Op::AllGather, 8192, 4, 1, 4);
  EXPECT_EQ(ag.count, 512u); // sendCount
  EXPECT_EQ(ag.recvElems, 2048u);
  EXPECT_EQ(ag.dataBytes, 8192u);
  Layout rs = layoutFor(Op::ReduceScatter, 8192, 4, 1, 4);
  EXPECT_EQ(rs.count, 512u); // recvCount
  EXPECT_EQ(rs.sendElems, 2048u);
  Layout a2a = layoutFor(Op::AllToAll, 8192, 4, 2, 4);
  EXPECT_EQ(a2a.count, 512u);
  EXPECT_EQ(a2a.sendElems, 2048u);
  EXPECT_EQ(a2a.recvElems, 2048u);
  // Sizes that do not divide: whole elements only.
  Layout odd = layoutFor(Op::AllGather, 100, 4, 0, 3);
  EXPECT_EQ(odd.count, 8u);
  EXPECT_EQ(odd.dataBytes, 96u);
}

TEST(HcclTestLayout, AlltoallvTablesAgreeAcrossRanks) {
  const uint32_t p = 5;
  std::vector<Layout> ls;
  for (uint32_t r = 0; r < p; ++r)
    ls.push_back(layoutFor(Op::AllToAllV, 4000, 4, r, p));
  for (uint32_t i = 0; i < p; ++i) {
    for (uint32_t j = 0; j < p; ++j) {
      // What i sends to j is what j expects from i.
      EXPECT_EQ(ls[i].sendCounts[j], ls[j].recvCounts[i]) << i << "->" << j;
      if (j > 0) { // one unused element between blocks
        EXPECT_EQ(ls[i].sdispls[j],
                  ls[i].sdispls[j - 1] + ls[i].sendCounts[j - 1] + 1);
        EXPECT_EQ(ls[i].rdispls[j],
                  ls[i].rdispls[j - 1] + ls[i].recvCounts[j - 1] + 1);
      }
    }
  }
  // Not uniform: the counts really vary.
  EXPECT_NE(ls[0].sendCounts[0], ls[0].sendCounts[1]);
  // A zero nominal count never goes negative.
  Layout z = layoutFor(Op::AllToAllV, 0, 4, 0, 3);
  for (uint64_t c : z.sendCounts)
    EXPECT_LE(c, 1u);
}

TEST(HcclTestLayout, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Op::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Op::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Op::ReduceScatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Op::AllToAllV, 2), 0.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Op::Broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Op::AllReduce, 1), 0.0);
}

TEST(HcclTestReference, HalfAndBf16Codecs) {
  // Known encodings from the formats' definitions.
  EXPECT_EQ(encodeHalf(1.0), 0x3c00);
  EXPECT_EQ(encodeHalf(-2.0), 0xc000);
  EXPECT_EQ(encodeHalf(65504.0), 0x7bff);
  EXPECT_EQ(encodeHalf(65520.0), 0x7c00); // rounds to infinity
  EXPECT_EQ(encodeHalf(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(encodeHalf(2049.0), 0x6800); // tie to even: 2048
  EXPECT_EQ(encodeBf16(1.0), 0x3f80);
  EXPECT_EQ(encodeBf16(257.0), 0x4380); // tie to even: 256
  EXPECT_EQ(encodeBf16(-0.5), 0xbf00);
  for (int v = -300; v <= 300; ++v) {
    EXPECT_EQ(decodeHalf(encodeHalf(v)), v);
    if (std::abs(v) <= 256) {
      EXPECT_EQ(decodeBf16(encodeBf16(v)), v);
    }
  }
}

TEST(HcclTestReference, FloatSumInputsStayExactForAnyOrder) {
  for (HcclDataType t :
       {HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_BFP16, HCCL_DATA_TYPE_FP32}) {
    DataGen g(t, HCCL_REDUCE_SUM, true, 42);
    for (uint64_t i = 0; i < 1000; ++i) {
      double v = g.input(3, i).f;
      EXPECT_EQ(v, std::trunc(v));
      EXPECT_LE(std::fabs(v), t == HCCL_DATA_TYPE_FP32 ? 4 : 1);
    }
  }
  DataGen prod(HCCL_DATA_TYPE_FP16, HCCL_REDUCE_PROD, true, 1);
  for (uint64_t i = 0; i < 1000; ++i) {
    double v = std::fabs(prod.input(0, i).f);
    EXPECT_TRUE(v == 0.5 || v == 1 || v == 2) << v;
  }
}

TEST(HcclTestReference, IntegerCombineWrapsAndComparesWithSign) {
  DataGen sum(HCCL_DATA_TYPE_INT8, HCCL_REDUCE_SUM, true, 0);
  Value a{0, static_cast<uint64_t>(int64_t(127))}, b{0, 1};
  unsigned char out = 0;
  sum.store(&out, 0, sum.combine(a, b));
  EXPECT_EQ(static_cast<int8_t>(out), -128);
  DataGen mx(HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, true, 0);
  Value neg{0, static_cast<uint64_t>(int64_t(-5))}, pos{0, 3};
  EXPECT_EQ(mx.combine(neg, pos).bits, 3u);
  DataGen umx(HCCL_DATA_TYPE_UINT32, HCCL_REDUCE_MAX, true, 0);
  Value big{0, 0xfffffffbu}, small{0, 3};
  EXPECT_EQ(umx.combine(big, small).bits, 0xfffffffbu);
  // Signed inputs are sign-extended so comparisons see the real value.
  DataGen in16(HCCL_DATA_TYPE_INT16, HCCL_REDUCE_MIN, true, 9);
  bool sawNegative = false;
  for (uint64_t i = 0; i < 100; ++i) {
    int64_t v = static_cast<int64_t>(in16.input(0, i).bits);
    EXPECT_GE(v, -32768);
    EXPECT_LE(v, 32767);
    sawNegative = sawNegative || v < 0;
  }
  EXPECT_TRUE(sawNegative);
}

TEST(HcclTestVerify, CatchesWrongElementsAndTouchedGaps) {
  // Simulate a correct all-gather on 3 ranks, then corrupt it.
  const uint32_t p = 3;
  Layout l = layoutFor(Op::AllGather, 3 * 4 * 10, 4, 1, p);
  DataGen g(HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, false, 7);
  std::vector<float> recv(l.recvElems);
  for (uint32_t q = 0; q < p; ++q)
    g.fill(recv.data() + q * l.count, q, 0, l.count);
  RankContext ctx{Op::AllGather, 1, p, 0};
  EXPECT_EQ(verifyBuffers(ctx, l, g, recv.data()).count, 0u);
  recv[17] += 1;
  Mismatches m = verifyBuffers(ctx, l, g, recv.data());
  EXPECT_EQ(m.count, 1u);
  ASSERT_EQ(m.first.size(), 1u);
  EXPECT_NE(m.first[0].find("element 17"), std::string::npos) << m.first[0];

  // alltoallv: a transfer that writes the gap is caught.
  Layout v = layoutFor(Op::AllToAllV, 3 * 4 * 6, 4, 0, p);
  DataGen gv(HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, false, 3);
  std::vector<int32_t> out(v.recvElems);
  std::memset(out.data(), kPoison, out.size() * 4);
  for (uint32_t q = 0; q < p; ++q) {
    Layout ql = layoutFor(Op::AllToAllV, 3 * 4 * 6, 4, q, p);
    for (uint64_t i = 0; i < v.recvCounts[q]; ++i)
      gv.store(out.data(), v.rdispls[q] + i, gv.input(q, ql.sdispls[0] + i));
  }
  RankContext c0{Op::AllToAllV, 0, p, 0};
  EXPECT_EQ(verifyBuffers(c0, v, gv, out.data()).count, 0u);
  out[v.rdispls[1] + v.recvCounts[1]] = 0; // the gap after q=1's block
  EXPECT_EQ(verifyBuffers(c0, v, gv, out.data()).count, 1u);
}

} // namespace
