//===- VerifySymmetryTest.cpp - Sampled verification and rank symmetry ---===//
//
// Above the exhaustive limit the verifier reports which ranks follow rank
// 0's communication pattern (up to rotation or xor of ranks). Symmetric
// algorithms must come out symmetric on every rank; a rank that deviates
// must be counted out even when pairing still holds.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Verify.h"

#include <gtest/gtest.h>

using namespace hccl::sched;

namespace {

VerifyReport sampled(const Program &prog) {
  VerifyOptions o;
  o.exhaustiveLimit = 16; // no contents simulated at small p
  auto rep = verify(prog, o);
  EXPECT_TRUE(rep.isOk()) << rep.message();
  EXPECT_FALSE(rep->proven);
  return *rep;
}

Program gen(Collective c, Algorithm a, int64_t p, int64_t n, int64_t root = 0) {
  GenerateRequest q;
  q.collective = c;
  q.algorithm = a;
  q.ranks = p;
  q.count = n;
  q.root = root;
  auto prog = generate(q);
  EXPECT_TRUE(prog.isOk()) << prog.message();
  return prog.take();
}

TEST(VerifySymmetry, SymmetricAlgorithmsAreSymmetricOnEveryRank) {
  EXPECT_EQ(sampled(gen(Collective::AllReduce, Algorithm::Ring, 64, 6400))
                .symmetricRanks,
            64);
  EXPECT_EQ(sampled(gen(Collective::AllReduce, Algorithm::RHD, 64, 6400))
                .symmetricRanks,
            64);
  EXPECT_EQ(sampled(gen(Collective::AllToAll, Algorithm::Pairwise, 40, 3))
                .symmetricRanks,
            40);
}

TEST(VerifySymmetry, RootedAndFoldedProgramsAreNot) {
  // A tree broadcast: the root only sends, leaves only receive.
  EXPECT_LT(sampled(gen(Collective::Broadcast, Algorithm::Tree, 64, 640, 5))
                .symmetricRanks,
            64);
  // RHD on 48 ranks: the first 2*(48-32) ranks fold, the rest do not.
  EXPECT_LT(sampled(gen(Collective::AllReduce, Algorithm::RHD, 48, 4800))
                .symmetricRanks,
            48);
}

TEST(VerifySymmetry, ADeviatingRankIsCountedOut) {
  // Everyone passes one element to the next rank; rank 5 sends two and rank
  // 6 receives two. Pairing holds, symmetry does not on ranks 5 and 6.
  ProgramBuilder b;
  Program &pr = b.program();
  pr.collective = Collective::AllReduce;
  pr.algorithm = Algorithm::Ring;
  pr.p = 32;
  pr.n = 2;
  b.setBufferSize(BufferId::Input, b.n());
  b.setBufferSize(BufferId::Output, b.n());
  b.setBufferSize(BufferId::Scratch, b.c(2));
  b.addPhase("pass", b.c(1));
  E r = b.r(), p = b.p();
  b.send((r + 1) % p, BufferId::Input, b.c(0),
         select(eq(r, 5), b.c(2), b.c(1)));
  b.recv((r + p - 1) % p, BufferId::Scratch, b.c(0),
         select(eq(r, 6), b.c(2), b.c(1)));
  Program prog = b.take();
  VerifyOptions o;
  o.exhaustiveLimit = 16;
  auto rep = verify(prog, o);
  // Not an all-reduce, but without the contents simulated pairing and the
  // rank-local checks pass: not proven, and the report counts the
  // symmetric ranks.
  ASSERT_TRUE(rep.isOk()) << rep.message();
  EXPECT_FALSE(rep->proven);
  EXPECT_EQ(rep->symmetricRanks, 30);
  EXPECT_NE(rep->summary.find("communication pattern of rank 0 on 30 of 32"),
            std::string::npos)
      << rep->summary;
}

} // namespace
