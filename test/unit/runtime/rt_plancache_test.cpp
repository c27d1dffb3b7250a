//===- rt_plancache_test.cpp - Plan programs are expanded once ------------===//
//
// HcclRunPlanCollective keeps the expanded program of a plan while the plan
// lives: repeated runs hit the communicator's cache and give the same
// (exact) results, and a program of a plan loaded after another was freed
// never runs as the freed one. Generated collectives' programs share that
// cache, with the last one checked first: shapes that alternate or come
// back after the cache turned over run their own programs.
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

// Communicator::programFor checks the last program before the cache: a
// shape after another, and a shape again after 300 others have turned the
// cache (256 programs) over, run their own programs and stay exact.
TEST(ProgramCache, AlternatingAndReturningShapesStayExact) {
  auto body = [](RankCtx &c) -> std::string {
    HcclComm comm;
    RT_OK(c.initComm(&comm));
    auto *cc = static_cast<hccl::rt::Communicator *>(comm);
    auto run = [&](Collective coll, uint64_t n) -> std::string {
      Shape s = shapeOf(coll, c.size, c.rank, n, 0);
      Bytes in = makeInput(c.rank, s.in, DataType::Int32, ReduceOp::Sum);
      Bytes out(s.out * 4);
      HcclResult rc =
          coll == Collective::AllReduce
              ? HcclAllReduce(in.data(), out.data(), n, HCCL_DATA_TYPE_INT32,
                              HCCL_REDUCE_SUM, comm, nullptr)
              : HcclAllGather(in.data(), out.data(), n, HCCL_DATA_TYPE_INT32,
                              comm, nullptr);
      if (rc != HCCL_SUCCESS)
        return std::string("call failed: ") + HcclGetLastErrorMessage();
      return compareOutput(DataType::Int32, out.data(),
                           expectedOutput(coll, c.size, c.rank, n, 0,
                                          DataType::Int32, ReduceOp::Sum));
    };
    // Each count follows another of the same collective: a program of the
    // other count would leave blocks unwritten or in the wrong place.
    const std::pair<Collective, uint64_t> shapes[] = {
        {Collective::AllReduce, 1001}, {Collective::AllReduce, 77},
        {Collective::AllReduce, 1001}, {Collective::AllGather, 77},
        {Collective::AllGather, 1001}, {Collective::AllGather, 1001},
        {Collective::AllReduce, 1001}};
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto &[coll, n] : shapes) {
        std::string d = run(coll, n);
        RT_CHECK(d.empty(), "pass " + std::to_string(pass) + ", " +
                                hccl::sched::collectiveName(coll) + " of " +
                                std::to_string(n) + ": " + d);
      }
      if (pass == 1)
        break;
      for (uint64_t n = 2000; n < 2300; ++n) {
        std::string d = run(Collective::AllReduce, n);
        RT_CHECK(d.empty(), "all-reduce of " + std::to_string(n) + ": " + d);
      }
      RT_CHECK(cc->cachedPrograms() <= 256,
               std::to_string(cc->cachedPrograms()) +
                   " programs cached, more than the cache holds");
    }
    RT_OK(HcclCommDestroy(comm));
    return "";
  };
  EXPECT_EQ(runRanks(2, body, {120}), "");
}
