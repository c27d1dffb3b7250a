//===- hccl-translate.cpp - Translations in and out of the comm dialect ---===//
//
//   --comm-to-plan        lowered comm IR -> plan JSON for the runtime
//   --import-graph        exported graph JSON (docs/graph-format.md) -> IR
//   --export-graph        comm IR -> exported graph JSON
//   --import-stablehlo    StableHLO (pretty or generic form) collectives ->
//                         comm IR (--num-replicas, --num-partitions;
//                         --topology, --rank-table, --link-params set
//                         #comm.topology)
//   --print-stablehlo     StableHLO read and printed back (the reader's
//                         round trip; --mlir-print-op-generic for generic)
//
// Every translation checks the input's nesting before parsing it, and the
// whole run is crash-contained (tools/common/InputGuard.h); the two that read
// MLIR parse it themselves for that reason instead of through
// TranslateFromMLIRRegistration.
//
//===----------------------------------------------------------------------===//
#include "GraphImport.h"
#include "InputGuard.h"
#include "PlanExport.h"
#include "StableHLOImport.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Topology.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/ParseUtilities.h"
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
    llvm::cl::desc("num_replicas of a StableHLO program's process grid "
                   "(default: the module's mhlo.num_replicas, else the "
                   "largest replica id + 1)"),
    llvm::cl::init(0));
static llvm::cl::opt<int64_t> numPartitions(
    "num-partitions",
    llvm::cl::desc("num_partitions of a StableHLO program's process grid "
                   "(default: the module's mhlo.num_partitions, else 1)"),
    llvm::cl::init(0));

