//===- StableHLOImport.h - StableHLO collectives -> comm --------*- C++ -*-===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOIMPORT_H
#define HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::comm {

struct StableHLOImportOptions {
  /// num_replicas of the process grid. 0 = the module's mhlo.num_replicas,
  /// else the largest replica id + 1 (with one partition; an error when
  /// there is nothing to infer from).
  int64_t numReplicas = 0;
  /// num_partitions. 0 = the module's mhlo.num_partitions, else 1.
  int64_t numPartitions = 0;
};

/// Parses StableHLO in its pretty or generic form (dialects/stablehlo; the
/// collectives stay generic ops so that every attribute is seen), refusing
/// MLIR bytecode (VHLO artifacts), VHLO ops and names that are not StableHLO
/// ops. Null after an error.
OwningOpRef<ModuleOp> parseStableHLO(llvm::SourceMgr &sm, MLIRContext *ctx);

/// Parses StableHLO (parseStableHLO) and rewrites it into the comm dialect:
/// all_reduce (with its reduction region), all_gather, reduce_scatter,
/// all_to_all, collective_permute and collective_broadcast become comm ops on
/// comm.group symbols holding the spec's process groups as flattened process
/// ids (replica_id * num_partitions + partition_id; channel handles kept as
/// `comm.channel`); calls into communicating functions are inlined; every other
/// stablehlo op becomes an opaque comm.compute. Collectives in loops and
/// branches, attributes the importer does not honour, unsupported reduction
/// regions, and padded replica groups are diagnosed, never guessed
/// (docs/stablehlo-import.md).
OwningOpRef<ModuleOp> importStableHLO(llvm::SourceMgr &sm, MLIRContext *ctx,
                                      const StableHLOImportOptions &opts);

} // namespace mlir::comm

#endif
