//===- RandomGraph.h - Random graphs for property tests ---------*- C++ -*-===//
//
// A function of compute ops (arith on tensors, with comm.cost_us), gradient
// all-reduces on two groups, now and then another collective or an opaque
// call, and compute that consumes reduced values (so later gradients can
// depend on earlier collectives). Every op carries `tid` = its creation
// index, so tests can follow ops through passes and clones.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_UNIT_COMPILER_RANDOMGRAPH_H
#define HCCL_TEST_UNIT_COMPILER_RANDOMGRAPH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>

namespace hccl::testing {

struct GraphSpec {
  int ops = 1000; ///< ops generated in the function body
  uint64_t seed = 1;
  std::string topology = "910b-8x2";
  double commShare = 0.4;  ///< fraction of ops that are all-reduces
  bool sideEffects = true; ///< opaque calls and non-all-reduce collectives
  bool consumers = true;   ///< compute that reads reduced values
};

/// A context with the dialects the graphs use, loaded.
void loadDialects(mlir::MLIRContext &ctx);

mlir::OwningOpRef<mlir::ModuleOp> makeRandomGraph(mlir::MLIRContext &ctx,
                                                  const GraphSpec &spec);

/// The function the generator builds.
mlir::func::FuncOp getGraphFunc(mlir::ModuleOp m);

} // namespace hccl::testing

#endif // HCCL_TEST_UNIT_COMPILER_RANDOMGRAPH_H
