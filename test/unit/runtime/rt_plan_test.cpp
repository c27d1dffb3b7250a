//===- rt_plan_test.cpp - Running plans exported by the compiler ----------===//
//
// Plans are written with lib/schedule's writer (what hccl-plan and the
// compiler export), loaded through the C API and run on real ranks; results
// are checked against the reference.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Plan.h"
#include "hccl/hccl_ext.h"
#include "rt_harness.h"
#include "rt_plans.h"
#include "rt_reference.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

using namespace rtest;
namespace sched = hccl::sched;

namespace {

bool contains(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

} // namespace

TEST(Plans, LoadAndRunCompactAndExpandedForms) {
  for (auto form :
       {sched::ProgramForm::Compact, sched::ProgramForm::Expanded}) {
    std::string text = planText(sched::Collective::AllReduce,
                                sched::Algorithm::RHD, 3, 1001, form);
    ASSERT_FALSE(text.empty());
    auto body = [&text](RankCtx &c) -> std::string {
      HcclPlan plan;
      RT_OK(HcclPlanLoadFromString(text.data(), text.size(), &plan));
      uint32_t count;
      RT_OK(HcclPlanGetProgramCount(plan, &count));
      RT_CHECK(count == 1, "one program");
      const char *id;
      RT_OK(HcclPlanGetProgramId(plan, 0, &id));
      HcclPlanProgramInfo info;
      RT_OK(HcclPlanGetProgramInfo(plan, id, static_cast<uint32_t>(c.rank),
                                   &info));
      RT_CHECK(info.ranks == 3 && info.dataType == HCCL_DATA_TYPE_INT32 &&
                   info.inputBytes == 1001 * 4 && info.outputBytes == 1001 * 4,
               "program info");
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      Bytes in = makeInput(c.rank, 1001, DataType::Int32, ReduceOp::Sum);
      Bytes out(in.size());
      aclrtStream s;
      RT_OK(HcclStreamCreate(&s));
      RT_OK(
          HcclRunPlanCollective(comm, plan, "main", in.data(), out.data(), s));
      RT_OK(HcclPlanFree(plan)); // the queued run keeps what it needs
      RT_OK(HcclStreamSynchronize(s));
      Bytes want = expectedOutput(Collective::AllReduce, 3, c.rank, 1001, 0,
                                  DataType::Int32, ReduceOp::Sum);
      std::string d = compareOutput(DataType::Int32, out.data(), want);
      RT_CHECK(d.empty(), d);
      RT_OK(HcclStreamDestroy(s));
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(3, body, {60}), "");
  }
}

TEST(Plans, ProgramOnASubgroup) {
  // A 2-rank all-gather on communicator ranks {3, 1} of 4.
  std::string text =
      planText(sched::Collective::AllGather, sched::Algorithm::Ring, 2, 17,
               sched::ProgramForm::Compact, {3, 1});
  ASSERT_FALSE(text.empty());
  auto body = [&text](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    HcclPlan plan;
    RT_OK(HcclPlanLoadFromString(text.data(), text.size(), &plan));
    if (c.rank == 3 || c.rank == 1) {
      int g = c.rank == 3 ? 0 : 1;
      Bytes in = makeInput(g, 17, DataType::Int32, ReduceOp::Sum);
      Bytes out(2 * in.size());
      RT_OK(HcclRunPlanCollective(comm, plan, "main", in.data(), out.data(),
                                  nullptr));
      Bytes want = expectedOutput(Collective::AllGather, 2, g, 17, 0,
                                  DataType::Int32, ReduceOp::Sum);
      std::string d = compareOutput(DataType::Int32, out.data(), want);
      RT_CHECK(d.empty(), d);
    } else {
      std::vector<int32_t> in(17), out(34);
      HcclResult rc = HcclRunPlanCollective(comm, plan, "main", in.data(),
                                            out.data(), nullptr);
      RT_CHECK(rc == HCCL_E_PARA && contains(HcclGetLastErrorMessage(),
                                             "not in the program's group"),
               HcclGetLastErrorMessage());
    }
    // Ranks outside the group are not held up: the communicator is fine.
    RT_OK(HcclBarrier(comm, nullptr));
    RT_OK(HcclPlanFree(plan));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(4, body, {60}), "");
}

// Two programs on groups that share rank 1 ({0, 1} and {1, 2}), both the
// first call of their group. Rank 2 starts its program at once, so its
// message waits in rank 1's ring while rank 1 is still in the other group's
// program (rank 0 comes late): not a mismatch (the numbers of different
// groups once collided, and rank 1 reported "mismatched calls"). The same
// with one program on the partitioned group {{0, 1}, {2, 3}} beside one on
// {1, 2}.
TEST(Plans, GroupsSharingARankKeepTheirCallsApart) {
  sched::Plan doc;
  // Different counts: calls that differ, with the same number.
  auto add = [&doc](const char *id, int64_t n,
                    std::vector<std::vector<int64_t>> groups) {
    sched::GenerateRequest req;
    req.collective = sched::Collective::AllReduce;
    req.algorithm = sched::Algorithm::Ring;
    req.ranks = static_cast<int64_t>(groups[0].size());
    req.count = n;
    req.dtype = sched::DataType::Int32;
    doc.programs.push_back({id, *sched::generate(req), std::move(groups)});
  };
  add("a", 33, {{0, 1}, {2, 3}});
  add("b", 35, {{1, 2}});
  std::string text = *sched::writePlan(doc);
  auto body = [&text](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    HcclPlan plan;
    RT_OK(HcclPlanLoadFromString(text.data(), text.size(), &plan));
    auto run = [&](const char *id, int groupRank, int p) -> std::string {
      uint64_t n = id[0] == 'a' ? 33 : 35;
      Bytes in = makeInput(groupRank, n, DataType::Int32, ReduceOp::Sum);
      Bytes out(in.size());
      RT_OK(HcclRunPlanCollective(comm, plan, id, in.data(), out.data(),
                                  nullptr));
      Bytes want = expectedOutput(Collective::AllReduce, p, groupRank, n, 0,
                                  DataType::Int32, ReduceOp::Sum);
      return compareOutput(DataType::Int32, out.data(), want);
    };
    std::string d;
    if (c.rank == 0) // late, so rank 1 waits in "a" with "b" in its ring
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (c.rank == 2)
      d += run("b", 1, 2);
    d += run("a", c.rank % 2, 2);
    if (c.rank == 1)
      d += run("b", 0, 2);
    RT_CHECK(d.empty(), d);
    RT_OK(HcclBarrier(comm, nullptr));
    RT_OK(HcclPlanFree(plan));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(4, body, {60}), "");
}

TEST(Plans, BadPlansAreRejectedWithTheirPath) {
  auto body = [](RankCtx &c) -> std::string {
    HcclPlan plan;
    std::string bad =
        "{\"format\":\"hccl-plan\",\"version\":2,\"programs\":[]}";
    HcclResult rc = HcclPlanLoadFromString(bad.data(), bad.size(), &plan);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(), "version"),
             HcclGetLastErrorMessage());
    rc = HcclPlanLoad("/nonexistent/plan.json", &plan);
    RT_CHECK(rc == HCCL_E_OPEN_FILE_FAILURE, HcclGetErrorString(rc));
    // A program for 4 ranks on a 1-rank communicator.
    std::string text =
        planText(sched::Collective::AllReduce, sched::Algorithm::Ring, 4, 8,
                 sched::ProgramForm::Compact);
    RT_OK(HcclPlanLoadFromString(text.data(), text.size(), &plan));
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    std::vector<int32_t> in(8), out(8);
    rc = HcclRunPlanCollective(comm, plan, "main", in.data(), out.data(),
                               nullptr);
    RT_CHECK(rc == HCCL_E_PARA && contains(HcclGetLastErrorMessage(), "p = 4"),
             HcclGetLastErrorMessage());
    rc = HcclRunPlanCollective(comm, plan, "nope", in.data(), out.data(),
                               nullptr);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(), "no program 'nope'"),
             HcclGetLastErrorMessage());
    RT_OK(HcclPlanFree(plan));
    rc = HcclPlanFree(plan);
    RT_CHECK(rc == HCCL_E_PARA, "double free is reported");
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(1, body, {30}), "");
}

