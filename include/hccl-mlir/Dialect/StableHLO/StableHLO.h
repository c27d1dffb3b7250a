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

#endif
