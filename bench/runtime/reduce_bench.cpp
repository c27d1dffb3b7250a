//===- reduce_bench.cpp - Throughput of the runtime's reduction kernels ---===//
//
// bytes_per_second counts the bytes of one operand, so a figure near memcpy
// speed means the kernel keeps up with memory. Sizes: in L1/L2 (what the
// executor's pipelined slices see) and far beyond the caches.
//
// BM_ReduceInto writes a third buffer, as a reduce-scatter's step does
// (output = own input op the peer's), with plain or streaming stores
// (reduceManyStreamedWith: what a result another core reads next takes).
//
//===----------------------------------------------------------------------===//
#include "reduce/KernelIsa.h"
#include "reduce/Reduce.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

using hccl::rt::KernelIsa;
using hccl::sched::DataType;
using hccl::sched::ReduceOp;

namespace {

void fillOnes(std::vector<unsigned char> &v, DataType t) {
  // 1.0 (or 1) in every element: finite forever under sum/prod/max/min.
  size_t sz = hccl::sched::dataTypeSize(t), n = v.size() / sz;
  for (size_t i = 0; i < n; ++i) {
    unsigned char *p = v.data() + i * sz;
    switch (t) {
    case DataType::Fp32: {
      float f = 1;
      std::memcpy(p, &f, 4);
      break;
    }
    case DataType::Fp64: {
      double d = 1;
      std::memcpy(p, &d, 8);
      break;
    }
    case DataType::Fp16: {
      uint16_t h = 0x3c00;
      std::memcpy(p, &h, 2);
      break;
    }
    case DataType::Bf16: {
      uint16_t h = 0x3f80;
      std::memcpy(p, &h, 2);
      break;
    }
    default:
      std::memset(p, 0, sz);
      p[0] = 1;
    }
  }
}

void BM_Reduce(benchmark::State &state, DataType t, ReduceOp op,
               KernelIsa isa) {
  if (!hccl::rt::kernelIsaAvailable(isa)) {
    state.SkipWithError("kernel path not available on this CPU");
    return;
  }
  size_t bytes = static_cast<size_t>(state.range(0));
  size_t n = bytes / hccl::sched::dataTypeSize(t);
  std::vector<unsigned char> a(bytes), b(bytes);
  fillOnes(a, t);
  fillOnes(b, t);
  const void *srcs[2] = {a.data(), b.data()};
  for (auto _ : state) {
    // In place into a, as the executor accumulates.
    hccl::rt::reduceManyWith(isa, a.data(), srcs, 2, n, t, op);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
}

void BM_ReduceInto(benchmark::State &state, KernelIsa isa, bool streamed) {
  if (!hccl::rt::kernelIsaAvailable(isa)) {
    state.SkipWithError("kernel path not available on this CPU");
    return;
  }
  size_t bytes = static_cast<size_t>(state.range(0));
  size_t n = bytes / sizeof(float);
  std::vector<unsigned char> a(bytes), b(bytes), out(bytes);
  fillOnes(a, DataType::Fp32);
  fillOnes(b, DataType::Fp32);
  fillOnes(out, DataType::Fp32);
  const void *srcs[2] = {a.data(), b.data()};
  for (auto _ : state) {
    if (streamed)
      hccl::rt::reduceManyStreamedWith(isa, out.data(), srcs, 2, n,
                                       DataType::Fp32, ReduceOp::Sum);
    else
      hccl::rt::reduceManyWith(isa, out.data(), srcs, 2, n, DataType::Fp32,
                               ReduceOp::Sum);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
}

void BM_Memcpy(benchmark::State &state) {
  size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<unsigned char> a(bytes, 1), b(bytes, 2);
  for (auto _ : state) {
    std::memcpy(a.data(), b.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
}

void sizes(benchmark::internal::Benchmark *b) {
  b->Arg(16 << 10)->Arg(256 << 10)->Arg(64 << 20);
}

} // namespace

BENCHMARK(BM_Memcpy)->Apply(sizes);
#define REDUCE_BENCH(T, OP, ISA)                                               \
  BENCHMARK_CAPTURE(BM_Reduce, T##_##OP##_##ISA, DataType::T, ReduceOp::OP,    \
                    KernelIsa::ISA)                                            \
      ->Apply(sizes)
REDUCE_BENCH(Fp32, Sum, Avx2);
REDUCE_BENCH(Fp32, Sum, Generic);
REDUCE_BENCH(Fp16, Sum, Avx2);
REDUCE_BENCH(Fp16, Sum, Generic);
REDUCE_BENCH(Bf16, Sum, Avx2);
REDUCE_BENCH(Bf16, Sum, Generic);
REDUCE_BENCH(Int8, Prod, Avx2);
REDUCE_BENCH(Int64, Prod, Avx2);
REDUCE_BENCH(Fp64, Max, Avx2);
REDUCE_BENCH(Int32, Min, Generic);
BENCHMARK_CAPTURE(BM_ReduceInto, Fp32_Sum_Avx2_plain, KernelIsa::Avx2, false)
    ->Apply(sizes);
BENCHMARK_CAPTURE(BM_ReduceInto, Fp32_Sum_Avx2_streamed, KernelIsa::Avx2, true)
    ->Apply(sizes);
BENCHMARK_CAPTURE(BM_ReduceInto, Fp32_Sum_Generic_streamed, KernelIsa::Generic,
                  true)
    ->Apply(sizes);

BENCHMARK_MAIN();
