//===- CommOps.h - comm dialect operations ----------------------*- C++ -*-===//
#ifndef HCCL_MLIR_DIALECT_COMM_COMMOPS_H
#define HCCL_MLIR_DIALECT_COMM_COMMOPS_H

#include "hccl-mlir/Dialect/Comm/CommDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "hccl-mlir/Dialect/Comm/CommInterfaces.h.inc"

namespace mlir::comm {
class StartOp;
class WaitOp;
class YieldOp;
} // namespace mlir::comm

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/Comm/CommOps.h.inc"

namespace mlir::comm {

/// The group a communication op refers to, or null if the symbol is missing.
GroupOp lookupGroup(Operation *op, FlatSymbolRefAttr group);

/// The lib/schedule collective an op performs (nullopt for send, recv,
/// barrier and non-comm ops).
std::optional<hccl::sched::Collective> getScheduleCollective(Operation *op);

/// Bytes communicated by an op's payload (static shapes; nullopt if dynamic).
std::optional<int64_t> getPayloadBytes(CollectiveOpInterface op);

/// The module's topology attribute, if any.
TopologyAttr getTopology(Operation *op);

} // namespace mlir::comm

#endif // HCCL_MLIR_DIALECT_COMM_COMMOPS_H
