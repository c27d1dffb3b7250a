//===- mlir_pipeline_fuzzer.cpp - MLIR text into the comm pipeline --------===//
//
// What hccl-opt and hccl-translate do with a file, in process: the nesting
// scan, the parse with hccl-opt's dialects, then every pass of ours on its
// own copy of the module (so one pass refusing the input does not hide the
// others), the plan and graph exporters, and a print/parse round trip of
// what the full pipeline produced. Errors are fine; a crash, a hang
// (-timeout) or printed IR that does not parse back is a finding.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "GraphImport.h"
#include "PlanExport.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

const char *const kPipelines[] = {
    "hccl-pipeline",
    "comm-lower-schedule,comm-verify-schedule,comm-specialize-rank{rank=1}",
    ("comm-gradient-compression,comm-bucket-sizing{policy=optimal},"
     "comm-gradient-fusion,comm-overlap-schedule{memory-cap=1M "
     "max-in-flight=2}"),
    "comm-select-algorithm{slices=4},comm-estimate{output=/dev/null}",
    "canonicalize,cse",
};

DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *reg = new DialectRegistry;
    hccl::fuzz::registerDialects(*reg);
    return reg;
  }();
  return *r;
}

OwningOpRef<ModuleOp> parse(llvm::StringRef text, MLIRContext &ctx) {
  return parseSourceString<ModuleOp>(text, &ctx);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registerTransformsPasses();
  comm::registerCommPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text = hccl::fuzz::asText(data, size);
  if (hccl::fuzz::tooDeep(text) || hccl::fuzz::hasForwardReference(text))
    return 0;
  MLIRContext ctx(registry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // MLIR's lexer reads the byte after the text (a NUL ends it): the tools'
  // files come NUL-terminated from MemoryBuffer, libFuzzer's bytes do not
  // (a heap-buffer-overflow in the harness, not in the tools).
  const std::string input = text.str();
  OwningOpRef<ModuleOp> module = parse(input, ctx);
  if (!module)
    return 0;

  std::string lowered;
  for (const char *pipeline : kPipelines) {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm(&ctx, ModuleOp::getOperationName());
    if (failed(parsePassPipeline(pipeline, pm))) {
      std::fprintf(stderr, "bad pipeline %s\n", pipeline);
      abort();
    }
    if (failed(pm.run(*copy)))
      continue;
    if (pipeline == kPipelines[0]) {
      // What the pipeline prints must read back.
      llvm::raw_string_ostream os(lowered);
      copy->print(os);
      os.flush();
      MLIRContext again(registry(), MLIRContext::Threading::DISABLED);
      ScopedDiagnosticHandler quiet2(&again, [](Diagnostic &d) {
        std::fprintf(stderr, "reparse: %s\n", d.str().c_str());
        return success();
      });
      if (!parse(lowered, again)) {
        std::fprintf(stderr,
                     "hccl-pipeline printed IR that does not parse "
                     "back:\n%s\n",
                     lowered.c_str());
        abort();
      }
    }
    if (pipeline == kPipelines[1]) {
      std::string plan;
      llvm::raw_string_ostream os(plan);
      (void)comm::exportPlan(*copy, comm::PlanExportOptions(), os);
    }
  }
  (void)comm::exportGraph(*module, "");
  return 0;
}
