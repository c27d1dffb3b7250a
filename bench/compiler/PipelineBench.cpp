//===- PipelineBench.cpp - Pipeline time against parse+print --------------===//
//
// Generated backward passes with n gradient all-reduces and n compute ops
// (n = 1k, 10k, 100k) on 910b-8x4. For each n:
//   ParsePrint  parse the text and print the module (what `hccl-opt in.mlir`
//               costs with no pass);
//   Passes      --hccl-pipeline{lower=false}: sizing (optimal), fusion,
//               overlap, selection, on an already parsed module;
//   Full        --hccl-pipeline: the same plus lowering and verification.
// Pass times exclude parsing and printing (manual timing). The summary
// printed after the run gives each pipeline's ratio to parse+print and the
// 100k / 10k growth.
//
// Run: build-dir/bench/compiler/bench-compiler-pipeline
//      (--benchmark_filter=Passes to skip the slow full pipeline)
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

using namespace mlir;

namespace {

constexpr int64_t kSizes[] = {256, 4096, 65536, 1048576, 16384};

std::string graphText(int n) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "module attributes {comm.topology = #comm.topology<\"910b-8x4\">} {\n"
     << "  comm.group @dp ranks = [";
  for (int r = 0; r < 32; ++r)
    os << (r ? ", " : "") << r;
  os << "]\n  func.func @step(";
  for (int k = 0; k < 5; ++k)
    os << (k ? ", " : "") << "%a" << k << ": tensor<" << kSizes[k] << "xf32>";
  os << ") {\n";
  for (int i = 0; i < n; ++i) {
    int k = i % 5;
    int64_t size = kSizes[k];
    std::string prev =
        i < 5 ? "%a" + std::to_string(k) : "%g" + std::to_string(i - 5);
    os << "    %g" << i << " = arith.addf " << prev << ", %a" << k
       << " {comm.cost_us = " << (i * 37) % 200 << ".0} : tensor<" << size
       << "xf32>\n"
       << "    %r" << i << " = comm.all_reduce sum %g" << i
       << " on @dp : tensor<" << size << "xf32>\n";
  }
  os << "    return\n  }\n}\n";
  return s;
}

struct Figures {
  double parsePrint = 0, passes = 0, full = 0;
};
std::map<int, Figures> figures;

void setup(MLIRContext &ctx) {
  DialectRegistry registry;
  registry.insert<comm::CommDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, linalg::LinalgDialect>();
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  comm::registerCommPasses();
}

double seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void BM_ParsePrint(benchmark::State &state) {
  int n = static_cast<int>(state.range(0));
  std::string text = graphText(n);
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  setup(ctx);
  double total = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, &ctx);
    if (!m) {
      state.SkipWithError("parse failed");
      return;
    }
    llvm::raw_null_ostream os;
    m->print(os);
    auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(seconds(t0, t1));
    total += seconds(t0, t1);
  }
  figures[n].parsePrint = total / state.iterations();
  state.counters["ops"] = 2.0 * n;
}

void runPipeline(benchmark::State &state, const char *pipeline, bool full) {
  int n = static_cast<int>(state.range(0));
  std::string text = graphText(n);
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  setup(ctx);
  double total = 0;
  for (auto _ : state) {
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, &ctx);
    PassManager pm(&ctx);
    if (!m || failed(parsePassPipeline(pipeline, pm))) {
      state.SkipWithError("setup failed");
      return;
    }
    auto t0 = std::chrono::steady_clock::now();
    LogicalResult r = pm.run(*m);
    auto t1 = std::chrono::steady_clock::now();
    if (failed(r)) {
      state.SkipWithError("pipeline failed");
      return;
    }
    state.SetIterationTime(seconds(t0, t1));
    total += seconds(t0, t1);
  }
  double perIter = total / state.iterations();
  (full ? figures[n].full : figures[n].passes) = perIter;
  if (figures[n].parsePrint > 0)
    state.counters["x_parse_print"] = perIter / figures[n].parsePrint;
}

void BM_Passes(benchmark::State &state) {
  runPipeline(state, "hccl-pipeline{lower=false}", false);
}
void BM_Full(benchmark::State &state) {
  runPipeline(state, "hccl-pipeline", true);
}

BENCHMARK(BM_ParsePrint)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Passes)->Arg(1000)->Arg(10000)->Arg(100000)->UseManualTime()->Unit(
    benchmark::kMillisecond);
BENCHMARK(BM_Full)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

void printSummary() {
  std::printf("\n%-8s %14s %14s %8s %14s %8s\n", "n", "parse+print s",
              "passes s", "ratio", "full s", "ratio");
  for (auto &[n, f] : figures) {
    auto ratio = [&](double x) {
      return f.parsePrint > 0 ? x / f.parsePrint : 0;
    };
    std::printf("%-8d %14.4f %14.4f %8.2f %14.4f %8.2f\n", n, f.parsePrint,
                f.passes, ratio(f.passes), f.full, ratio(f.full));
  }
  auto a = figures.find(10000), b = figures.find(100000);
  if (a != figures.end() && b != figures.end()) {
    auto growth = [](double x, double y) { return x > 0 ? y / x : 0; };
    std::printf("growth 100k/10k: parse+print %.2f, passes %.2f, full %.2f\n",
                growth(a->second.parsePrint, b->second.parsePrint),
                growth(a->second.passes, b->second.passes),
                growth(a->second.full, b->second.full));
  }
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printSummary();
  return 0;
}
