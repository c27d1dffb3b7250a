//===- ProgramTest.cpp - Program building, validation and expansion -------===//
#include "hccl-mlir/schedule/Program.h"
#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Topology.h"
#include "hccl-mlir/schedule/Verify.h"

#include <gtest/gtest.h>

using namespace hccl::sched;

namespace {

// A hand-built ring all-gather of one element per rank, node by node, the
// way the compiler converts IR back into a program.
Program handRing(int64_t p) {
  Program base;
  base.collective = Collective::AllGather;
  base.p = p;
  base.n = 1;
  ProgramBuilder b(std::move(base));
  E r = b.r(), pp = b.p(), s = b.s();
  b.setBufferSize(BufferId::Input, b.n());
  b.setBufferSize(BufferId::Output, pp * b.n());
  b.setBufferSize(BufferId::Scratch, b.c(0));
  b.addPhase("copy", b.c(1));
  b.copy(BufferId::Output, r, BufferId::Input, b.c(0), b.c(1));
  b.addPhase("ring", pp - 1);
  b.send((r + 1) % pp, BufferId::Output, (r - s) % pp, b.c(1));
  b.recv((r - 1) % pp, BufferId::Output, (r - s - 1) % pp, b.c(1));
  return b.take();
}

TEST(Program, BuilderProgramExpandsPerRank) {
  Program prog = handRing(5);
  ASSERT_TRUE(prog.validate().isOk()) << prog.validate().message();
  auto steps = prog.numSteps();
  ASSERT_TRUE(steps.isOk());
  EXPECT_EQ(*steps, 5);
  auto rp = expandRank(prog, 2);
  ASSERT_TRUE(rp.isOk()) << rp.message();
  EXPECT_EQ(rp->bufferSize[1], 5);
  ASSERT_EQ(rp->steps.size(), 5u);
  // Step 1 is ring step s=0: rank 2 sends its block 2 to 3, receives 1 from 1.
  const ConcreteStep &st = rp->steps[1];
  ASSERT_EQ(st.numOps, 2u);
  const ConcreteOp &snd = rp->ops[st.firstOp], &rcv = rp->ops[st.firstOp + 1];
  EXPECT_EQ(snd.kind, OpKind::Send);
  EXPECT_EQ(snd.peer, 3);
  EXPECT_EQ(snd.srcOff, 2);
  EXPECT_EQ(rcv.kind, OpKind::Recv);
  EXPECT_EQ(rcv.peer, 1);
  EXPECT_EQ(rcv.dstOff, 1);
  // Last ring step (s=3): receives block (2-3-1) mod 5 = 3.
  const ConcreteOp &last = rp->ops[rp->steps[4].firstOp + 1];
  EXPECT_EQ(last.dstOff, 3);
  std::string text = formatRankProgram(prog, *rp);
  EXPECT_NE(text.find("recv from 1 dst output[1, 2)"), std::string::npos)
      << text;
}

TEST(Program, ValidateRejectsMalformedPrograms) {
  {
    Program prog = handRing(4);
    prog.phases[1].ops[0].peer = kNoExpr; // send without peer
    Status s = prog.validate();
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("op 0 (send): peer missing"), std::string::npos)
        << s.message();
  }
  {
    Program prog = handRing(4);
    prog.phases[1].ops[1].dst.buf = BufferId::Input;
    Status s = prog.validate();
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("writes the input buffer"), std::string::npos);
  }
  {
    Program prog = handRing(4);
    prog.phases[1].steps = prog.pool.var(ExprVar::R);
    Status s = prog.validate();
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("steps may not depend on r"), std::string::npos);
  }
  {
    Program prog = handRing(4);
    prog.params.push_back({"p", 3});
    EXPECT_FALSE(prog.validate().isOk()) << "p is reserved";
    prog.params.back().name = "tbl3";
    EXPECT_FALSE(prog.validate().isOk()) << "tbl<k> is reserved";
    prog.params.back().name = "m";
    EXPECT_TRUE(prog.validate().isOk());
  }
  {
    Program prog = handRing(4);
    prog.phases[1].ops[1].srcN = prog.pool.constant(2); // only for reduce
    EXPECT_FALSE(prog.validate().isOk());
  }
}

