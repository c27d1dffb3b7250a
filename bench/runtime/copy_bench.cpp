//===- copy_bench.cpp - memcpy against copyBytes by address distance ------===//
//
// glibc's memcpy slows to a tenth of its speed on some AMD hosts when the
// destination lies 1-31 bytes ahead of the source modulo 4 KiB
// (reduce/Copy.h). Each benchmark copies the same bytes at one distance with
// both, side by side in one run: compare the pairs' bytes_per_second, not
// the figures across runs. The destination cycles through 16 slots of the
// size, as the shm FIFO's slots do.
//
//===----------------------------------------------------------------------===//
#include "reduce/Copy.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>

namespace {

// aligned_alloc takes whole multiples of the alignment only.
char *pageAlloc(size_t bytes) {
  return static_cast<char *>(
      std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
}

template <bool kOurs> void bmCopy(benchmark::State &state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const size_t distance = static_cast<size_t>(state.range(1));
  const size_t slots = 16;
  char *src = pageAlloc(bytes + 4096);
  char *dst = pageAlloc(slots * bytes + 8192);
  std::memset(src, 1, bytes + 4096);
  std::memset(dst, 2, slots * bytes + 8192);
  size_t slot = 0;
  for (auto _ : state) {
    char *d = dst + distance + slot * bytes;
    if (kOurs)
      hccl::rt::copyBytes(d, src, bytes);
    else
      std::memcpy(d, src, bytes);
    benchmark::DoNotOptimize(d);
    benchmark::ClobberMemory();
    slot = (slot + 1) % slots;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
  std::free(src);
  std::free(dst);
}

void distances(benchmark::internal::Benchmark *b) {
  for (int64_t bytes : {4 << 10, 64 << 10, 4 << 20})
    for (int64_t d : {0, 16, 64, 4080})
      b->Args({bytes, d});
  b->ArgNames({"bytes", "dst_ahead"});
}

BENCHMARK(bmCopy<false>)->Name("memcpy")->Apply(distances);
BENCHMARK(bmCopy<true>)->Name("copyBytes")->Apply(distances);

} // namespace

BENCHMARK_MAIN();
