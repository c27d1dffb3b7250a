//===- graph_import_fuzzer.cpp - Exported-graph JSON into the importer ----===//
//
// hccl-translate --import-graph in process: the nesting scan, lib/graph's
// reader and validator, the importer, the verifier, and both round trips:
// a graph that reads must write and read back, and imported IR must export
// to a graph that reads back.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "GraphImport.h"

#include "hccl-mlir/graph/Graph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text = hccl::fuzz::asText(data, size);
  if (hccl::fuzz::tooDeep(text))
    return 0;
  auto g = hccl::graph::parseGraph(std::string_view(text.data(), text.size()));
  if (!g)
    return 0;
  std::string written = hccl::graph::writeGraph(*g);
  if (!hccl::graph::parseGraph(written)) {
    std::fprintf(stderr, "a graph that read does not read back:\n%s\n",
                 written.c_str());
    abort();
  }
  DialectRegistry registry;
  hccl::fuzz::registerDialects(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> m = comm::importGraph(*g, &ctx, UnknownLoc::get(&ctx));
  if (!m || failed(verify(*m)))
    return 0;
  FailureOr<hccl::graph::Graph> back = comm::exportGraph(*m, "");
  if (succeeded(back) &&
      !hccl::graph::parseGraph(hccl::graph::writeGraph(*back))) {
    std::fprintf(stderr, "imported IR exports a graph that does not read\n");
    abort();
  }
  return 0;
}
