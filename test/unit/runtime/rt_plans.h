//===- rt_plans.h - Plan documents for the runtime's tests and bench ------===//
//
// The text of a plan holding one generated program, as the compiler and
// hccl-plan export it (lib/schedule's generator and writer): what the plan
// tests load and plan-run-bench runs. On lib/schedule alone, so the bench
// includes it without the test harness.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_RUNTIME_RT_PLANS_H
#define HCCL_TEST_RUNTIME_RT_PLANS_H

#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Plan.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rtest {

/// A plan whose one program, "main", is the sum `c` of `n` elements of
/// `dtype` on `p` ranks by `a` (on the communicator ranks `group`, when
/// given), written in `form`. "" on failure, with the reason in *err when
/// err is given.
inline std::string
planText(hccl::sched::Collective c, hccl::sched::Algorithm a, int p, int64_t n,
         hccl::sched::ProgramForm form = hccl::sched::ProgramForm::Compact,
         std::vector<int64_t> group = {},
         hccl::sched::DataType dtype = hccl::sched::DataType::Int32,
         std::string *err = nullptr) {
  namespace sched = hccl::sched;
  sched::GenerateRequest req;
  req.collective = c;
  req.algorithm = a;
  req.ranks = p;
  req.count = n;
  req.dtype = dtype;
  req.reduceOp = sched::ReduceOp::Sum;
  auto prog = sched::generate(req);
  if (!prog) {
    if (err)
      *err = prog.message();
    return "";
  }
  sched::Plan plan;
  sched::PlanProgram pp;
  pp.id = "main";
  pp.program = prog.take();
  if (!group.empty())
    pp.groups.push_back(std::move(group));
  plan.programs.push_back(std::move(pp));
  sched::PlanWriteOptions o;
  o.form = form;
  auto text = sched::writePlan(plan, o);
  if (!text) {
    if (err)
      *err = text.message();
    return "";
  }
  return text.take();
}

} // namespace rtest

#endif // HCCL_TEST_RUNTIME_RT_PLANS_H
