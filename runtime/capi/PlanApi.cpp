//===- PlanApi.cpp - C API: loading and running compiler plans ------------===//
//
// A plan is data from a file: loading proves every program with
// lib/schedule's verifier (once each) before any rank may run it, unless
// HCCL_PLAN_TRUSTED=1 says the plans were proven before.
//
//===----------------------------------------------------------------------===//
#include "capi/ApiSupport.h"
#include "common/Log.h"
#include "hccl-mlir/schedule/Plan.h"
#include "hccl-mlir/schedule/Verify.h"
#include "hccl/hccl_ext.h"

#include <memory>
#include <mutex>
#include <set>

using namespace hccl::rt;
using namespace hccl::rt::capi;
namespace sched = hccl::sched;

struct HcclPlanDef {
  std::shared_ptr<const sched::Plan> plan;
};

namespace {

std::mutex planMu;
std::set<HcclPlanDef *> livePlans;

Status resolvePlan(HcclPlan plan, const sched::Plan **out) {
  if (plan == nullptr)
    return Status(HCCL_E_PTR, "plan is NULL");
  std::lock_guard<std::mutex> g(planMu);
  if (!livePlans.count(plan))
    return errPara("plan is not a live plan (from HcclPlanLoad)");
  *out = plan->plan.get();
  return Status::ok();
}

Status findProgram(const sched::Plan &p, const char *id,
                   const sched::PlanProgram **out) {
  if (id == nullptr)
    return Status(HCCL_E_PTR, "programId is NULL");
  const sched::PlanProgram *pp = p.find(id);
  if (!pp) {
    std::string ids;
    for (const auto &x : p.programs)
      ids += (ids.empty() ? "" : ", ") + x.id;
    return errPara("plan has no program '" + std::string(id) +
                   "' (it has: " + ids + ")");
  }
  *out = pp;
  return Status::ok();
}

/// The program's group that holds communicator rank `rank`, as
/// communicator ranks (empty: the identity), held by the plan; nullptr when
/// the program has groups and none holds the rank.
const std::vector<int64_t> *
groupOf(const sched::Plan &p, const sched::PlanProgram &pp, uint32_t rank) {
  static const std::vector<int64_t> identity;
  if (!pp.groups.empty())
    return pp.groupOf(rank);
  if (static_cast<int64_t>(p.groupRanks.size()) == pp.program.p)
    return &p.groupRanks;
  return &identity;
}

HcclResult publish(const char *fn, sched::Result<sched::Plan> r,
                   HcclPlan *out) {
  if (!r)
    return report(fn, errPara(r.message()));
  auto cfg = loadEnvConfig();
  if (!cfg.isOk())
    return report(fn, cfg.status());
  if (cfg->planTrusted) {
    static std::once_flag warnOnce;
    std::call_once(warnOnce, [] {
      HCCL_LOG(Warn, "HCCL_PLAN_TRUSTED=1: plans are loaded without proving "
                     "their programs; a wrong plan runs wrong");
    });
  } else if (sched::Status s = sched::verifyPlan(*r); !s) {
    return report(fn, errPara("plan refused: " + s.message() +
                              " (HCCL_PLAN_TRUSTED=1 loads proven plans "
                              "without the proof)"));
  }
  auto *h = new HcclPlanDef{std::make_shared<const sched::Plan>(r.take())};
  std::lock_guard<std::mutex> g(planMu);
  livePlans.insert(h);
  *out = h;
  return HCCL_SUCCESS;
}

} // namespace

