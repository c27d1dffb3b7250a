//===- reduce_nontemporal_test.cpp - Streaming copies and reductions ------===//
//
// copyNontemporal / reduceManyNontemporal must give exactly what memcpy and
// reduceMany give, for every type and operator, at every alignment of dst
// (the streamed middle, the plain head and tail) and when dst aliases a
// source; so must every code path's streamed kernels (the 32-byte stores of
// the AVX2 path included) against that path's plain ones; and copyTee (the
// push) must write memcpy's bytes into both of its destinations.
//
//===----------------------------------------------------------------------===//
#include "reduce/KernelIsa.h"
#include "reduce/Nontemporal.h"
#include "reduce/Reduce.h"
#include "reduce_reference.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

using hccl::sched::DataType;
using hccl::sched::ReduceOp;

namespace {

TEST(Nontemporal, CopyMatchesMemcpyAtEveryAlignment) {
  std::mt19937_64 rng(7);
  std::vector<unsigned char> src(20002), dst(20100), expect(20100);
  for (auto &c : src)
    c = static_cast<unsigned char>(rng());
  for (size_t off : {0, 1, 7, 15, 16, 33})
    for (size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 19999}) {
      std::fill(dst.begin(), dst.end(), 0xAB);
      expect = dst;
      std::memcpy(expect.data() + off, src.data() + 3, n);
      hccl::rt::copyNontemporal(dst.data() + off, src.data() + 3, n);
      ASSERT_EQ(dst, expect) << "dst offset " << off << ", " << n << " bytes";
    }
}

// The push's copy: both destinations get exactly memcpy's bytes, nothing
// outside them changes, whatever the alignment of either (the streamed one
// sets the head; the plain one follows it), with this rank's own copy
// plain or streamed too (where it shares the peer's alignment).
TEST(Nontemporal, CopyTeeWritesBothDestinationsExactly) {
  std::mt19937_64 rng(11);
  std::vector<unsigned char> src(20100), own(20100), peer(20100);
  for (auto &c : src)
    c = static_cast<unsigned char>(rng());
  for (bool streamOwn : {false, true})
    for (size_t ownOff : {0, 3, 16, 17})
      for (size_t peerOff : {0, 1, 7, 15, 16, 33})
        for (size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 127, 4097, 19999}) {
          std::fill(own.begin(), own.end(), 0xAB);
          std::fill(peer.begin(), peer.end(), 0xCD);
          std::vector<unsigned char> wantOwn = own, wantPeer = peer;
          std::memcpy(wantOwn.data() + ownOff, src.data() + 5, n);
          std::memcpy(wantPeer.data() + peerOff, src.data() + 5, n);
          hccl::rt::copyTee(own.data() + ownOff, peer.data() + peerOff,
                            src.data() + 5, n, streamOwn);
          ASSERT_EQ(own, wantOwn)
              << ownOff << "/" << peerOff << ", " << n << ", " << streamOwn;
          ASSERT_EQ(peer, wantPeer)
              << ownOff << "/" << peerOff << ", " << n << ", " << streamOwn;
        }
}

/// Bytes from p to the next 64-byte boundary.
size_t aheadTo64(const void *p) {
  return (64 - (reinterpret_cast<uintptr_t>(p) & 63)) & 63;
}

class NontemporalReduce : public ::testing::TestWithParam<DataType> {};

TEST_P(NontemporalReduce, MatchesReduceManyBitForBit) {
  DataType t = GetParam();
  size_t es = hccl::sched::dataTypeSize(t);
  std::mt19937_64 rng(99 + static_cast<int>(t));
  for (int op = 0; op < 4; ++op)
    for (int k : {1, 2, 3, 5})
      for (size_t n : {size_t(1), size_t(31), size_t(1025), size_t(9000)})
        for (size_t elemOff : {size_t(0), size_t(1), size_t(3)}) {
          auto [srcs, ptrs] = reftest::randomSources(t, k, n, rng);
          std::vector<unsigned char> expect(n * es), out((n + 4) * es, 0x5A);
          ASSERT_TRUE(hccl::rt::reduceMany(expect.data(), ptrs.data(), k, n, t,
                                           static_cast<ReduceOp>(op)));
          ASSERT_TRUE(hccl::rt::reduceManyNontemporal(
              out.data() + elemOff * es, ptrs.data(), k, n, t,
              static_cast<ReduceOp>(op)));
          EXPECT_EQ(reftest::firstMismatch(t, out.data() + elemOff * es,
                                           expect.data(), n),
                    n)
              << hccl::sched::dataTypeName(t) << " op " << op << " k=" << k
              << " n=" << n << " offset " << elemOff;
          // Bytes around dst are untouched.
          for (size_t b = 0; b < elemOff * es; ++b)
            ASSERT_EQ(out[b], 0x5A);
          for (size_t b = (elemOff + n) * es; b < out.size(); ++b)
            ASSERT_EQ(out[b], 0x5A);
          // dst == srcs[0] (the executor's in-place accumulate).
          auto alias = srcs;
          std::vector<const void *> ap;
          for (auto &s : alias)
            ap.push_back(s.data());
          ASSERT_TRUE(hccl::rt::reduceManyNontemporal(
              alias[0].data(), ap.data(), k, n, t, static_cast<ReduceOp>(op)));
          EXPECT_EQ(
              reftest::firstMismatch(t, alias[0].data(), expect.data(), n), n)
              << "dst == srcs[0], k=" << k << " n=" << n;
        }
}

