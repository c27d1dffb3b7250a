//===- PassRegistration.cpp - Register comm passes and pipelines ----------===//
#include "hccl-mlir/Passes/Passes.h"

using namespace mlir;
using namespace mlir::comm;

void mlir::comm::registerCommPasses() {
  static bool once = [] {
    registerHcclCommPasses();
    PassPipelineRegistration<HcclPipelineOptions>(
        "hccl-pipeline",
        "The whole comm pipeline: [compression ->] bucket sizing -> fusion "
        "-> overlap -> algorithm selection -> lowering -> verification",
        buildHcclPipeline);
    return true;
  }();
  (void)once;
}
