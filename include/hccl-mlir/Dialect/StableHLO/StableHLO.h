//===- StableHLO.h - The stablehlo dialect (a reader) -----------*- C++ -*-===//
//
// StableHLO's ops, types and attributes as they are printed, for
// hccl-translate's importer (dialects/stablehlo, docs/stablehlo-import.md).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_DIALECT_STABLEHLO_STABLEHLO_H
#define HCCL_MLIR_DIALECT_STABLEHLO_STABLEHLO_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "hccl-mlir/Dialect/StableHLO/StableHLODialect.h.inc"
#include "hccl-mlir/Dialect/StableHLO/StableHLOEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "hccl-mlir/Dialect/StableHLO/StableHLOTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "hccl-mlir/Dialect/StableHLO/StableHLOAttrs.h.inc"

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/StableHLO/StableHLOOps.h.inc"

namespace mlir::stablehlo {

/// An integer as int64_t, by its type: i1 (the spec's boolean) and unsigned
/// types zero-extended, others sign-extended; nullopt when it does not fit
/// (an i128 past int64, a ui64 past INT64_MAX). Never getInt(), which is
/// undefined for those and for i0.
std::optional<int64_t> intValue(const APInt &v, bool isUnsigned);
/// An IntegerAttr's value as above; nullopt for anything else.
std::optional<int64_t> intValue(Attribute a);

/// The integers of a dimension-list attribute in any of its spellings
/// (array<i64: ...>, dense<...> : tensor<Nxi64> of any integer type,
/// [1, 2], array<i1: ...>); nullopt for another attribute, a value that
/// does not fit in int64_t, or a tensor of more than 2^20 elements.
std::optional<SmallVector<int64_t>> intsOf(Attribute a);

} // namespace mlir::stablehlo

#endif