TEST(Program, ExpansionChecksPeersCountsAndBounds) {
  Program prog = handRing(4);
  // Peer equal to the rank itself.
  Program self = prog;
  self.phases[1].ops[0].peer = self.pool.var(ExprVar::R);
  auto r1 = expandRank(self, 1);
  ASSERT_FALSE(r1.isOk());
  EXPECT_NE(r1.message().find("peer 1 is the rank itself"), std::string::npos)
      << r1.message();
  // Out-of-bounds write.
  Program oob = prog;
  oob.phases[1].ops[1].dst.off = oob.pool.constant(4);
  auto r2 = expandRank(oob, 0);
  ASSERT_FALSE(r2.isOk());
  EXPECT_NE(r2.message().find("writes output[4, 5) beyond its size 4"),
            std::string::npos)
      << r2.message();
  // Division by zero while evaluating names the field.
  Program div = prog;
  div.phases[1].ops[0].count =
      div.pool.binary(ExprOp::Div, div.pool.constant(1),
                      div.pool.binary(ExprOp::Sub, div.pool.var(ExprVar::R),
                                      div.pool.var(ExprVar::R)));
  // (r - r folds to 0, so the division stays and fails at evaluation.)
  auto r3 = expandRank(div, 0);
  ASSERT_FALSE(r3.isOk());
  EXPECT_NE(r3.message().find("count: division by zero"), std::string::npos)
      << r3.message();
  EXPECT_NE(r3.message().find("rank 0, phase 1 'ring' step 0, op 0"),
            std::string::npos)
      << r3.message();
  EXPECT_FALSE(expandRank(prog, 4).isOk());
  EXPECT_FALSE(expandRank(prog, -1).isOk());
}

TEST(Program, WhenFalseOrUntakenBranchNeverFails) {
  Program base;
  base.p = 2;
  base.n = 4;
  ProgramBuilder b(std::move(base));
  E r = b.r(), n = b.n();
  for (BufferId id : {BufferId::Input, BufferId::Output, BufferId::Scratch})
    b.setBufferSize(id, n);
  b.addPhase("x", b.c(1));
  // Rank 1's count would divide by zero, but its `when` is false.
  b.copy(BufferId::Output, b.c(0), BufferId::Input, b.c(0), n / (1 - r),
         {eq(r, 0), {}});
  b.copy(BufferId::Scratch, b.c(0), BufferId::Input, b.c(0),
         select(eq(r, 1), b.c(1), n / (1 - r)));
  Program prog = b.take();
  for (int64_t rank = 0; rank < 2; ++rank) {
    auto rp = expandRank(prog, rank);
    ASSERT_TRUE(rp.isOk()) << rp.message();
  }
  auto r0 = expandRank(prog, 0);
  EXPECT_EQ(r0->ops.size(), 2u);
  auto r1 = expandRank(prog, 1);
  ASSERT_EQ(r1->ops.size(), 1u);
  EXPECT_EQ(r1->ops[0].count, 1);
}

TEST(Program, BlockRuleAndSlices) {
  // off(i) = i*(n/k) + min(i, n%k); sizes differ by at most one and tile n.
  for (int64_t n : {0, 1, 7, 10, 1000003})
    for (int64_t k : {1, 2, 3, 7, 16}) {
      int64_t next = 0;
      for (int64_t i = 0; i < k; ++i) {
        EXPECT_EQ(blockOffset(n, k, i), next);
        int64_t c = blockCount(n, k, i);
        EXPECT_TRUE(c == n / k || c == n / k + 1);
        next += c;
      }
      EXPECT_EQ(next, n);
    }
  ConcreteOp op;
  op.kind = OpKind::RecvReduce;
  op.dstOff = 100;
  op.srcOff = 10;
  op.count = 10;
  ConcreteOp s2 = sliceOp(op, 3, 2);
  EXPECT_EQ(s2.count, 3);
  EXPECT_EQ(s2.dstOff, 107);
  EXPECT_EQ(s2.srcOff, 17);
  // expandRank with slices splits every op the same way.
  GenerateRequest q;
  q.algorithm = Algorithm::Ring;
  q.ranks = 3;
  q.count = 10;
  q.slices = 4;
  auto prog = generate(q);
  ASSERT_TRUE(prog.isOk());
  ExpandOptions eo;
  eo.applySlices = true;
  auto whole = expandRank(*prog, 1), sliced = expandRank(*prog, 1, eo);
  ASSERT_TRUE(whole.isOk() && sliced.isOk());
  EXPECT_EQ(sliced->ops.size(), 4 * whole->ops.size());
}

