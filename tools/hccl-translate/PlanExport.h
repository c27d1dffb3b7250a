//===- PlanExport.h - comm IR -> plan JSON ----------------------*- C++ -*-===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_PLANEXPORT_H
#define HCCL_MLIR_TOOLS_TRANSLATE_PLANEXPORT_H

#include "hccl-mlir/schedule/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::comm {

struct PlanExportOptions {
  /// The function to export; empty = the only function holding collectives.
  std::string function;
  hccl::sched::ProgramForm form = hccl::sched::ProgramForm::Compact;
};

/// Builds the plan of one function: its lowered collectives (comm.schedule,
/// synchronous or inside comm.start/comm.wait) in issue order, and the
/// compute ops between them with their predicted cost (comm.cost_us). Every
/// program is proven first (lib/schedule's verify(), once per comm.program);
/// an incorrect or unproven one is an error at it. Diagnostics at the
/// offending op on failure.
FailureOr<hccl::sched::Plan> buildPlan(ModuleOp module,
                                       const PlanExportOptions &opts);

/// buildPlan + JSON.
LogicalResult exportPlan(ModuleOp module, const PlanExportOptions &opts,
                         llvm::raw_ostream &os);

} // namespace mlir::comm

#endif
