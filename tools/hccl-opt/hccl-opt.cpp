//===- hccl-opt.cpp - The hccl-mlir optimizer driver ----------------------===//
//
// A slim MlirOptMain: the comm dialect, the upstream dialects training graphs
// use, our passes and the upstream transforms (canonicalize, cse, ...).
// --load-dialect-plugin / --load-pass-plugin come with MlirOptMain.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::comm::CommDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::linalg::LinalgDialect>();
  mlir::registerTransformsPasses();
  mlir::comm::registerCommPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "hccl-mlir optimizer driver\n", registry));
}
