//===- Sdy.h - Shardy's shard_map ops (a reader) ----------------*- C++ -*-===//
//
// sdy.mesh, sdy.manual_computation and sdy.return as JAX prints them, for
// hccl-translate's importer (dialects/stablehlo/SdyOps.td).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_DIALECT_STABLEHLO_SDY_H
#define HCCL_MLIR_DIALECT_STABLEHLO_SDY_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "hccl-mlir/Dialect/StableHLO/SdyDialect.h.inc"

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/StableHLO/SdyOps.h.inc"

#endif
