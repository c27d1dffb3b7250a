//===- downstream-tool.cpp - An MLIR project embedding hccl-mlir ----------===//
//
// Parses a module, runs the comm passes from its own PassManager (not through
// hccl-opt) and prints the result: what a training compiler linking our
// libraries does. Its own dialect (ds) is generated from DownstreamOps.td,
// which includes the installed CommOps.td.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include "DownstreamDialect.h.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.h.inc"

#include "DownstreamDialect.cpp.inc"
#define GET_OP_CLASSES
#include "DownstreamOps.cpp.inc"

void ds::DSDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "DownstreamOps.cpp.inc"
      >();
}

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: downstream-tool FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  registry.insert<mlir::comm::CommDialect, mlir::func::FuncDialect,
                  ds::DSDialect>();
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &ctx);
  if (!module)
    return 1;
  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::comm::createGradientFusion());
  pm.addPass(mlir::createCanonicalizerPass());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