// Two ranks: 2^24 steps of ops repeated 2^24 times (each within its own
// documented range). Loading proves the program, which stops at
// kMaxExpandedSize; loaded unproven (HCCL_PLAN_TRUSTED=1), running it stops
// there too on every rank: no rank grows until the OOM killer takes it,
// and since every rank refuses alike none is left waiting for the other.
static std::string hugeExpansionPlan() {
  sched::Program base;
  base.collective = sched::Collective::AllReduce;
  base.dtype = sched::DataType::Int32;
  base.p = 2;
  base.n = 8;
  sched::ProgramBuilder b(std::move(base));
  sched::E r = b.r(), p = b.p();
  using sched::BufferId;
  b.setBufferSize(BufferId::Input, b.n());
  b.setBufferSize(BufferId::Output, b.n());
  b.setBufferSize(BufferId::Scratch, b.c(0));
  b.addPhase("spin", b.c(sched::kMaxRepeat));
  sched::E rep = b.c(sched::kMaxRepeat);
  b.send((r + 1) % p, BufferId::Input, b.c(0), b.c(0), {sched::E(), rep});
  b.recv((r + 1) % p, BufferId::Output, b.c(0), b.c(0), {sched::E(), rep});
  auto text = sched::writeProgram(b.take());
  return text ? text.take() : "";
}

