//===- VerifyMutationTest.cpp - Broken programs are rejected, with why ----===//
//
// Each test breaks a correct generated program in one way and checks that
// the verifier rejects it with the message that names that problem.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Verify.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace hccl::sched;

namespace {

Program gen(Collective c, Algorithm a, int64_t p, int64_t n) {
  GenerateRequest q;
  q.collective = c;
  q.algorithm = a;
  q.ranks = p;
  q.count = n;
  auto prog = generate(q);
  EXPECT_TRUE(prog.isOk()) << prog.message();
  EXPECT_TRUE(verify(*prog).isOk()) << "the unmutated program must verify";
  return prog.take();
}

// The index of the first phase called `name` that holds an op of `kind`.
Op &findOp(Program &prog, const std::string &name, OpKind kind,
           size_t *phaseIdx = nullptr, size_t *opIdx = nullptr) {
  for (size_t ph = 0; ph < prog.phases.size(); ++ph)
    if (prog.phases[ph].name == name)
      for (size_t i = 0; i < prog.phases[ph].ops.size(); ++i)
        if (prog.phases[ph].ops[i].kind == kind) {
          if (phaseIdx)
            *phaseIdx = ph;
          if (opIdx)
            *opIdx = i;
          return prog.phases[ph].ops[i];
        }
  ADD_FAILURE() << "no " << opKindName(kind) << " in phase " << name;
  static Op none;
  return none;
}

void expectRejected(const Program &prog, const std::string &fragment,
                    VerifyOptions o = {}) {
  auto r = verify(prog, o);
  ASSERT_FALSE(r.isOk()) << "mutation not detected; expected: " << fragment;
  EXPECT_NE(r.message().find(fragment), std::string::npos)
      << "message: " << r.message();
}

TEST(VerifyMutation, DroppedSendBreaksPairing) {
  Program prog = gen(Collective::AllReduce, Algorithm::Ring, 6, 600);
  size_t ph = 0, oi = 0;
  findOp(prog, "ag", OpKind::Send, &ph, &oi);
  prog.phases[ph].ops.erase(prog.phases[ph].ops.begin() + oi);
  expectRejected(prog, "receives 100 elements from rank 5, which sends "
                       "nothing matching to 0 in this step");
  expectRejected(prog, "rank 0, phase 2 'ag' step 0");
}

TEST(VerifyMutation, DroppedReceiveBreaksPairing) {
  Program prog = gen(Collective::AllGather, Algorithm::MeshTwoShot, 5, 7);
  size_t ph = 0, oi = 0;
  findOp(prog, "ag_exchange", OpKind::Recv, &ph, &oi);
  prog.phases[ph].ops.erase(prog.phases[ph].ops.begin() + oi);
  expectRejected(prog, "sends 7 elements to rank 0, which posts no matching "
                       "receive from 1 in this step");
}

TEST(VerifyMutation, DoubledOpIsAHazard) {
  Program prog = gen(Collective::AllReduce, Algorithm::Ring, 4, 400);
  size_t ph = 0, oi = 0;
  Op rr = findOp(prog, "rs", OpKind::RecvReduce, &ph, &oi);
  Op snd = findOp(prog, "rs", OpKind::Send);
  // Both halves doubled, so pairing still holds: the two receives write the
  // same block in one step.
  prog.phases[ph].ops.push_back(snd);
  prog.phases[ph].ops.push_back(rr);
  expectRejected(prog, "hazard: op 1 (recv_reduce from 3) writes output[200, "
                       "300) while op 3 (recv_reduce from 3) writes "
                       "output[200, 300)");
}

TEST(VerifyMutation, DoubledContributionIsCounted) {
  // Mesh two-shot: reduce slot 0 p times instead of slots 0..p-1.
  Program prog = gen(Collective::AllReduce, Algorithm::MeshTwoShot, 4, 400);
  Op &red = findOp(prog, "rs_reduce", OpKind::Reduce);
  red.srcStride = prog.pool.constant(0);
  expectRejected(prog, "expected the reduction of all 4 ranks' input element "
                       "0, found a reduction of 4 contributions of input "
                       "element 0 (some rank counted twice, another missing)");
}

TEST(VerifyMutation, MissingContributionIsCounted) {
  Program prog = gen(Collective::AllReduce, Algorithm::MeshOneShot, 4, 40);
  Op &red = findOp(prog, "reduce", OpKind::Reduce);
  red.srcN = prog.pool.constant(3);
  expectRejected(prog, "rank 0: output[0, 40): expected the reduction of all "
                       "4 ranks' input element 0, found a reduction of 3 "
                       "contributions of input element 0");
}

TEST(VerifyMutation, WrongPeerBreaksPairing) {
  Program prog = gen(Collective::AllReduce, Algorithm::Ring, 5, 500);
  Op &snd = findOp(prog, "rs", OpKind::Send);
  E r(&prog.pool, prog.pool.var(ExprVar::R));
  snd.peer = ((r + 2) % 5).id();
  // Rank 3 now sends to (3+2)%5 = 0, which expects rank 4's data.
  expectRejected(prog, "rank 3, phase 0 'rs' step 0 (step 0), op 0 (send to "
                       "0): sends 100 elements to rank 0, which posts no "
                       "matching receive from 3 in this step");
}

TEST(VerifyMutation, OffByOneOffsetIsCaught) {
  // All-gather receive one element too far: the last block overflows.
  {
    Program prog = gen(Collective::AllGather, Algorithm::Ring, 4, 10);
    Op &rcv = findOp(prog, "ag", OpKind::Recv);
    E off(&prog.pool, rcv.dst.off);
    rcv.dst.off = (off + 1).id();
    expectRejected(prog, "writes output[31, 41) beyond its size 40");
  }
  // Reduce-scatter accumulating from its input one element too early: rank
  // 0's first block starts at 0, so the offset turns negative.
  {
    Program prog = gen(Collective::ReduceScatter, Algorithm::Ring, 4, 10);
    Op &rr = findOp(prog, "rs_last", OpKind::RecvReduce);
    E off(&prog.pool, rr.src.off);
    rr.src.off = (off - 1).id();
    expectRejected(prog, "rank 0, phase 2 'rs_last' step 0, op 1 "
                         "(recv_reduce, t=0): src offset -1 is negative");
  }
  // In bounds but misaligned: 2 ranks exchange 4 elements and add them to
  // their input read one element late, so element e meets element e+1.
  {
    Program base;
    base.p = 2;
    base.n = 4;
    ProgramBuilder b(std::move(base));
    E r = b.r(), n = b.n();
    b.setBufferSize(BufferId::Input, n * 2);
    b.setBufferSize(BufferId::Output, n);
    b.setBufferSize(BufferId::Scratch, b.c(0));
    b.addPhase("swap", b.c(1));
    b.send(1 - r, BufferId::Input, b.c(0), n);
    b.recvReduce(1 - r, BufferId::Output, b.c(0), BufferId::Input, b.c(1), n);
    VerifyOptions outOfPlace; // (not written to be safe in place)
    outOfPlace.inPlace = false;
    expectRejected(b.take(),
                   "rank 0, phase 0 'swap' step 0 (step 0), op 1 "
                   "(recv_reduce from 1): reduces input element 1 "
                   "of rank 0 with input element 0 of rank 1 "
                   "(different elements)",
                   outOfPlace);
  }
  // Broadcast chunk offset shifted: a received element lands in the wrong
  // place and one is never written.
  {
    Program prog = gen(Collective::Broadcast, Algorithm::Tree, 3, 10);
    Op &rcv = findOp(prog, "tree", OpKind::Recv);
    rcv.count = prog.pool.constant(9);
    expectRejected(prog, "sends 10 elements to rank 1 but its op 3 (recv "
                         "from 0) receives 9");
  }
}

TEST(VerifyMutation, DifferentReductionOrderIsNotDeterministic) {
  // One-shot with per-rank slot rotation: every rank reduces starting with
  // its own input, so the trees differ between ranks.
  Program prog = gen(Collective::AllReduce, Algorithm::MeshOneShot, 4, 8);
  E r(&prog.pool, prog.pool.var(ExprVar::R)),
      t(&prog.pool, prog.pool.var(ExprVar::T)),
      p(&prog.pool, prog.pool.var(ExprVar::P)),
      n(&prog.pool, prog.pool.var(ExprVar::N));
  Op &rcv = findOp(prog, "exchange", OpKind::Recv);
  Op &cpy = findOp(prog, "exchange", OpKind::Copy);
  rcv.dst.off = (((p - 1 - t) % p) * n).id(); // slot (from - r) mod p
  cpy.dst.off = prog.pool.constant(0);
  expectRejected(prog, "rank 1: output[0, 8): reduced in a different order "
                       "than on rank 0 (results would not be bit-identical)");
}

TEST(VerifyMutation, InPlaceAliasingHazard) {
  // Recursive doubling on 2 ranks writing its partial sum straight into the
  // output while sending the input: fine out of place, a hazard when the
  // output is the input.
  Program prog =
      gen(Collective::AllReduce, Algorithm::RecursiveDoubling, 2, 16);
  ASSERT_EQ(prog.phases.size(), 2u); // rd step, final copy
  prog.phases[0].ops[1].dst = {BufferId::Output, prog.pool.constant(0)};
  prog.phases.pop_back();
  VerifyOptions outOnly;
  outOnly.inPlace = false;
  auto ok = verify(prog, outOnly);
  EXPECT_TRUE(ok.isOk()) << ok.message();
  expectRejected(prog, "in-place: rank 0, phase 0 'rd' step 0 (step 0): "
                       "hazard: op 1 (recv_reduce from 1) writes output[0, "
                       "16) while op 0 (send to 1) reads input[0, 16)");
}

TEST(VerifyMutation, UndefinedDataReachesTheOutput) {
  // All-gather without the copy of the own block: the peers still get it
  // (sent from the input), but the rank's own output block stays unwritten.
  Program prog = gen(Collective::AllGather, Algorithm::Ring, 4, 5);
  size_t ph = 0, oi = 0;
  findOp(prog, "ag", OpKind::Copy, &ph, &oi);
  prog.phases[ph].ops.erase(prog.phases[ph].ops.begin() + oi);
  expectRejected(prog, "rank 0: output[0, 5): expected input element 0 of "
                       "rank 0, found nothing written");
}

TEST(Verify, RefusesWorkBeyondItsBudget) {
  GenerateRequest q;
  q.algorithm = Algorithm::Ring;
  q.ranks = 100000;
  q.count = 8;
  auto prog = generate(q);
  ASSERT_TRUE(prog.isOk());
  auto r = verify(*prog);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("verify: too large: about 39999600000 op "
                             "instances"),
            std::string::npos)
      << r.message();
  auto est = estimateOpInstances(*prog);
  ASSERT_TRUE(est.isOk());
  EXPECT_EQ(*est, int64_t(100000) * 2 * 2 * (100000 - 1));
  // Slices count against the budget too.
  GenerateRequest small = q;
  small.ranks = 64;
  small.slices = 1000;
  auto sp = generate(small);
  VerifyOptions o;
  o.maxOpInstances = 1000000;
  auto rs = verify(*sp, o);
  ASSERT_FALSE(rs.isOk());
  EXPECT_NE(rs.message().find("too large"), std::string::npos);
  small.slices = 1;
  EXPECT_TRUE(verify(*generate(small), o).isOk());
}