static llvm::cl::opt<std::string> topologyPreset(
    "topology",
    llvm::cl::desc("Cluster topology of --import-stablehlo's output "
                   "(#comm.topology on the module): a preset such as "
                   "910b-8x4"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> rankTablePath(
    "rank-table",
    llvm::cl::desc("Cluster topology of --import-stablehlo's output from an "
                   "HCCL rank table (JSON file)"),
    llvm::cl::init(""));
static llvm::cl::opt<std::string> linkParamsPath(
    "link-params",
    llvm::cl::desc("Measured link parameters (JSON file, tools/calibrate) "
                   "for --topology or --rank-table"),
    llvm::cl::init(""));

/// The topology of --topology / --rank-table / --link-params, if given, as
/// hccl-plan reads them; errors at `loc`.
static FailureOr<std::optional<hccl::sched::Topology>>
topologyOption(Location loc) {
  auto readFile = [&](const std::string &path) -> FailureOr<std::string> {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      emitError(loc) << "cannot read '" << path
                     << "': " << buf.getError().message();
      return failure();
    }
    return (*buf)->getBuffer().str();
  };
  if (!topologyPreset.empty() && !rankTablePath.empty()) {
    emitError(loc) << "give either --topology or --rank-table, not both";
    return failure();
  }
  std::string links;
  if (!linkParamsPath.empty()) {
    if (topologyPreset.empty() && rankTablePath.empty()) {
      emitError(loc) << "--link-params needs the topology whose links it "
                        "measures: give --topology or --rank-table";
      return failure();
    }
    FailureOr<std::string> l = readFile(linkParamsPath);
    if (failed(l))
      return failure();
    links = *l;
  }
  if (!rankTablePath.empty()) {
    FailureOr<std::string> table = readFile(rankTablePath);
    if (failed(table))
      return failure();
    auto t = hccl::sched::Topology::fromRankTable(*table, links);
    if (!t) {
      emitError(loc) << rankTablePath << ": " << t.message();
      return failure();
    }
    return std::optional<hccl::sched::Topology>(*t);
  }
  if (topologyPreset.empty())
    return std::optional<hccl::sched::Topology>();
  auto t = hccl::sched::Topology::preset(topologyPreset);
  if (!t) {
    emitError(loc) << "--topology: " << t.message();
    return failure();
  }
  if (!links.empty())
    if (hccl::sched::Status st = t->applyLinkParams(links); !st) {
      emitError(loc) << linkParamsPath << ": " << st.message();
      return failure();
    }
  return std::optional<hccl::sched::Topology>(*t);
}

/// Puts the option's topology on an imported module (one given in the
/// module too is an error: which one holds is not for us to guess).
static LogicalResult applyTopologyOption(ModuleOp m) {
  FailureOr<std::optional<hccl::sched::Topology>> t =
      topologyOption(m.getLoc());
  if (failed(t))
    return failure();
  if (!*t)
    return success();
  StringRef attr = comm::CommDialect::getTopologyAttrName();
  if (m->hasAttr(attr))
    return m.emitError() << "the module has '" << attr
                         << "' already; drop it or the topology option";
  FailureOr<comm::TopologyAttr> topo = comm::TopologyAttr::fromSchedule(
      m.getContext(), **t, [&] { return m.emitError(); });
  if (failed(topo))
    return failure();
  m->setAttr(attr, *topo);
  // The groups' ranks must lie inside the topology now.
  return verify(m);
}

static void registerDialects(DialectRegistry &registry) {
  registry.insert<comm::CommDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, linalg::LinalgDialect>();
}

/// What TranslateFromMLIRRegistration does, after the nesting check: the
/// dialects, the parse (into an implicit module) and the verifier.
static OwningOpRef<Operation *>
parseChecked(const std::shared_ptr<llvm::SourceMgr> &sm, MLIRContext *ctx) {
  DialectRegistry registry;
  registerDialects(registry);
  ctx->appendDialectRegistry(registry);
  if (failed(hccl::tools::checkNesting(*sm, ctx)))
    return nullptr;
  // The parser config verifies what it parsed.
  return parseSourceFileForTool(sm, ParserConfig(ctx),
                                /*insertImplicitModule=*/true);
}

/// A translation out of MLIR: `fn` gets the parsed, verified module.
static TranslateFunction
fromMLIR(std::function<LogicalResult(ModuleOp, llvm::raw_ostream &)> fn) {
  return [fn](const std::shared_ptr<llvm::SourceMgr> &sm, llvm::raw_ostream &os,
              MLIRContext *ctx) -> LogicalResult {
    OwningOpRef<Operation *> op = parseChecked(sm, ctx);
    if (!op)
      return failure();
    auto module = dyn_cast<ModuleOp>(*op);
    if (!module)
      return op->emitError("expected a builtin.module");
    return fn(module, os);
  };
}

static int translateMain(int argc, char **argv) {
  TranslateRegistration toPlan(
      "comm-to-plan", "write the plan JSON of lowered comm IR",
      fromMLIR([](ModuleOp module, llvm::raw_ostream &os) -> LogicalResult {
        Operation *op = module;
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
      }));
  TranslateToMLIRRegistration fromGraph(
      "import-graph", "read an exported training graph (JSON)",
      [](llvm::SourceMgr &sm, MLIRContext *ctx) -> OwningOpRef<Operation *> {
        // nlohmann's parser is iterative, but the rank table is re-dumped
        // (recursively) and the graph becomes IR.
        if (failed(hccl::tools::checkNesting(sm, ctx)))
          return nullptr;
        const llvm::MemoryBuffer *buf = sm.getMemoryBuffer(sm.getMainFileID());
        Location loc =
            FileLineColLoc::get(ctx, buf->getBufferIdentifier(), 1, 1);
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
      "map the collectives of StableHLO (pretty or generic form) to comm",
      [](llvm::SourceMgr &sm, MLIRContext *ctx) -> OwningOpRef<Operation *> {
        if (failed(hccl::tools::checkNesting(sm, ctx)))
          return nullptr;
        if (numReplicas < 0 || numPartitions < 0) {
          emitError(UnknownLoc::get(ctx))
              << "--num-replicas and --num-partitions must be >= 0, found "
              << numReplicas << " and " << numPartitions;
          return nullptr;
        }
        comm::StableHLOImportOptions opts;
        opts.numReplicas = numReplicas;
        opts.numPartitions = numPartitions;
        OwningOpRef<ModuleOp> m = comm::importStableHLO(sm, ctx, opts);
        if (!m || failed(applyTopologyOption(*m)))
          return nullptr;
        return OwningOpRef<Operation *>(m.release());
      },
      registerDialects);
  TranslateRegistration printStableHLO(
      "print-stablehlo",
      "read StableHLO (pretty or generic form) and print it back",
      [](const std::shared_ptr<llvm::SourceMgr> &sm, llvm::raw_ostream &os,
         MLIRContext *ctx) -> LogicalResult {
        if (failed(hccl::tools::checkNesting(*sm, ctx)))
          return failure();
        OwningOpRef<ModuleOp> m = comm::parseStableHLO(*sm, ctx);
        if (!m)
          return failure();
        m->print(os);
        os << "\n";
        return success();
      });
  TranslateRegistration toGraph(
      "export-graph", "write the exported-graph JSON of comm IR",
      fromMLIR([](ModuleOp module, llvm::raw_ostream &os) -> LogicalResult {
        auto g = comm::exportGraph(module, graphFunction);
        if (failed(g))
          return failure();
        os << hccl::graph::writeGraph(*g);
        return success();
      }));
  return failed(mlirTranslateMain(argc, argv, "hccl-mlir translations"));
}

int main(int argc, char **argv) {
  return hccl::tools::runContained("hccl-translate",
                                   [&] { return translateMain(argc, argv); });
}
