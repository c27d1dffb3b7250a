//===- Intervals.h - Busy time of overlapping intervals ---------*- C++ -*-===//
//
// How hccl-run and hccl-sim count a rank's communication time: the length
// of the union of its collectives' [start, end) intervals, so that
// collectives in flight together count once. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMON_INTERVALS_H
#define HCCL_TOOLS_COMMON_INTERVALS_H

#include <utility>
#include <vector>

namespace hccl::tools {

/// Length of the union of [first, second) intervals, in their unit.
double unionLength(std::vector<std::pair<double, double>> intervals);

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMON_INTERVALS_H