TEST(VerifyMutation, UnsimulatedModeStillChecksPairing) {
  Program prog = gen(Collective::AllReduce, Algorithm::RHD, 48, 96);
  VerifyOptions o;
  o.exhaustiveLimit = 16;
  auto ok = verify(prog, o);
  ASSERT_TRUE(ok.isOk()) << ok.message();
  EXPECT_FALSE(ok->proven);
  EXPECT_NE(ok->summary.find("NOT PROVEN: contents not simulated (p > "
                             "exhaustive-limit 16)"),
            std::string::npos)
      << ok->summary;
  // Break one rank: pairing still sees it.
  // (odd ranks take part in the doubling: 48 = 32 + 16 folds ranks 0..31)
  int64_t victim = 3;
  Op &snd = findOp(prog, "double", OpKind::Send);
  E r(&prog.pool, prog.pool.var(ExprVar::R));
  E peer(&prog.pool, snd.peer);
  snd.peer = select(eq(r, victim), (peer + 1) % 48, peer).id();
  // Its partner misses the data it expected from the victim.
  expectRejected(prog,
                 "elements from rank " + std::to_string(victim) +
                     ", which sends nothing matching",
                 o);
}

// Above 1024 ranks "correct" used to mean six sampled ranks and no contents:
// each of these passed as OK. They must be rejected on every rank.
TEST(VerifyMutation, OneRankOutOfBoundsAmong1500) {
  Program prog = gen(Collective::AllReduce, Algorithm::RHD, 1500, 15000);
  Op &rr = findOp(prog, "halve", OpKind::RecvReduce);
  E r(&prog.pool, prog.pool.var(ExprVar::R));
  E n(&prog.pool, prog.pool.var(ExprVar::N));
  E off(&prog.pool, rr.dst.off);
  rr.dst.off = select(eq(r, 1337), off + n, off).id();
  expectRejected(prog, "rank 1337, phase 1 'halve' step 0 (step 1), op 1 "
                       "(recv_reduce from ");
  expectRejected(prog, "beyond its size 15000");
}

