//===- hccl_ext.h - Extensions of the bundled runtime: plans ----*- C -*-===//
//
// Running what the compiler exported: a plan document (docs/plan-format.md)
// holds step programs; a rank loads the plan once and runs any of its
// programs on a communicator, as it would run a collective. The program's
// group maps its ranks to ranks of that communicator (absent = identity,
// or the plan's schedule group); a program with several groups runs in the
// one holding this rank; ranks outside every group do not call.
//
// Buffers: a program has an input and an output buffer whose sizes may
// depend on the rank (e.g. all-to-all-v); HcclPlanGetBufferBytes tells them.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_EXT_H_
#define HCCL_EXT_H_

#include "hccl/hccl.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded, validated plan (immutable; usable from several threads).
typedef struct HcclPlanDef *HcclPlan;

/// Reads and validates a plan file; errors name the JSON path of the
/// problem (HCCL_E_OPEN_FILE_FAILURE when the file cannot be read,
/// HCCL_E_PARA when it is not a valid plan).
HcclResult HcclPlanLoad(const char *path, HcclPlan *plan);
/// Same, from text in memory.
HcclResult HcclPlanLoadFromString(const char *json, uint64_t length,
                                  HcclPlan *plan);
HcclResult HcclPlanFree(HcclPlan plan);

/// Number of programs and the id of program `index` (valid while the plan
/// lives).
HcclResult HcclPlanGetProgramCount(HcclPlan plan, uint32_t *count);
HcclResult HcclPlanGetProgramId(HcclPlan plan, uint32_t index, const char **id);

/// What a program does: data type and operator (as HCCL numbers them), its
/// group size, and the byte sizes of the input and output buffers of group
/// rank `groupRank`.
typedef struct {
  HcclDataType dataType;
  HcclReduceOp op;
  uint32_t ranks;
  uint64_t inputBytes;
  uint64_t outputBytes;
} HcclPlanProgramInfo;
HcclResult HcclPlanGetProgramInfo(HcclPlan plan, const char *programId,
                                  uint32_t groupRank,
                                  HcclPlanProgramInfo *info);

/// Runs program `programId` of `plan` on `comm` (this rank must be in the
/// program's group). Like a collective: NULL stream = synchronous, else
/// queued on the host stream in issue order.
HcclResult HcclRunPlanCollective(HcclComm comm, HcclPlan plan,
                                 const char *programId, const void *sendBuf,
                                 void *recvBuf, aclrtStream stream);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // HCCL_EXT_H_
