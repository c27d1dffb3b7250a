//===- Chlo.h - CHLO ops JAX writes (a reader) ------------------*- C++ -*-===//
//
// The CHLO ops of dialects/stablehlo/ChloOps.td, for hccl-translate's
// importer, which reads them as compute.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_DIALECT_STABLEHLO_CHLO_H
#define HCCL_MLIR_DIALECT_STABLEHLO_CHLO_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "hccl-mlir/Dialect/StableHLO/ChloDialect.h.inc"

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/StableHLO/ChloOps.h.inc"

#endif
