//===- HcclCommPlugin.cpp - comm dialect and passes as an mlir-opt plugin -===//
//
// Loaded into upstream mlir-opt with --load-dialect-plugin and/or
// --load-pass-plugin. MLIR itself comes from the host tool: this module
// carries only our objects (see tools/plugin/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "HcclComm", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::comm::CommDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "HcclCommPasses", LLVM_VERSION_STRING,
          []() { mlir::comm::registerCommPasses(); }};
}
