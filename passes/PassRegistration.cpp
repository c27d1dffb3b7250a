//===- PassRegistration.cpp - Register comm passes and pipelines ----------===//
#include "hccl-mlir/Passes/Passes.h"

using namespace mlir;
using namespace mlir::comm;

void mlir::comm::registerCommPasses() {
  static bool once = [] {
    registerHcclCommPasses();
    // Registered by hand rather than with PassPipelineRegistration so that
    // options the chosen policy ignores are an error, not silently dropped.
    registerPassPipeline(
        "hccl-pipeline",
        "The whole comm pipeline: [compression ->] bucket sizing -> fusion "
        "-> overlap -> algorithm selection -> lowering -> verification",
        [](OpPassManager &pm, StringRef text,
           function_ref<LogicalResult(const Twine &)> errorHandler) {
          HcclPipelineOptions o;
          if (failed(o.parseFromString(text)))
            return failure();
          if (std::string why = checkHcclPipelineOptions(o); !why.empty())
            return errorHandler("hccl-pipeline: " + why);
          buildHcclPipeline(pm, o);
          return success();
        },
        [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
          optHandler(HcclPipelineOptions());
        });
    return true;
  }();
  (void)once;
}
