//===- stablehlo_import_fuzzer.cpp - StableHLO (either form) into comm ----===//
//
// hccl-translate --import-stablehlo in process: the nesting scan, the parse
// through the StableHLO reader dialect (pretty and generic forms: the
// custom parsers of dialects/stablehlo, its keyed attributes), the importer
// (replica groups, reductions, channels) and the verifier; with
// --num-replicas unset and set, since they take different paths. The
// pretty-* seeds hold every op of the reader and the programs of
// test/Translate/stablehlo-pretty-*.test.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "StableHLOImport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text = hccl::fuzz::asText(data, size);
  if (hccl::fuzz::tooDeep(text) || hccl::fuzz::hasForwardReference(text))
    return 0;
  for (int64_t replicas : {0, 8}) {
    DialectRegistry registry;
    hccl::fuzz::registerDialects(registry);
    MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz"),
                          llvm::SMLoc());
    comm::StableHLOImportOptions opts;
    opts.numReplicas = replicas;
    OwningOpRef<ModuleOp> m = comm::importStableHLO(sm, &ctx, opts);
    (void)m;
  }
  return 0;
}
