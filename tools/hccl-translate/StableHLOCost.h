//===- StableHLOCost.h - FLOPs and bytes of a StableHLO op ------*- C++ -*-===//
//
// The work of the compute between collectives, for the cost model's roofline
// (passes/CostModel.cpp prices a comm.compute as max(flops / peak, bytes /
// bandwidth)). Counted from static shapes and the op's attributes, with the
// StableHLO specification's definition of what each op computes; the rules
// and their choices are in docs/stablehlo-import.md, "Compute cost".
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOCOST_H
#define HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOCOST_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::comm::shlo {

/// What one op does: arithmetic operations (of any element type; a
/// multiply-add is two) and bytes read plus written. Either is absent where
/// the op has no formula or its shapes are not static; the cost model then
/// falls back to the bytes of its operand and result types.
struct ComputeCost {
  std::optional<double> flops;
  std::optional<double> bytes;
};

/// The cost of `op`, a StableHLO op in a function body (never fails: an op
/// it cannot count gets no figure).
ComputeCost computeCost(Operation *op);

} // namespace mlir::comm::shlo

#endif
