//===- StableHLOImport.h - StableHLO collectives -> comm --------*- C++ -*-===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOIMPORT_H
#define HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::comm {

struct StableHLOImportOptions {
  /// Replicas in the program; needed when a collective has empty
  /// replica_groups (= all replicas) or for collective_permute. 0 = infer
  /// from the largest replica id (error when nothing to infer from).
  int64_t numReplicas = 0;
};

/// Parses StableHLO in MLIR's generic op form (as JAX / torch_xla print it
/// with the generic printer) without the StableHLO dialect, and rewrites it
/// into the comm dialect: all_reduce (with its reduction region),
/// all_gather, reduce_scatter, all_to_all, collective_permute and
/// collective_broadcast become comm ops on comm.group symbols made from the
/// replica groups (channel handles kept as `comm.channel`); every other
/// stablehlo op becomes an opaque comm.compute. Unsupported reduction
/// regions, padded replica groups and the pretty (custom) form are
/// diagnosed, never guessed.
OwningOpRef<ModuleOp> importStableHLO(llvm::SourceMgr &sm, MLIRContext *ctx,
                                      const StableHLOImportOptions &opts);

} // namespace mlir::comm

#endif