TEST(Plans, ExpansionBeyondTheLimitIsRefusedOnEveryRank) {
  std::string text = hugeExpansionPlan();
  ASSERT_FALSE(text.empty());
  const char *limit = "expands to more than 1048576 steps plus op instances "
                      "for one rank (kMaxExpandedSize";
  auto load = [&](RankCtx &) -> std::string {
    HcclPlan plan;
    HcclResult rc = HcclPlanLoadFromString(text.data(), text.size(), &plan);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(),
                          "plan refused: program 'c0' is incorrect: rank 0") &&
                 contains(HcclGetLastErrorMessage(), limit),
             HcclGetLastErrorMessage());
    return "";
  };
  RunOptions quick;
  quick.timeoutSec = 30;
  EXPECT_EQ(runRanks(1, load, quick), "");
  auto run = [&](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    HcclPlan plan;
    RT_OK(HcclPlanLoadFromString(text.data(), text.size(), &plan));
    std::vector<int32_t> in(8), out(8);
    HcclResult rc =
        HcclRunPlanCollective(comm, plan, "c0", in.data(), out.data(), nullptr);
    RT_CHECK(rc == HCCL_E_PARA && contains(HcclGetLastErrorMessage(), limit),
             HcclGetLastErrorMessage());
    RT_OK(HcclPlanFree(plan));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  RunOptions trusted;
  trusted.timeoutSec = 30;
  trusted.env = {{"HCCL_PLAN_TRUSTED", "1"}};
  EXPECT_EQ(runRanks(2, run, trusted), "");
}

// A ring all-reduce whose rank 2 receives instead of reducing in the second
// step: well formed, so structural checks accept it; run, it returns
// HCCL_SUCCESS with rank 2's contribution missing from one block. Loading
// proves it and refuses it, naming the program and what is wrong; the
// opt-out loads it (and it runs wrong, as documented).
static std::string wrongRingPlan() {
  sched::GenerateRequest req;
  req.collective = sched::Collective::AllReduce;
  req.algorithm = sched::Algorithm::Ring;
  req.ranks = 4;
  req.count = 1003;
  req.dtype = sched::DataType::Int32;
  auto prog = sched::generate(req);
  if (!prog)
    return "";
  sched::Program p = prog.take();
  sched::Op &rr = p.phases[1].ops[1];
  if (rr.kind != sched::OpKind::RecvReduce)
    return "";
  sched::Op drop = rr;
  drop.kind = sched::OpKind::Recv;
  drop.src = {};
  sched::E r(&p.pool, p.pool.var(sched::ExprVar::R));
  drop.when = sched::eq(r, 2).id();
  rr.when = sched::ne(r, 2).id();
  p.phases[1].ops.push_back(drop);
  auto text = sched::writeProgram(p);
  return text ? text.take() : "";
}

TEST(Plans, LoadingProvesEveryProgram) {
  std::string wrong = wrongRingPlan();
  ASSERT_FALSE(wrong.empty());
  // Beyond the proof budget: refused at once as not proven.
  std::string big =
      planText(sched::Collective::AllReduce, sched::Algorithm::Ring, 1500,
               15000, sched::ProgramForm::Compact);
  ASSERT_FALSE(big.empty());
  auto refuse = [&](RankCtx &) -> std::string {
    HcclPlan plan;
    HcclResult rc = HcclPlanLoadFromString(wrong.data(), wrong.size(), &plan);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(),
                          "HcclPlanLoadFromString: plan refused: program 'c0' "
                          "is incorrect: rank 0: output[502, 753): expected "
                          "the reduction of all 4 ranks' input element 502, "
                          "found a reduction of 3 contributions") &&
                 contains(HcclGetLastErrorMessage(), "HCCL_PLAN_TRUSTED=1"),
             HcclGetLastErrorMessage());
    rc = HcclPlanLoadFromString(big.data(), big.size(), &plan);
    RT_CHECK(
        rc == HCCL_E_PARA &&
            contains(HcclGetLastErrorMessage(),
                     "plan refused: program 'main' is not proven: about ") &&
            contains(HcclGetLastErrorMessage(),
                     " op instances x aliasing modes to simulate, "
                     "beyond the proof budget of 16777216"),
        HcclGetLastErrorMessage());
    return "";
  };
  RunOptions quick;
  quick.timeoutSec = 30;
  EXPECT_EQ(runRanks(1, refuse, quick), "");
  auto trust = [&](RankCtx &) -> std::string {
    HcclPlan plan;
    RT_OK(HcclPlanLoadFromString(wrong.data(), wrong.size(), &plan));
    RT_OK(HcclPlanFree(plan));
    RT_OK(HcclPlanLoadFromString(big.data(), big.size(), &plan));
    RT_OK(HcclPlanFree(plan));
    return "";
  };
  RunOptions trusted;
  trusted.timeoutSec = 30;
  trusted.env = {{"HCCL_PLAN_TRUSTED", "1"}};
  EXPECT_EQ(runRanks(1, trust, trusted), "");
}

