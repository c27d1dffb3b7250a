//===- Timeline.h - Predicted iteration timeline of a function --*- C++ -*-===//
//
// Runs a function body in program order on the cost model:
//
//  - one compute stream executes compute ops back to back;
//  - each communicator group has one communication stream that runs its
//    collectives in issue order; collectives of different groups in flight
//    at once share the links they both use (LinkSharing.h);
//  - a synchronous collective is issued when reached and blocks the compute
//    stream until it ends; `comm.start` issues without blocking and
//    `comm.wait` blocks until that collective ends;
//  - an op whose regions hold communication is run inline (loop bodies
//    once); any other op costs computeCostUs;
//  - communication takes compute's cores (Topology::computeStealUsPerMB):
//    a `comm.start`ed collective delays the next compute op after its
//    issue by steal x its bytes, charged in full to that op however short
//    (an upper bound), unless the compute stream waits for it first (then
//    nothing ran beside it). A synchronous collective steals nothing.
//
// Iteration = when both the compute stream and every communication stream
// are done; exposed communication = iteration - compute (the compute stream
// only ever idles waiting for communication).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_PASSES_TIMELINE_H
#define HCCL_MLIR_PASSES_TIMELINE_H

#include "CostModel.h"

#include <string>
#include <vector>

namespace mlir::comm {

struct CollectiveEvent {
  Operation *op = nullptr;
  CollectivePrice price;
  double issueUs = 0; ///< reached by the compute stream
  double beginUs = 0; ///< its group's stream took it
  double endUs = 0;
  double waitUs = 0; ///< the compute stream asked for its result
  int lane = 0;      ///< in-flight lane (1-based), for traces
};

struct ComputeEvent {
  Operation *op = nullptr;
  double beginUs = 0, endUs = 0;
};

struct IterationTimeline {
  std::vector<CollectiveEvent> collectives; ///< in issue order
  std::vector<ComputeEvent> compute;        ///< ops with a non-zero cost
  double computeUs = 0;
  double commUs = 0;
  double exposedUs = 0; ///< the steal included
  double iterationUs = 0;
  double stealUs = 0; ///< compute delayed by communication on its cores
  int lanes = 0;
};

/// Simulates `body` (a function body). Emits at the op and fails if a
/// collective cannot be priced.
FailureOr<IterationTimeline> simulateRegion(Region &body, CommCostModel &model,
                                            const ComputeCostOptions &opts);

} // namespace mlir::comm

#endif // HCCL_MLIR_PASSES_TIMELINE_H
