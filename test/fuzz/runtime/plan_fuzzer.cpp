//===- plan_fuzzer.cpp - Plan JSON into HcclPlanLoadFromString ------------===//
//
// A plan is data from a file: any bytes load (proven) or are refused with
// an error, and what loads answers every query of its programs.
//
//===----------------------------------------------------------------------===//
#include "hccl/hccl_ext.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  HcclPlan plan = nullptr;
  if (HcclPlanLoadFromString(reinterpret_cast<const char *>(data), size,
                             &plan) != HCCL_SUCCESS)
    return 0;
  uint32_t n = 0;
  if (HcclPlanGetProgramCount(plan, &n) != HCCL_SUCCESS)
    abort();
  for (uint32_t i = 0; i < n && i < 64; ++i) {
    const char *id = nullptr;
    if (HcclPlanGetProgramId(plan, i, &id) != HCCL_SUCCESS || id == nullptr)
      abort();
    HcclPlanProgramInfo info;
    if (HcclPlanGetProgramInfo(plan, id, 0, &info) != HCCL_SUCCESS)
      abort(); // a proven program has sizes on every rank
    uint32_t p = info.ranks;
    if (p > 1 && HcclPlanGetProgramInfo(plan, id, p - 1, &info) != HCCL_SUCCESS)
      abort();
    if (HcclPlanGetProgramInfo(plan, id, p, &info) == HCCL_SUCCESS)
      abort(); // rank p is outside the group
  }
  if (HcclPlanFree(plan) != HCCL_SUCCESS)
    abort();
  return 0;
}
