//===- Runner.h - One rank of an hccl-test run ------------------*- C++ -*-===//
#ifndef HCCL_TOOLS_HCCL_TEST_RUNNER_H
#define HCCL_TOOLS_HCCL_TEST_RUNNER_H

#include "Options.h"

namespace hccltest {

/// Runs the benchmark as one rank of the job described by the environment
/// (a launcher's variables, or those hccl-test's own launcher set). Rank 0
/// prints the table. Returns the process exit status: 0 success, 1 a failed
/// call or a wrong result, 2 options that do not fit the job (e.g. -r).
int runRank(const Options &opts);

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_RUNNER_H
