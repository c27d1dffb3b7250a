//===- GptEstimate.cpp - Predicted iteration time of a GPT-style graph ----===//
//
// Builds the backward pass of a GPT-2-XL-like model (48 layers, hidden 1600,
// about 1.56 B parameters; layers and sizes are options) as MLIR: linalg
// matmuls whose FLOPs the cost model prices on the device peak, and one
// gradient all-reduce per parameter tensor on the data-parallel group, in
// gradient-ready order (last layer first). Then, for each topology and each
// bucketing strategy, runs sizing -> fusion -> overlap -> selection and
// prints the predicted iteration timeline (comm-estimate's model).
//
// Per layer (T tokens per device, d hidden): weight gradients
//   fc2 [4d x d], fc1 [d x 4d], proj [d x d], qkv [d x 3d] (X^T dY matmuls),
// their biases and both layer norms (1 x n, from a ones-vector matmul), and
// data gradients dY W^T back through fc2, fc1, proj and qkv; attention's
// backward is stood in for by one T x d x 3d matmul (the same order of
// FLOPs at T = 4096, s = 1024). Embedding gradients come last.
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"
#include "Timeline.h"

#include "hccl-mlir/Passes/Passes.h"
#include "hccl-mlir/schedule/Topology.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::comm;

static llvm::cl::opt<int> layers("layers", llvm::cl::desc("Transformer layers"),
                                 llvm::cl::init(48));
static llvm::cl::opt<int> hidden("hidden", llvm::cl::desc("Hidden size d"),
                                 llvm::cl::init(1600));
static llvm::cl::opt<int> tokens("tokens",
                                 llvm::cl::desc("Tokens per device per step"),
                                 llvm::cl::init(4096));
static llvm::cl::opt<int> vocab("vocab", llvm::cl::desc("Vocabulary size"),
                                llvm::cl::init(50257));
static llvm::cl::opt<int> positions("positions",
                                    llvm::cl::desc("Position embeddings"),
                                    llvm::cl::init(1024));
static llvm::cl::list<std::string>
    topologies("topology", llvm::cl::desc("Topology presets (repeatable)"));
static llvm::cl::opt<double> peakTflops("peak-tflops",
                                        llvm::cl::desc("Device peak TFLOPS"),
                                        llvm::cl::init(320.0));

namespace {

class GraphBuilder {
public:
  GraphBuilder(MLIRContext &ctx, ModuleOp m) : ctx(ctx), b(&ctx), module(m) {}

  int64_t params = 0, gradients = 0;

  void build(StringRef topology) {
    auto topo = hccl::sched::Topology::preset(topology.str());
    module->setAttr(CommDialect::getTopologyAttrName(),
                    TopologyAttr::get(&ctx, *topo));
    b.setInsertionPointToEnd(module.getBody());
    Location loc = b.getUnknownLoc();
    SmallVector<int64_t> ranks;
    for (int64_t r = 0; r < topo->worldSize(); ++r)
      ranks.push_back(r);
    b.create<GroupOp>(loc, "dp", ranks, topo->worldSize(), FlatSymbolRefAttr());
    auto fn =
        b.create<func::FuncOp>(loc, "gpt_backward", b.getFunctionType({}, {}));
    b.setInsertionPointToEnd(fn.addEntryBlock());

    int64_t T = tokens, d = hidden;
    Value dY = empty({T, d});
    for (int l = layers - 1; l >= 0; --l) {
      std::string p = "layer" + std::to_string(l) + ".";
      // MLP: fc2 (4d -> d), fc1 (d -> 4d).
      grad(p + "fc2.w",
           matmul(p + "fc2.dw", empty({4 * d, T}), dY, {4 * d, d}));
      grad(p + "fc2.b", matmul(p + "fc2.db", empty({1, T}), dY, {1, d}));
      Value dH = matmul(p + "fc2.dx", dY, empty({d, 4 * d}), {T, 4 * d});
      grad(p + "fc1.w", matmul(p + "fc1.dw", empty({d, T}), dH, {d, 4 * d}));
      grad(p + "fc1.b", matmul(p + "fc1.db", empty({1, T}), dH, {1, 4 * d}));
      Value dX1 = matmul(p + "fc1.dx", dH, empty({4 * d, d}), {T, d});
      grad(p + "ln2.g", matmul(p + "ln2.dg", empty({1, T}), dX1, {1, d}));
      grad(p + "ln2.b", matmul(p + "ln2.db", empty({1, T}), dX1, {1, d}));
      // Attention: output projection, then the core, then qkv.
      grad(p + "proj.w", matmul(p + "proj.dw", empty({d, T}), dX1, {d, d}));
      grad(p + "proj.b", matmul(p + "proj.db", empty({1, T}), dX1, {1, d}));
      Value dA = matmul(p + "proj.dx", dX1, empty({d, d}), {T, d});
      Value dQKV = matmul(p + "attn.core", dA, empty({d, 3 * d}), {T, 3 * d});
      grad(p + "qkv.w", matmul(p + "qkv.dw", empty({d, T}), dQKV, {d, 3 * d}));
      grad(p + "qkv.b", matmul(p + "qkv.db", empty({1, T}), dQKV, {1, 3 * d}));
      Value dX = matmul(p + "qkv.dx", dQKV, empty({3 * d, d}), {T, d});
      grad(p + "ln1.g", matmul(p + "ln1.dg", empty({1, T}), dX, {1, d}));
      grad(p + "ln1.b", matmul(p + "ln1.db", empty({1, T}), dX, {1, d}));
      dY = dX;
    }
    // Embeddings: a scatter-add in practice; priced by the bytes it moves.
    for (auto [name, rows] :
         {std::pair<const char *, int64_t>{"wpe", positions}, {"wte", vocab}}) {
      Value e = empty({rows, d});
      auto add =
          b.create<arith::AddFOp>(NameLoc::get(b.getStringAttr(name)), e, e);
      grad(name, add);
    }
    b.create<func::ReturnOp>(loc);
  }

private:
  MLIRContext &ctx;
  OpBuilder b;
  ModuleOp module;

