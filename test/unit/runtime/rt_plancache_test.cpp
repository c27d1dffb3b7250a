//===- rt_plancache_test.cpp - Plan programs are expanded once ------------===//
//
// HcclRunPlanCollective keeps the expanded program of a plan while the plan
// lives: repeated runs hit the communicator's cache and give the same
// (exact) results, and a program of a plan loaded after another was freed
// never runs as the freed one.
//
//===----------------------------------------------------------------------===//
#include "core/Communicator.h"
#include "hccl/hccl_ext.h"
#include "rt_harness.h"
#include "rt_plans.h"
#include "rt_reference.h"

#include <gtest/gtest.h>

using namespace rtest;
namespace sched = hccl::sched;

namespace {

std::string runChecked(HcclComm comm, HcclPlan plan, int rank, int p,
                       int64_t n) {
  Bytes in =
      makeInput(rank, static_cast<size_t>(n), DataType::Int32, ReduceOp::Sum);
  Bytes out(in.size());
  HcclResult rc =
      HcclRunPlanCollective(comm, plan, "main", in.data(), out.data(), nullptr);
  if (rc != HCCL_SUCCESS)
    return std::string("HcclRunPlanCollective: ") + HcclGetLastErrorMessage();
  Bytes want =
      expectedOutput(Collective::AllReduce, p, rank, static_cast<size_t>(n), 0,
                     DataType::Int32, ReduceOp::Sum);
  return compareOutput(DataType::Int32, out.data(), want);
}

} // namespace

TEST(PlanCache, RepeatedRunsExpandOnceAndStayExact) {
  std::string text =
      planText(sched::Collective::AllReduce, sched::Algorithm::RHD, 3, 1001);
  ASSERT_FALSE(text.empty());
  auto body = [&text](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    auto *cc = static_cast<hccl::rt::Communicator *>(comm);
    HcclPlan plan;
    RT_OK(HcclPlanLoadFromString(text.data(), text.size(), &plan));
    size_t before = cc->cachedPrograms();
    for (int i = 0; i < 4; ++i) {
      std::string d = runChecked(comm, plan, c.rank, 3, 1001);
      RT_CHECK(d.empty(), "run " + std::to_string(i) + ": " + d);
      RT_CHECK(cc->cachedPrograms() == before + 1,
               "run " + std::to_string(i) + ": " +
                   std::to_string(cc->cachedPrograms() - before) +
                   " programs cached, expected 1");
    }
    RT_OK(HcclPlanFree(plan));
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(3, body, {60}), "");
}

TEST(PlanCache, APlanLoadedAfterAFreedOneRunsItsOwnProgram) {
  // Same id, other algorithm and count: had the freed plan's expansion been
  // used (the new program may sit at the same address), the counts or the
  // results would differ.
  std::string first =
      planText(sched::Collective::AllReduce, sched::Algorithm::Ring, 2, 64);
  std::string second = planText(sched::Collective::AllReduce,
                                sched::Algorithm::MeshTwoShot, 2, 1000);
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  auto body = [&](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    for (int round = 0; round < 3; ++round) {
      for (const std::string *t : {&first, &second}) {
        int64_t n = t == &first ? 64 : 1000;
        HcclPlan plan;
        RT_OK(HcclPlanLoadFromString(t->data(), t->size(), &plan));
        for (int i = 0; i < 2; ++i) {
          std::string d = runChecked(comm, plan, c.rank, 2, n);
          RT_CHECK(d.empty(), "round " + std::to_string(round) + ", n " +
                                  std::to_string(n) + ": " + d);
        }
        RT_OK(HcclPlanFree(plan));
      }
    }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body, {60}), "");
}