TEST_P(NontemporalReduce, EveryCodePathStreamsWhatItReduces) {
  DataType t = GetParam();
  size_t es = hccl::sched::dataTypeSize(t);
  std::mt19937_64 rng(4242 + static_cast<int>(t));
  int paths = 0;
  for (int i = 0; i < hccl::rt::kNumKernelIsas; ++i) {
    auto isa = static_cast<hccl::rt::KernelIsa>(i);
    if (!hccl::rt::kernelIsaAvailable(isa))
      continue;
    ++paths;
    for (int op = 0; op < 4; ++op)
      for (int k : {2, 3, hccl::rt::kMaxStreamedSources})
        // Sizes across the 1 KiB blocks: one element, a block and one more,
        // several blocks and a partial one.
        for (size_t n : {size_t(1), 1024 / es + 1, size_t(5000)})
          for (size_t elemOff : {size_t(0), size_t(1), size_t(5)}) {
            auto [srcs, ptrs] = reftest::randomSources(t, k, n, rng);
            auto rop = static_cast<ReduceOp>(op);
            std::vector<unsigned char> expect(n * es), out((n + 8) * es, 0x5A);
            ASSERT_TRUE(hccl::rt::reduceManyWith(isa, expect.data(),
                                                 ptrs.data(), k, n, t, rop));
            ASSERT_TRUE(hccl::rt::reduceManyStreamedWith(
                isa, out.data() + elemOff * es, ptrs.data(), k, n, t, rop));
            std::string where = std::string(hccl::rt::kernelIsaName(isa)) +
                                " " + hccl::sched::dataTypeName(t) + " op " +
                                std::to_string(op) + " k=" + std::to_string(k) +
                                " n=" + std::to_string(n) + " offset " +
                                std::to_string(elemOff);
            ASSERT_EQ(reftest::firstMismatch(t, out.data() + elemOff * es,
                                             expect.data(), n),
                      n)
                << where;
            for (size_t b = 0; b < elemOff * es; ++b)
              ASSERT_EQ(out[b], 0x5A) << where;
            for (size_t b = (elemOff + n) * es; b < out.size(); ++b)
              ASSERT_EQ(out[b], 0x5A) << where;
            // A plain copy in the same pass, at the same and at a different
            // alignment, and as the first source (in place). Streamed too
            // (a call past the cache): where the copy shares dst's 32-byte
            // alignment (elemOff + 64 / es) the fused kernels stream both.
            for (bool copyStreamed : {false, true})
              for (size_t plainOff :
                   {elemOff, elemOff + 1, elemOff + 64 / es}) {
                // Both from 64-byte boundaries, so that the offsets alone
                // decide whether they share an alignment.
                std::vector<unsigned char> againBuf((n + 8) * es + 64, 0x5A),
                    plain((n + 80) * es + 64, 0x3C);
                size_t pa = aheadTo64(againBuf.data()),
                       pp = aheadTo64(plain.data());
                unsigned char *again = againBuf.data() + pa;
                unsigned char *copyAt = plain.data() + pp + plainOff * es;
                ASSERT_TRUE(hccl::rt::reduceManyStreamedWith(
                    isa, again + elemOff * es, ptrs.data(), k, n, t, rop,
                    copyAt, copyStreamed));
                ASSERT_EQ(reftest::firstMismatch(t, again + elemOff * es,
                                                 expect.data(), n),
                          n)
                    << where << ", with a copy";
                ASSERT_EQ(reftest::firstMismatch(t, copyAt, expect.data(), n),
                          n)
                    << where << ", the copy at " << plainOff
                    << (copyStreamed ? ", streamed" : ", plain");
                for (size_t b = 0; b < pp + plainOff * es; ++b)
                  ASSERT_EQ(plain[b], 0x3C) << where;
                for (size_t b = pp + (plainOff + n) * es; b < plain.size(); ++b)
                  ASSERT_EQ(plain[b], 0x3C) << where;
              }
            {
              // The tee: both destinations sources, as in place on both
              // ranks (dst is this rank's input, peerDst the peer's); this
              // rank's copy plain, then streamed too.
              for (bool streamOwn : {false, true}) {
                auto copy = srcs;
                std::vector<const void *> cp;
                for (auto &c : copy)
                  cp.push_back(c.data());
                ASSERT_TRUE(hccl::rt::reduceManyTee(copy[0].data(),
                                                    copy[1].data(), cp.data(),
                                                    k, n, t, rop, streamOwn));
                ASSERT_EQ(
                    reftest::firstMismatch(t, copy[0].data(), expect.data(), n),
                    n)
                    << where << ", tee into srcs[0]";
                ASSERT_EQ(
                    reftest::firstMismatch(t, copy[1].data(), expect.data(), n),
                    n)
                    << where << ", tee into srcs[1]";
              }
            }
            // Into the last source, as a reduction in place does.
            ASSERT_TRUE(hccl::rt::reduceManyStreamedWith(
                isa, srcs[k - 1].data(), ptrs.data(), k, n, t, rop));
            ASSERT_EQ(
                reftest::firstMismatch(t, srcs[k - 1].data(), expect.data(), n),
                n)
                << where << ", dst == srcs[k-1]";
          }
  }
  EXPECT_GE(paths, 1);
}

