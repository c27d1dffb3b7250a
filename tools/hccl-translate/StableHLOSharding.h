//===- StableHLOSharding.h - Implicit communication -------------*- C++ -*-===//
//
// A program partitioned by annotations (GSPMD's `mhlo.sharding`, Shardy's
// `sdy` dialect) holds no collectives yet: XLA's partitioner inserts them
// when it compiles. Imported as it is, such a program would become a
// schedule with no communication and a plan that "succeeds". This check
// refuses it with one line naming the annotation and what to run first.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOSHARDING_H
#define HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOSHARDING_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::comm::shlo {

/// Fails, with an error at the first annotation, when the module uses the
/// sdy dialect, or carries a tiled `mhlo.sharding` ("{devices=[...]...}")
/// outside a shard_map program (one with an SPMDFullToShardShape custom
/// call, whose collectives are explicit and import as written).
LogicalResult refuseImplicitSharding(ModuleOp module);

/// shard_map in Shardy's form: a function whose body is one
/// sdy.manual_computation over every axis of its mesh (and the return of
/// its results) becomes the per-device program its body is: the body's
/// block arguments (each device's shards) are the function's arguments,
/// its explicit collectives keep their replica groups (the mesh's logical
/// device ids, which are the partitions), the mesh's size gives
/// mhlo.num_partitions. The mesh ops and sharding attributes go. A manual
/// computation that leaves axes to the partitioner, or other ops beside it,
/// is an error naming them; anything else Shardy is left for
/// refuseImplicitSharding.
LogicalResult unwrapShardMap(ModuleOp module);

/// The one-line advice for Shardy input (also used for a parse failure on
/// an sdy op in its pretty form).
const char *shardyAdvice();

} // namespace mlir::comm::shlo

#endif
