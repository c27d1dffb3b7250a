//===- ScheduleBench.cpp - Generate and verify cost as p grows ------------===//
//
// bench-schedule --benchmark_filter=...  Arguments: p. Counters: steps and
// op instances checked, so the growth with p can be read per op instance.
// Above p = 1024 verify() samples (pairing on all ranks, rank-local checks
// on a sample, no content simulation); the *Full variants force the whole
// symbolic execution where it fits in memory.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Verify.h"

#include <benchmark/benchmark.h>

using namespace hccl::sched;

namespace {

GenerateRequest request(Algorithm a, int64_t p) {
  GenerateRequest q;
  q.collective = Collective::AllReduce;
  q.algorithm = a;
  q.ranks = p;
  q.count = 1000003;
  q.ranksPerServer = 8;
  q.level0 = Algorithm::MeshTwoShot;
  q.level1 = Algorithm::RHD;
  return q;
}

void generateBench(benchmark::State &state, Algorithm a) {
  GenerateRequest q = request(a, state.range(0));
  for (auto _ : state) {
    auto prog = generate(q);
    if (!prog) {
      state.SkipWithError(prog.message().c_str());
      return;
    }
    benchmark::DoNotOptimize(prog->phases.size());
  }
}

void verifyBench(benchmark::State &state, Algorithm a, bool full) {
  auto prog = generate(request(a, state.range(0)));
  if (!prog) {
    state.SkipWithError(prog.message().c_str());
    return;
  }
  VerifyOptions o;
  if (full)
    o.maxSimulatedOps = o.maxSimulationBytes = INT64_MAX;
  int64_t ops = 0, steps = 0;
  bool sampled = false;
  for (auto _ : state) {
    auto rep = verify(*prog, o);
    if (!rep) {
      state.SkipWithError(rep.message().c_str());
      return;
    }
    ops = rep->opInstances;
    steps = rep->steps;
    sampled = !rep->proven;
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["op_instances"] = static_cast<double>(ops);
  state.counters["sampled"] = sampled ? 1 : 0;
  state.counters["ns_per_op"] = benchmark::Counter(
      static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate |
                                    benchmark::Counter::kInvert);
}

void args(benchmark::internal::Benchmark *b) {
  for (int64_t p : {8, 64, 512, 4096})
    b->Arg(p);
  b->Unit(benchmark::kMillisecond);
}

} // namespace

BENCHMARK_CAPTURE(generateBench, ring, Algorithm::Ring)->Apply(args);
BENCHMARK_CAPTURE(generateBench, rhd, Algorithm::RHD)->Apply(args);
BENCHMARK_CAPTURE(generateBench, hierarchical, Algorithm::Hierarchical)
    ->Apply(args);

// Default options: exhaustive up to 1024 ranks, sampled above.
BENCHMARK_CAPTURE(verifyBench, ring, Algorithm::Ring, false)->Apply(args);
BENCHMARK_CAPTURE(verifyBench, rhd, Algorithm::RHD, false)->Apply(args);
BENCHMARK_CAPTURE(verifyBench, hierarchical, Algorithm::Hierarchical, false)
    ->Apply(args);
// The whole symbolic execution at 4096 ranks for the O(p log p) program.
BENCHMARK_CAPTURE(verifyBench, rhd_full, Algorithm::RHD, true)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(verifyBench, hierarchical_full, Algorithm::Hierarchical, true)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
