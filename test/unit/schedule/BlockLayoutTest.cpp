//===- BlockLayoutTest.cpp - Collectives along non-leading dimensions -----===//
//
// A reduce-scatter, all-gather or all-to-all along a dimension that is not
// the leading one moves every block as rows (Program::inputOuter /
// outputOuter, docs/step-programs.md "Block layout"). Here: the layout is
// the tensor semantics (checked against explicit N-d indexing), every flat
// algorithm generates programs the verifier proves in that layout, and a
// program whose declared layout differs from what it moves is refused.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Verify.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

using namespace hccl::sched;

namespace {

// all_gather of a d0 x d1 x d2 tensor along dimension 1 over p ranks: the
// result is d0 x (p*d1) x d2, rank k's input at [a][k*d1 + b][c]. Its flat
// index must be blockOffset(k, flat input index, p, n, A = d0).
TEST(BlockLayout, IsTheTensorLayoutOfAGatherAlongAnInnerDimension) {
  for (auto [d0, d1, d2] :
       {std::array<int64_t, 3>{3, 2, 5}, std::array<int64_t, 3>{1, 4, 3},
        std::array<int64_t, 3>{4, 1, 1}})
    for (int64_t p : {1, 2, 3}) {
      int64_t n = d0 * d1 * d2;
      for (int64_t k = 0; k < p; ++k)
        for (int64_t a = 0; a < d0; ++a)
          for (int64_t b = 0; b < d1; ++b)
            for (int64_t c = 0; c < d2; ++c) {
              int64_t in = (a * d1 + b) * d2 + c;
              int64_t out = (a * p * d1 + k * d1 + b) * d2 + c;
              ASSERT_EQ(blockOffset(k, in, p, n, d0), out)
                  << d0 << "x" << d1 << "x" << d2 << " p=" << p;
            }
    }
  // Outer 1 is the leading layout.
  EXPECT_EQ(blockOffset(2, 5, 4, 8, 1), 21);
}

// all_to_all of a d0 x d1 tensor with split_dimension 1 and
// concat_dimension 0: the block for rank r is [:, r*d1/p : (r+1)*d1/p]
// (input rows A_in = d0), placed at rows [j*d0, (j+1)*d0) of the output
// (A_out = 1). Element e of the block must come from and go to the places
// blockOffset gives.
TEST(BlockLayout, IsTheTensorLayoutOfAnAllToAllAcrossDimensions) {
  const int64_t d0 = 3, d1 = 8, p = 4, w = d1 / p, n = d0 * w;
  for (int64_t r = 0; r < p; ++r)
    for (int64_t a = 0; a < d0; ++a)
      for (int64_t c = 0; c < w; ++c) {
        int64_t e = a * w + c; // row-major in the d0 x w block
        EXPECT_EQ(blockOffset(r, e, p, n, d0), a * d1 + r * w + c);
        EXPECT_EQ(blockOffset(r, e, p, n, 1), (r * d0 + a) * w + c);
      }
}

Result<Program> make(Collective c, Algorithm a, int64_t p, int64_t n,
                     int64_t in, int64_t out, int64_t slices = 1) {
  GenerateRequest req;
  req.collective = c;
  req.algorithm = a;
  req.ranks = p;
  req.count = n;
  req.inputOuter = in;
  req.outputOuter = out;
  req.slices = slices;
  return generate(req);
}

struct Case {
  Collective c;
  int64_t in, out;
};

TEST(BlockLayout, EveryFlatAlgorithmIsProvenInTheLayout) {
  const Case cases[] = {
      {Collective::AllGather, 1, 3},     {Collective::AllGather, 1, 12},
      {Collective::ReduceScatter, 3, 1}, {Collective::ReduceScatter, 12, 1},
      {Collective::AllToAll, 3, 1},      {Collective::AllToAll, 1, 4},
      {Collective::AllToAll, 2, 6},      {Collective::AllToAll, 6, 3},
      {Collective::AllToAll, 4, 4}};
  int proven = 0;
  for (const Case &k : cases)
    for (Algorithm a : algorithmsFor(k.c)) {
      if (a == Algorithm::Hierarchical)
        continue;
      for (int64_t p : {1, 2, 3, 4, 5, 7, 8})
        for (int64_t slices : {1, 3}) {
          const int64_t n = 12;
          auto prog = make(k.c, a, p, n, k.in, k.out, slices);
          ASSERT_TRUE(prog.isOk())
              << collectiveName(k.c) << " " << algorithmName(a) << " p=" << p
              << ": " << prog.message();
          EXPECT_EQ(prog->inputOuter, k.in);
          EXPECT_EQ(prog->outputOuter, k.out);
          Status s = prove(*prog);
          EXPECT_TRUE(s.isOk())
              << collectiveName(k.c) << " " << algorithmName(a) << " p=" << p
              << " in=" << k.in << " out=" << k.out << " slices=" << slices
              << ": " << s.message();
          ++proven;
        }
    }
  EXPECT_GT(proven, 200);
}

// The verifier holds a program to its declared layout: rows moved as if
// leading, or leading blocks declared as rows, are wrong results.
TEST(BlockLayout, AProgramMovingAnotherLayoutIsRefused) {
  for (Algorithm a :
       {Algorithm::Ring, Algorithm::MeshTwoShot, Algorithm::RHD}) {
    auto rows = make(Collective::AllGather, a, 4, 6, 1, 3);
    ASSERT_TRUE(rows.isOk()) << rows.message();
    Program lied = *rows;
    lied.outputOuter = 1;
    VerifyOptions outOfPlace; // the leading layout also has an in-place form
    outOfPlace.inPlace = false;
    Status s = prove(lied, outOfPlace);
    EXPECT_FALSE(s.isOk()) << algorithmName(a);
    EXPECT_NE(s.message().find("expected input element"), std::string::npos)
        << s.message();

    auto lead = make(Collective::ReduceScatter, a, 4, 6, 1, 1);
    ASSERT_TRUE(lead.isOk()) << lead.message();
    Program claimed = *lead;
    claimed.inputOuter = 2;
    EXPECT_FALSE(prove(claimed).isOk()) << algorithmName(a);
  }
  auto a2a = make(Collective::AllToAll, Algorithm::Pairwise, 3, 6, 2, 1);
  ASSERT_TRUE(a2a.isOk()) << a2a.message();
  Program swapped = *a2a;
  swapped.inputOuter = 1;
  swapped.outputOuter = 2;
  EXPECT_FALSE(prove(swapped).isOk());
}

TEST(BlockLayout, LayoutsACollectiveCannotHaveAreErrors) {
  struct {
    Collective c;
    Algorithm a;
    int64_t n, in, out;
    const char *expect;
  } bad[] = {
      {Collective::AllGather, Algorithm::Ring, 12, 2, 1,
       "input_outer 2: the input of allgather is not made of blocks"},
      {Collective::ReduceScatter, Algorithm::Ring, 12, 1, 3,
       "output_outer 3: the output of reducescatter is not made of blocks"},
      {Collective::AllReduce, Algorithm::Ring, 12, 2, 1,
       "the input of allreduce is not made of blocks"},
      {Collective::AllGather, Algorithm::Ring, 10, 1, 3,
       "output_outer 3 does not divide count 10"},
      {Collective::AllToAll, Algorithm::Pairwise, 12, 2, 3,
       "rows of 4 elements do not tile rows of 6"},
      {Collective::AllGather, Algorithm::Ring, 12, 1, 0,
       "output_outer must be >= 1"},
      {Collective::AllGather, Algorithm::Hierarchical, 12, 1, 3,
       "hierarchical algorithms move blocks of the leading dimension only"},
  };
  for (const auto &b : bad) {
    GenerateRequest req;
    req.collective = b.c;
    req.algorithm = b.a;
    req.ranks = 4;
    req.ranksPerServer = 2;
    req.count = b.n;
    req.inputOuter = b.in;
    req.outputOuter = b.out;
    auto prog = generate(req);
    ASSERT_FALSE(prog.isOk()) << b.expect;
    EXPECT_NE(prog.message().find(b.expect), std::string::npos)
        << prog.message();
  }
}

// Rows cost messages: the closed form charges the latency of every piece.
TEST(BlockLayout, ClosedFormChargesEveryRow) {
  Topology t = *Topology::preset("host-4");
  ClosedFormRequest req;
  req.collective = Collective::AllGather;
  req.algorithm = Algorithm::Ring;
  req.bytes = 4096;
  req.p = 4;
  auto one = closedFormCost(req, t);
  req.pieces = 8;
  auto eight = closedFormCost(req, t);
  ASSERT_TRUE(one.isOk() && eight.isOk());
  // Ring all-gather: p-1 steps, each 7 more latencies.
  EXPECT_NEAR(*eight - *one, 3 * 7 * t.intra.alpha(), 1e-12);
  req.algorithm = Algorithm::Hierarchical;
  EXPECT_FALSE(closedFormCost(req, t).isOk());
}

} // namespace
