//===- ChromeTrace.h - Chrome trace events (chrome://tracing) -*- C++ -*-===//
//
// The trace format of hccl-run and hccl-sim: one process per rank (pid =
// rank, named "rank R"), complete events ("ph": "X") with microsecond
// times; tid separates the compute line (0) from the collectives' lines.
// MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMON_CHROMETRACE_H
#define HCCL_TOOLS_COMMON_CHROMETRACE_H

#include <ostream>
#include <string>
#include <vector>

namespace hccl::tools {

struct TraceEvent {
  std::string name, cat;
  double ts = 0, dur = 0; ///< microseconds
  int tid = 0;
};

/// Appends rank `pid`'s process-name record and events to a JSON array
/// being written to `out`; `first` is true until the array has an element.
void appendTraceEvents(std::ostream &out, int pid,
                       const std::vector<TraceEvent> &events, bool &first);

/// A whole trace: {"traceEvents": [...], "displayTimeUnit": "ms"}, the
/// events of rank i in perRank[i].
void writeTrace(std::ostream &out,
                const std::vector<std::vector<TraceEvent>> &perRank);

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMON_CHROMETRACE_H