extern "C" {

HcclResult HcclPlanLoad(const char *path, HcclPlan *plan) {
  const char *fn = "HcclPlanLoad";
  return guarded(fn, [&]() -> HcclResult {
    if (path == nullptr || plan == nullptr)
      return report(fn,
                    Status(HCCL_E_PTR, path ? "plan is NULL" : "path is NULL"));
    FILE *f = std::fopen(path, "rb");
    if (!f)
      return report(fn, Status(HCCL_E_OPEN_FILE_FAILURE,
                               "cannot open '" + std::string(path) + "'"));
    std::fclose(f);
    return publish(fn, sched::readPlanFile(path), plan);
  });
}

HcclResult HcclPlanLoadFromString(const char *json, uint64_t length,
                                  HcclPlan *plan) {
  const char *fn = "HcclPlanLoadFromString";
  return guarded(fn, [&]() -> HcclResult {
    if (json == nullptr || plan == nullptr)
      return report(fn,
                    Status(HCCL_E_PTR, json ? "plan is NULL" : "json is NULL"));
    return publish(fn, sched::readPlan(std::string_view(json, length)), plan);
  });
}

HcclResult HcclPlanFree(HcclPlan plan) {
  const char *fn = "HcclPlanFree";
  return guarded(fn, [&]() -> HcclResult {
    if (plan == nullptr)
      return HCCL_SUCCESS;
    std::lock_guard<std::mutex> g(planMu);
    if (!livePlans.erase(plan))
      return report(fn, errPara("plan is not a live plan"));
    delete plan; // queued runs hold their own reference to the plan
    return HCCL_SUCCESS;
  });
}

HcclResult HcclPlanGetProgramCount(HcclPlan plan, uint32_t *count) {
  const char *fn = "HcclPlanGetProgramCount";
  return guarded(fn, [&]() -> HcclResult {
    const sched::Plan *p;
    if (Status st = resolvePlan(plan, &p); !st.isOk())
      return report(fn, st);
    if (count == nullptr)
      return report(fn, Status(HCCL_E_PTR, "count is NULL"));
    *count = static_cast<uint32_t>(p->programs.size());
    return HCCL_SUCCESS;
  });
}

HcclResult HcclPlanGetProgramId(HcclPlan plan, uint32_t index,
                                const char **id) {
  const char *fn = "HcclPlanGetProgramId";
  return guarded(fn, [&]() -> HcclResult {
    const sched::Plan *p;
    if (Status st = resolvePlan(plan, &p); !st.isOk())
      return report(fn, st);
    if (id == nullptr)
      return report(fn, Status(HCCL_E_PTR, "id is NULL"));
    if (index >= p->programs.size())
      return report(fn, errPara("index " + std::to_string(index) +
                                " is outside 0.." +
                                std::to_string(p->programs.size() - 1)));
    *id = p->programs[index].id.c_str();
    return HCCL_SUCCESS;
  });
}

HcclResult HcclPlanGetProgramInfo(HcclPlan plan, const char *programId,
                                  uint32_t groupRank,
                                  HcclPlanProgramInfo *info) {
  const char *fn = "HcclPlanGetProgramInfo";
  return guarded(fn, [&]() -> HcclResult {
    const sched::Plan *p;
    if (Status st = resolvePlan(plan, &p); !st.isOk())
      return report(fn, st);
    const sched::PlanProgram *pp;
    if (Status st = findProgram(*p, programId, &pp); !st.isOk())
      return report(fn, st);
    if (info == nullptr)
      return report(fn, Status(HCCL_E_PTR, "info is NULL"));
    const sched::Program &prog = pp->program;
    if (static_cast<int64_t>(groupRank) >= prog.p)
      return report(fn,
                    errPara("groupRank " + std::to_string(groupRank) +
                            " is outside 0.." + std::to_string(prog.p - 1)));
    std::array<int64_t, sched::kNumBuffers> sizes{};
    auto params = prog.paramValues();
    sched::Status st =
        sched::evalBufferSizes(prog, params.data(), groupRank, sizes);
    if (!st)
      return report(fn, errPara(st.message()));
    size_t es = sched::dataTypeSize(prog.dtype);
    info->dataType = static_cast<HcclDataType>(prog.dtype);
    info->op = static_cast<HcclReduceOp>(prog.reduceOp);
    info->ranks = static_cast<uint32_t>(prog.p);
    info->inputBytes = static_cast<uint64_t>(sizes[0]) * es;
    info->outputBytes = static_cast<uint64_t>(sizes[1]) * es;
    return HCCL_SUCCESS;
  });
}

HcclResult HcclRunPlanCollective(HcclComm comm, HcclPlan plan,
                                 const char *programId, const void *sendBuf,
                                 void *recvBuf, aclrtStream stream) {
  const char *fn = "HcclRunPlanCollective";
  return guarded(fn, [&]() -> HcclResult {
    Communicator *c;
    HostStream *s;
    if (Status st = resolveComm(comm, &c); !st.isOk())
      return report(fn, st);
    if (Status st = resolveStream(stream, &s); !st.isOk())
      return report(fn, st);
    const sched::Plan *p;
    if (Status st = resolvePlan(plan, &p); !st.isOk())
      return report(fn, st);
    const sched::PlanProgram *pp;
    if (Status st = findProgram(*p, programId, &pp); !st.isOk())
      return report(fn, st);
    // The run holds the plan (it outlives HcclPlanFree), and with it the
    // program and its group; the communicator keeps the expanded program
    // while the plan lives.
    std::shared_ptr<const sched::Plan> keep = plan->plan;
    const std::vector<int64_t> *group =
        groupOf(*p, *pp, static_cast<uint32_t>(c->rank()));
    if (!group)
      return report(fn, errPara("program '" + std::string(programId) +
                                "': this rank (" + std::to_string(c->rank()) +
                                ") is not in the program's groups"));
    const sched::Program *prog = &pp->program;
    return dispatch(fn, c, s, [c, keep, group, prog, sendBuf, recvBuf] {
      return c->runProgram(*prog, *group, sendBuf, recvBuf, keep);
    });
  });
}

} // extern "C"
