//===- Passes.h - comm dialect passes ---------------------------*- C++ -*-===//
#ifndef HCCL_MLIR_PASSES_PASSES_H
#define HCCL_MLIR_PASSES_PASSES_H

#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::comm {

#define GEN_PASS_DECL
#include "hccl-mlir/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hccl-mlir/Passes/Passes.h.inc"

/// Registers every comm pass and the named pipelines.
void registerCommPasses();

} // namespace mlir::comm

#endif // HCCL_MLIR_PASSES_PASSES_H
