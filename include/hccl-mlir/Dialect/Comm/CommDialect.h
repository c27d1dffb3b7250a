//===- CommDialect.h - The comm dialect and its attributes ------*- C++ -*-===//
#ifndef HCCL_MLIR_DIALECT_COMM_COMMDIALECT_H
#define HCCL_MLIR_DIALECT_COMM_COMMDIALECT_H

#include "hccl-mlir/schedule/Topology.h"
#include "hccl-mlir/schedule/Types.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/Hashing.h"

#include "hccl-mlir/Dialect/Comm/CommDialect.h.inc"
#include "hccl-mlir/Dialect/Comm/CommEnums.h.inc"

namespace hccl::sched {
inline llvm::hash_code hash_value(Algorithm a) {
  return llvm::hash_value(static_cast<int>(a));
}
} // namespace hccl::sched

#define GET_ATTRDEF_CLASSES
#include "hccl-mlir/Dialect/Comm/CommAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "hccl-mlir/Dialect/Comm/CommTypes.h.inc"

namespace mlir::comm {

/// The resource every communication op reads and writes (see CommOps.td).
struct CommResource : public SideEffects::Resource::Base<CommResource> {
  StringRef getName() final { return "<comm>"; }
};

/// lib/schedule's spelling of a reduction kind (same numbering).
inline hccl::sched::ReduceOp toSchedule(ReductionKind k) {
  return static_cast<hccl::sched::ReduceOp>(static_cast<int>(k));
}

/// The element type of a comm tensor in lib/schedule's vocabulary, if
/// supported.
std::optional<hccl::sched::DataType> toScheduleType(Type elementType);

} // namespace mlir::comm

#endif // HCCL_MLIR_DIALECT_COMM_COMMDIALECT_H