  Value empty(ArrayRef<int64_t> shape) {
    return b.create<tensor::EmptyOp>(b.getUnknownLoc(), shape, b.getF32Type());
  }
  Value matmul(const std::string &name, Value a, Value c,
               ArrayRef<int64_t> shape) {
    Location loc = NameLoc::get(b.getStringAttr(name));
    auto ty = RankedTensorType::get(shape, b.getF32Type());
    return b
        .create<linalg::MatmulOp>(loc, TypeRange{ty}, ValueRange{a, c},
                                  ValueRange{empty(shape)})
        .getResult(0);
  }
  void grad(const std::string &name, Value g) {
    auto ty = cast<RankedTensorType>(g.getType());
    params += ty.getNumElements();
    ++gradients;
    b.create<AllReduceOp>(NameLoc::get(b.getStringAttr(name + ".allreduce")),
                          ReductionKindAttr::get(&ctx, ReductionKind::sum),
                          ValueRange{g}, FlatSymbolRefAttr::get(&ctx, "dp"),
                          AlgorithmAttr());
  }
  void grad(const char *name, arith::AddFOp op) {
    grad(std::string(name), op.getResult());
  }
};

struct Row {
  std::string strategy;
  int64_t collectives = 0;
  IterationTimeline tl;
};

FailureOr<Row> run(MLIRContext &ctx, StringRef topology, StringRef name,
                   StringRef pipeline, int64_t *params) {
  OwningOpRef<ModuleOp> m = ModuleOp::create(UnknownLoc::get(&ctx));
  GraphBuilder gb(ctx, *m);
  gb.build(topology);
  *params = gb.params;
  PassManager pm(&ctx);
  std::string err;
  llvm::raw_string_ostream es(err);
  if (failed(parsePassPipeline(pipeline, pm, es))) {
    llvm::errs() << "bad pipeline '" << pipeline << "': " << err << "\n";
    return failure();
  }
  if (failed(pm.run(*m)))
    return failure();
  auto fn = m->lookupSymbol<func::FuncOp>("gpt_backward");
  FailureOr<CommCostModel> model = CommCostModel::get(fn, true, "gpt");
  if (failed(model))
    return failure();
  ComputeCostOptions opts;
  opts.peakTflops = peakTflops;
  FailureOr<IterationTimeline> tl = simulateRegion(fn.getBody(), *model, opts);
  if (failed(tl))
    return failure();
  Row row;
  row.strategy = name.str();
  row.collectives = static_cast<int64_t>(tl->collectives.size());
  row.tl = std::move(*tl);
  return row;
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Predicted iteration time of a GPT-style backward pass under each "
      "bucketing strategy\n");
  if (topologies.empty()) {
    topologies.push_back("910b-8");
    topologies.push_back("910b-8x4");
  }
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  DialectRegistry registry;
  registry.insert<CommDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, linalg::LinalgDialect>();
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  registerCommPasses();

  std::string peak =
      "peak-tflops=" + llvm::utostr(static_cast<unsigned>(peakTflops));
  struct Strategy {
    const char *name, *sizing;
  };
  const Strategy strategies[] = {
      {"no fusion", "threshold-bytes=1"},
      {"threshold 1 MiB first, 25 MiB (within the limit)",
       "threshold-bytes=25M first-bucket-bytes=1M"},
      {"ddp (PyTorch DDP's buckets: 1 MiB first, 25 MiB)", "policy=ddp"},
      {"fixed 64 MiB", "threshold-bytes=64M"},
      {"optimal", "policy=optimal"},
  };

  int64_t params = 0;
  bool first = true;
  for (const std::string &topo : topologies) {
    for (const Strategy &s : strategies) {
      std::string pipeline = std::string("comm-bucket-sizing{") + s.sizing +
                             " " + peak +
                             "}, comm-gradient-fusion, comm-overlap-schedule{" +
                             peak + "}, comm-select-algorithm";
      FailureOr<Row> row = run(ctx, topo, s.name, pipeline, &params);
      if (failed(row))
        return 1;
      if (first) {
        llvm::outs() << "GPT-style backward: " << layers
                     << " layers, d = " << hidden << ", " << tokens
                     << " tokens per device, "
                     << llvm::format("%.3f", params / 1e9)
                     << " B parameters (f32 gradients, "
                     << llvm::format("%.2f", params * 4 / 1e9)
                     << " GB), device peak "
                     << llvm::format("%.0f", static_cast<double>(peakTflops))
                     << " TFLOPS\n\n";
        llvm::outs() << "| topology | strategy | all-reduces | compute ms | "
                        "communication ms | exposed ms | iteration ms |\n"
                     << "|---|---|---:|---:|---:|---:|---:|\n";
        first = false;
      }
      const IterationTimeline &tl = row->tl;
      llvm::outs() << "| " << topo << " | " << row->strategy << " | "
                   << row->collectives << " | "
                   << llvm::format("%.2f", tl.computeUs / 1e3) << " | "
                   << llvm::format("%.2f", tl.commUs / 1e3) << " | "
                   << llvm::format("%.2f", tl.exposedUs / 1e3) << " | "
                   << llvm::format("%.2f", tl.iterationUs / 1e3) << " |\n";
    }
  }
  return 0;
}
