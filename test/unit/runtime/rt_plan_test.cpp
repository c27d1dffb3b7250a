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
#include "rt_reference.h"

#include <fstream>
#include <gtest/gtest.h>

using namespace rtest;
namespace sched = hccl::sched;

namespace {

bool contains(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

std::string planText(sched::Collective c, sched::Algorithm a, int p, int64_t n,
                     sched::ProgramForm form, std::vector<int64_t> group = {}) {
  sched::GenerateRequest req;
  req.collective = c;
  req.algorithm = a;
  req.ranks = p;
  req.count = n;
  req.dtype = sched::DataType::Int32;
  req.reduceOp = sched::ReduceOp::Sum;
  auto prog = sched::generate(req);
  if (!prog)
    return "";
  sched::Plan plan;
  sched::PlanProgram pp;
  pp.id = "main";
  pp.program = prog.take();
  pp.group = std::move(group);
  plan.programs.push_back(std::move(pp));
  sched::PlanWriteOptions o;
  o.form = form;
  auto text = sched::writePlan(plan, o);
  return text ? text.take() : "";
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
// documented range). Each rank's expansion stops at kMaxExpandedSize with
// an error naming it: no rank grows until the OOM killer takes it, and since
// every rank refuses alike none is left waiting for the other.
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
  auto body = [&text](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    HcclPlan plan;
    RT_OK(HcclPlanLoadFromString(text.data(), text.size(), &plan));
    std::vector<int32_t> in(8), out(8);
    HcclResult rc =
        HcclRunPlanCollective(comm, plan, "c0", in.data(), out.data(), nullptr);
    RT_CHECK(rc == HCCL_E_PARA &&
                 contains(HcclGetLastErrorMessage(),
                          "expands to more than 1048576 steps plus op "
                          "instances for one rank (kMaxExpandedSize"),
             HcclGetLastErrorMessage());
    RT_OK(HcclPlanFree(plan));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body, {30}), "");
}
