//===- ProgramIR.h - Step programs <-> comm.schedule IR ---------*- C++ -*-===//
//
// The two directions between lib/schedule's Program and the lowered IR:
// the lowering emits a program as a comm.schedule (one IR op per program op,
// expressions as index arithmetic), and the verifier, the plan exporter and
// the tests read a comm.schedule back into a Program. Reading back is what
// makes verification meaningful: the verifier checks the IR as it is now,
// after any pass touched it, not the generator's output.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_PASSES_PROGRAMIR_H
#define HCCL_MLIR_PASSES_PROGRAMIR_H

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Program.h"

namespace mlir::comm {

/// Builds a comm.schedule for `prog` at the builder's insertion point.
/// `inputs` are the collective's tensors and `resultTypes` its result types.
ScheduleOp buildScheduleOp(OpBuilder &b, Location loc,
                           const hccl::sched::Program &prog,
                           ValueRange inputs, TypeRange resultTypes,
                           FlatSymbolRefAttr group, AlgorithmAttr algo);

/// Reads a comm.schedule back into a Program. On failure, emits a
/// diagnostic at the offending op and returns failure.
FailureOr<hccl::sched::Program> scheduleToProgram(ScheduleOp op);

/// The lib/schedule algorithm fields of an algorithm attribute.
void applyAlgorithm(AlgorithmAttr algo, hccl::sched::Program &prog);

} // namespace mlir::comm

#endif // HCCL_MLIR_PASSES_PROGRAMIR_H
