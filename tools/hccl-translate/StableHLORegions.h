//===- StableHLORegions.h - collectives in calls and regions ----*- C++ -*-===//
//
// The importer maps the ops of a function body; a collective anywhere else
// (a while body, a case branch, a function reached through a call) would
// vanish with its enclosing op. This step runs first: calls into functions
// that communicate are inlined, and whatever communication is still outside
// a function body is an error naming the op, its enclosing op and why.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOREGIONS_H
#define HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOREGIONS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::comm::shlo {

/// A StableHLO (or MHLO) op that communicates between processes: the
/// collectives and the point-to-point send / recv.
bool isCommunication(Operation *op);

/// Inlines every func.call whose callee communicates (directly or through
/// further calls; single-block callees, no recursion), erases private
/// callees left unused, then fails with one error per program if any
/// communication sits in a region of another op or in a function reached
/// through a symbol reference other than func.call (async_start's
/// called_computation, custom_call's called_computations, composite's
/// decomposition).
LogicalResult prepareCallsAndRegions(ModuleOp module);

} // namespace mlir::comm::shlo

#endif