// The nine well-formed edits of a verified ring plan that the structural
// checks accepted (HcclPlanLoad took all nine; seven then returned
// HCCL_SUCCESS with wrong data, one waited until HCCL_EXEC_TIMEOUT). Each
// still loads with HCCL_PLAN_TRUSTED=1 (it is well formed), and each is
// refused when loading proves the program, naming the program.
namespace {
using Json = nlohmann::json;
struct PlanEdit {
  const char *what;
  std::function<void(Json &prog)> apply;
};

Json &opAt(Json &prog, int phase, int op) {
  return prog["phases"][static_cast<size_t>(phase)]["ops"]
             [static_cast<size_t>(op)];
}

std::vector<PlanEdit> nineEdits() {
  return {
      {"a transfer removed", [](Json &p) { p["phases"][0]["ops"].erase(0); }},
      {"a peer changed",
       [](Json &p) { opAt(p, 0, 0)["peer"] = "(r + 2) % p"; }},
      {"overlapping offsets",
       [](Json &p) { opAt(p, 1, 1)["dst"]["offset"] = "0"; }},
      {"a recv instead of a recv_reduce",
       [](Json &p) {
         Json &op = opAt(p, 1, 1);
         op["kind"] = "recv";
         op.erase("src");
       }},
      {"a count without the remainder",
       [](Json &p) {
         opAt(p, 0, 0)["count"] = "n / p";
         opAt(p, 0, 1)["count"] = "n / p";
       }},
      {"one step fewer", [](Json &p) { p["phases"][1]["steps"] = "1"; }},
      {"a send from the wrong buffer",
       [](Json &p) { opAt(p, 1, 0)["src"]["buffer"] = "input"; }},
      {"an op doubled",
       [](Json &p) {
         Json send = opAt(p, 0, 0), rr = opAt(p, 0, 1);
         p["phases"][0]["ops"].push_back(send);
         p["phases"][0]["ops"].push_back(rr);
       }},
      {"one rank skips its first send",
       [](Json &p) { opAt(p, 0, 0)["when"] = "r != 0"; }},
  };
}
} // namespace

TEST(Plans, NineWellFormedEditsOfARingPlanAreRefused) {
  std::string good =
      planText(sched::Collective::AllReduce, sched::Algorithm::Ring, 4, 1003,
               sched::ProgramForm::Compact);
  ASSERT_FALSE(good.empty());
  std::vector<std::pair<std::string, std::string>> edited;
  for (const PlanEdit &e : nineEdits()) {
    Json plan = Json::parse(good);
    e.apply(plan["programs"][0]);
    edited.emplace_back(e.what, plan.dump());
  }
  ASSERT_EQ(edited.size(), 9u);
  auto load = [&](bool trusted) {
    return [&, trusted](RankCtx &) -> std::string {
      HcclPlan plan;
      RT_OK(HcclPlanLoadFromString(good.data(), good.size(), &plan));
      RT_OK(HcclPlanFree(plan));
      for (const auto &[what, text] : edited) {
        HcclResult rc = HcclPlanLoadFromString(text.data(), text.size(), &plan);
        if (trusted) {
          RT_CHECK(rc == HCCL_SUCCESS,
                   what + " is not well formed: " + HcclGetLastErrorMessage());
          RT_OK(HcclPlanFree(plan));
        } else {
          RT_CHECK(rc == HCCL_E_PARA &&
                       contains(HcclGetLastErrorMessage(),
                                "plan refused: program 'main' is incorrect: "),
                   what + " was not refused: " + HcclGetLastErrorMessage());
        }
      }
      return "";
    };
  };
  RunOptions proven;
  proven.timeoutSec = 60;
  EXPECT_EQ(runRanks(1, load(false), proven), "");
  RunOptions trusted = proven;
  trusted.env = {{"HCCL_PLAN_TRUSTED", "1"}};
  EXPECT_EQ(runRanks(1, load(true), trusted), "");
}
