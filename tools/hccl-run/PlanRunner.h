//===- PlanRunner.h - One rank of hccl-run ----------------------*- C++ -*-===//
#ifndef HCCL_TOOLS_HCCL_RUN_PLANRUNNER_H
#define HCCL_TOOLS_HCCL_RUN_PLANRUNNER_H

#include "Options.h"

namespace hcclrun {

/// Runs the plan(s) of `opts` as this process's rank (communicator from the
/// launcher's environment); rank 0 prints the figures. Returns the exit
/// status (0, 1 on a failed run or check, 2 on bad input).
int runRank(const Options &opts);

/// Checks a plan file before launching ranks (local mode): readable, valid,
/// and its group fits `ranks`. Prints a one-line error and returns 2 when
/// not; returns the plan's group size in `planRanks`.
int precheckPlan(const std::string &path, int ranks, int &planRanks);

} // namespace hcclrun

#endif