TEST(Program, EvaluatorAgreesWithPoolEvaluation) {
  // The fast evaluator must give the same op instances as evaluating every
  // field with ExprPool::evaluate (checked on generated programs).
  for (Algorithm a : {Algorithm::RHD, Algorithm::Ring, Algorithm::MeshTwoShot,
                      Algorithm::Hierarchical}) {
    GenerateRequest q;
    q.algorithm = a;
    q.ranks = 12;
    q.count = 1001;
    q.ranksPerServer = 4;
    q.level1 = Algorithm::RHD;
    auto prog = generate(q);
    ASSERT_TRUE(prog.isOk()) << prog.message();
    std::vector<int64_t> vals = prog->paramValues();
    auto steps = prog->phaseSteps();
    ProgramEvaluator ev(*prog);
    for (int64_t r = 0; r < 12; ++r)
      for (uint32_t ph = 0; ph < prog->phases.size(); ++ph)
        for (int64_t s = 0; s < (*steps)[ph]; ++s) {
          std::vector<ConcreteOp> fast;
          ASSERT_TRUE(ev.expandStep(r, ph, s, fast).isOk());
          std::vector<ConcreteOp> slow;
          EvalEnv env = prog->env(r, vals.data());
          env.s = s;
          for (uint32_t oi = 0; oi < prog->phases[ph].ops.size(); ++oi) {
            const Op &op = prog->phases[ph].ops[oi];
            int64_t rep = 1;
            if (op.repeat != kNoExpr)
              prog->pool.evaluate(op.repeat, env, rep);
            for (int64_t t = 0; t < rep; ++t) {
              env.t = t;
              int64_t w = 1;
              if (op.when != kNoExpr)
                prog->pool.evaluate(op.when, env, w);
              if (!w)
                continue;
              ConcreteOp c;
              c.kind = op.kind;
              if (opHasPeer(op.kind))
                prog->pool.evaluate(op.peer, env, c.peer);
              if (opHasDst(op.kind))
                prog->pool.evaluate(op.dst.off, env, c.dstOff);
              if (opHasSrc(op.kind))
                prog->pool.evaluate(op.src.off, env, c.srcOff);
              prog->pool.evaluate(op.count, env, c.count);
              slow.push_back(c);
            }
          }
          ASSERT_EQ(fast.size(), slow.size());
          for (size_t i = 0; i < fast.size(); ++i) {
            EXPECT_EQ(fast[i].peer, slow[i].peer);
            EXPECT_EQ(fast[i].dstOff, slow[i].dstOff);
            EXPECT_EQ(fast[i].srcOff, slow[i].srcOff);
            EXPECT_EQ(fast[i].count, slow[i].count);
          }
        }
  }
}

// Two ranks passing zero elements back and forth: `steps` steps, each op
// repeated `repeat` times (per rank: select(r == 1, repeat1, repeat)).
Program spinner(int64_t steps, int64_t repeat, int64_t repeat1 = -1) {
  Program base;
  base.collective = Collective::AllReduce;
  base.p = 2;
  base.n = 8;
  ProgramBuilder b(std::move(base));
  E r = b.r(), pp = b.p();
  b.setBufferSize(BufferId::Input, b.n());
  b.setBufferSize(BufferId::Output, b.n());
  b.setBufferSize(BufferId::Scratch, b.c(0));
  b.addPhase("spin", b.c(steps));
  E rep =
      repeat1 < 0 ? b.c(repeat) : select(eq(r, 1), b.c(repeat1), b.c(repeat));
  b.send((r + 1) % pp, BufferId::Input, b.c(0), b.c(0), {E(), rep});
  b.recv((r + 1) % pp, BufferId::Output, b.c(0), b.c(0), {E(), rep});
  return b.take();
}

bool namesLimit(const std::string &msg) {
  return msg.find("expands to more than 1048576") != std::string::npos &&
         msg.find("kMaxExpandedSize") != std::string::npos;
}

TEST(Program, ExpansionIsBoundedByKMaxExpandedSize) {
  static_assert(kMaxExpandedSize == 1 << 20, "the documented limit");
  // steps 2^24 x repeat 2^24, both within their own ranges: refused at
  // once, wherever it is expanded, instead of allocating without bound.
  Program huge = spinner(kMaxRepeat, kMaxRepeat);
  ASSERT_TRUE(huge.validate().isOk());
  for (int64_t r : {0, 1}) {
    auto rp = expandRank(huge, r);
    ASSERT_FALSE(rp.isOk());
    EXPECT_TRUE(namesLimit(rp.message())) << rp.message();
  }
  auto est = estimateOpInstances(huge);
  ASSERT_FALSE(est.isOk());
  EXPECT_TRUE(namesLimit(est.message())) << est.message();
  auto rep = verify(huge);
  ASSERT_FALSE(rep.isOk());
  EXPECT_TRUE(namesLimit(rep.message())) << rep.message();
  auto cost = predictCost(huge, *Topology::preset("910b-8"));
  ASSERT_FALSE(cost.isOk());
  EXPECT_TRUE(namesLimit(cost.message())) << cost.message();

  // At the limit: a step and its two ops count 3, and 3 * 349525 = 2^20 - 1
  // fits while one step more does not.
  Program fits = spinner(349525, 1);
  auto ok = expandRank(fits, 0);
  ASSERT_TRUE(ok.isOk()) << ok.message();
  EXPECT_EQ(ok->steps.size(), 349525u);
  EXPECT_FALSE(expandRank(spinner(349526, 1), 0).isOk());

  // Only rank 1 expands beyond it: rank 0 is fine, rank 1 and the verifier
  // (which expands every rank) refuse, naming rank 1.
  Program one = spinner(2, 1, kMaxExpandedSize);
  EXPECT_TRUE(expandRank(one, 0).isOk());
  auto r1 = expandRank(one, 1);
  ASSERT_FALSE(r1.isOk());
  EXPECT_TRUE(namesLimit(r1.message())) << r1.message();
  EXPECT_NE(r1.message().find("rank 1,"), std::string::npos) << r1.message();
  auto v1 = verify(one);
  ASSERT_FALSE(v1.isOk());
  EXPECT_TRUE(namesLimit(v1.message())) << v1.message();
  EXPECT_NE(v1.message().find("rank 1,"), std::string::npos) << v1.message();
}

} // namespace