TEST(VerifyMutation, OneRankDropsItsContributionAmong1100) {
  // 1100 = 1024 + 76: the odd ranks below 152 fold their even partner into
  // their input; rank 101 receives the partner's data but leaves out its
  // own (recv instead of recv_reduce). Pairing, bounds and hazards hold.
  Program prog = gen(Collective::AllReduce, Algorithm::RHD, 1100, 11000);
  size_t ph = 0, oi = 0;
  Op &rr = findOp(prog, "fold", OpKind::RecvReduce, &ph, &oi);
  E r(&prog.pool, prog.pool.var(ExprVar::R));
  E when(&prog.pool, rr.when);
  Op drop = rr;
  drop.kind = OpKind::Recv;
  drop.src = {};
  drop.when = (when & eq(r, 101)).id();
  rr.when = (when & ne(r, 101)).id();
  prog.phases[ph].ops.push_back(drop);
  ASSERT_TRUE(prog.validate().isOk()) << prog.validate().message();
  expectRejected(prog, "expected the reduction of all 1100 ranks' input "
                       "element 0, found a reduction of 1099 contributions");
}

TEST(VerifyMutation, OneMisplacedBlockAmong2048) {
  // Chain broadcast from rank 0 in 8 chunks of 8: rank 777 (chain position
  // 777) receives chunk 3 in step 779 and puts it where chunk 4 goes (which
  // then arrives on top of it), so its chunk 3 is never written.
  GenerateRequest q;
  q.collective = Collective::Broadcast;
  q.algorithm = Algorithm::Ring;
  q.ranks = 2048;
  q.count = 64;
  q.chunks = 8;
  auto gp = generate(q);
  ASSERT_TRUE(gp.isOk()) << gp.message();
  ASSERT_TRUE(verify(*gp).isOk());
  Program prog = gp.take();
  Op &rcv = findOp(prog, "chain", OpKind::Recv);
  E r(&prog.pool, prog.pool.var(ExprVar::R));
  E s(&prog.pool, prog.pool.var(ExprVar::S));
  E off(&prog.pool, rcv.dst.off);
  rcv.dst.off = select(eq(r, 777) & eq(s, 779), off + 8, off).id();
  expectRejected(prog, "rank 777: output[24, 32): expected input element 24 "
                       "of rank 0, found nothing written");
}

} // namespace
