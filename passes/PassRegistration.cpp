//===- PassRegistration.cpp - Register comm passes and pipelines ----------===//
#include "hccl-mlir/Passes/Passes.h"

void mlir::comm::registerCommPasses() {
  static bool once = [] {
    registerHcclCommPasses();
    return true;
  }();
  (void)once;
}
