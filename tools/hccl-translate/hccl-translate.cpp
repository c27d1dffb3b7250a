//===- hccl-translate.cpp - Translations in and out of the comm dialect ---===//
//
//   --comm-to-plan        lowered comm IR -> plan JSON for the runtime
//   --import-graph        exported graph JSON (docs/graph-format.md) -> IR
//   --export-graph        comm IR -> exported graph JSON
//   --import-stablehlo    StableHLO (generic op form) collectives -> comm IR
//
//===----------------------------------------------------------------------===//
#include "GraphImport.h"
#include "PlanExport.h"
#include "StableHLOImport.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::opt<std::string>
    planFunction("plan-function",
                 llvm::cl::desc("Function to export with --comm-to-plan "
                                "(default: the only one with collectives)"),
                 llvm::cl::init(""));
static llvm::cl::opt<std::string>
    planForm("plan-form",
             llvm::cl::desc("Program form in the plan: compact, expanded "
                            "or both"),
             llvm::cl::init("compact"));

static llvm::cl::opt<std::string>
    graphFunction("graph-function",
                  llvm::cl::desc("Function to export with --export-graph "
                                 "(default: the only one)"),
                  llvm::cl::init(""));

static llvm::cl::opt<int64_t> numReplicas(
    "num-replicas",
    llvm::cl::desc("Replicas of a StableHLO program (for empty replica_groups "
                   "and collective_permute; default: the largest replica id "
                   "+ 1)"),
    llvm::cl::init(0));

static void registerDialects(DialectRegistry &registry) {
  registry.insert<comm::CommDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, linalg::LinalgDialect>();
}

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration toPlan(
      "comm-to-plan", "write the plan JSON of lowered comm IR",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        comm::PlanExportOptions opts;
        opts.function = planFunction;
        if (planForm == "compact")
          opts.form = hccl::sched::ProgramForm::Compact;
        else if (planForm == "expanded")
          opts.form = hccl::sched::ProgramForm::Expanded;
        else if (planForm == "both")
          opts.form = hccl::sched::ProgramForm::Both;
        else
          return op->emitError() << "--plan-form must be compact, expanded "
                                    "or both, found '"
                                 << planForm << "'";
        return comm::exportPlan(module, opts, os);
      },
      registerDialects);
  TranslateToMLIRRegistration fromGraph(
      "import-graph", "read an exported training graph (JSON)",
      [](llvm::SourceMgr &sm, MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buf = sm.getMemoryBuffer(sm.getMainFileID());
        Location loc = FileLineColLoc::get(
            ctx, buf->getBufferIdentifier(), 1, 1);
        auto g = hccl::graph::parseGraph(buf->getBuffer().str());
        if (!g) {
          emitError(loc) << "invalid graph: " << g.message();
          return nullptr;
        }
        OwningOpRef<ModuleOp> m = comm::importGraph(*g, ctx, loc);
        if (!m)
          return nullptr;
        return OwningOpRef<Operation *>(m.release());
      },
      registerDialects);
  TranslateToMLIRRegistration fromStableHLO(
      "import-stablehlo",
      "map the collectives of StableHLO (generic op form) to comm",
      [](llvm::SourceMgr &sm, MLIRContext *ctx) -> OwningOpRef<Operation *> {
        if (numReplicas < 0) {
          emitError(UnknownLoc::get(ctx))
              << "--num-replicas must be >= 0, found " << numReplicas;
          return nullptr;
        }
        comm::StableHLOImportOptions opts;
        opts.numReplicas = numReplicas;
        OwningOpRef<ModuleOp> m = comm::importStableHLO(sm, ctx, opts);
        if (!m)
          return nullptr;
        return OwningOpRef<Operation *>(m.release());
      },
      registerDialects);
  TranslateFromMLIRRegistration toGraph(
      "export-graph", "write the exported-graph JSON of comm IR",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        auto g = comm::exportGraph(module, graphFunction);
        if (failed(g))
          return failure();
        os << hccl::graph::writeGraph(*g);
        return success();
      },
      registerDialects);
  return failed(mlirTranslateMain(argc, argv, "hccl-mlir translations"));
}