TEST(Nontemporal, StreamedKernelsRefuseSourceCountsOutsideTheirRange) {
  float a[4] = {1, 2, 3, 4}, out[4] = {};
  std::vector<const void *> srcs(hccl::rt::kMaxStreamedSources + 1, a);
  auto isa = hccl::rt::activeKernelIsa();
  EXPECT_FALSE(hccl::rt::reduceManyStreamedWith(isa, out, srcs.data(), 1, 4,
                                                DataType::Fp32, ReduceOp::Sum));
  EXPECT_FALSE(hccl::rt::reduceManyStreamedWith(
      isa, out, srcs.data(), hccl::rt::kMaxStreamedSources + 1, 4,
      DataType::Fp32, ReduceOp::Sum));
  EXPECT_EQ(out[0], 0.0f);
  // reduceManyNontemporal and reduceManyTee take more sources, with plain
  // stores, and the tee takes one.
  ASSERT_TRUE(hccl::rt::reduceManyNontemporal(
      out, srcs.data(), hccl::rt::kMaxStreamedSources + 1, 4, DataType::Fp32,
      ReduceOp::Sum));
  EXPECT_EQ(out[3], 4.0f * (hccl::rt::kMaxStreamedSources + 1));
  float peer[4] = {};
  std::fill(out, out + 4, 0.0f);
  ASSERT_TRUE(hccl::rt::reduceManyTee(out, peer, srcs.data(),
                                      hccl::rt::kMaxStreamedSources + 1, 4,
                                      DataType::Fp32, ReduceOp::Sum));
  EXPECT_EQ(out[3], 4.0f * (hccl::rt::kMaxStreamedSources + 1));
  EXPECT_EQ(peer[3], out[3]);
  ASSERT_TRUE(hccl::rt::reduceManyTee(out, peer, srcs.data(), 1, 4,
                                      DataType::Fp32, ReduceOp::Sum));
  EXPECT_EQ(out[2], 3.0f);
  EXPECT_EQ(peer[2], 3.0f);
  EXPECT_FALSE(hccl::rt::reduceManyTee(out, peer, srcs.data(), 0, 4,
                                       DataType::Fp32, ReduceOp::Sum));
}

TEST(Nontemporal, RefusesWhatReduceManyRefuses) {
  float a[4] = {1, 2, 3, 4}, out[4] = {};
  const void *srcs[2] = {a, a};
  EXPECT_FALSE(hccl::rt::reduceManyNontemporal(out, srcs, 0, 4, DataType::Fp32,
                                               ReduceOp::Sum));
  EXPECT_FALSE(hccl::rt::reduceManyNontemporal(
      out, srcs, 2, 4, static_cast<DataType>(99), ReduceOp::Sum));
  EXPECT_FALSE(hccl::rt::reduceManyNontemporal(out, srcs, 2, 4, DataType::Fp32,
                                               static_cast<ReduceOp>(7)));
  EXPECT_EQ(out[0], 0.0f) << "a refused call touches nothing";
}

INSTANTIATE_TEST_SUITE_P(AllTypes, NontemporalReduce, reftest::allDataTypes(),
                         reftest::dataTypeTestName);

} // namespace
