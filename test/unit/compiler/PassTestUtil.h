//===- PassTestUtil.h - Running passes in property tests --------*- C++ -*-===//
#ifndef HCCL_TEST_UNIT_COMPILER_PASSTESTUTIL_H
#define HCCL_TEST_UNIT_COMPILER_PASSTESTUTIL_H

#include "RandomGraph.h"

#include "hccl-mlir/Passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace hccl::testing {

/// Runs a textual pipeline on `m` (passes on the module, without the
/// `builtin.module(...)` anchor); diagnostics are collected into `diags`.
inline mlir::LogicalResult runPipeline(mlir::ModuleOp m,
                                       llvm::StringRef pipeline,
                                       std::string *diags = nullptr) {
  mlir::comm::registerCommPasses();
  mlir::MLIRContext *ctx = m->getContext();
  std::string sink;
  llvm::raw_string_ostream os(diags ? *diags : sink);
  mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &d) {
    os << d << "\n";
    return mlir::success();
  });
  mlir::PassManager pm(ctx);
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, os)))
    return mlir::failure();
  return pm.run(m);
}

inline std::string print(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

inline mlir::OwningOpRef<mlir::ModuleOp> cloneModule(mlir::ModuleOp m) {
  return mlir::OwningOpRef<mlir::ModuleOp>(m.clone());
}

} // namespace hccl::testing

#endif // HCCL_TEST_UNIT_COMPILER_PASSTESTUTIL_H
