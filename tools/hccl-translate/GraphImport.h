//===- GraphImport.h - Exported graphs <-> comm IR --------------*- C++ -*-===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_GRAPHIMPORT_H
#define HCCL_MLIR_TOOLS_TRANSLATE_GRAPHIMPORT_H

#include "hccl-mlir/graph/Graph.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::comm {

/// Builds a module for a validated graph: the topology attribute, one
/// comm.group per group and one function holding the ops in order (compute
/// ops as comm.compute, collectives as comm ops). Names survive as NameLoc
/// locations, `comm.name` argument attributes and `comm.outputs` result
/// names. Errors (e.g. a rank table the topology attribute cannot express)
/// are emitted at `loc`.
OwningOpRef<ModuleOp> importGraph(const hccl::graph::Graph &g, MLIRContext *ctx,
                                  Location loc);

/// The inverse: the function holding collectives (or `function`) as a
/// graph. Lowered schedules cannot be exported; start/wait pairs export
/// their collective at the start.
FailureOr<hccl::graph::Graph> exportGraph(ModuleOp module,
                                          StringRef function = {});

} // namespace mlir::comm

#endif
