//===- KernelIsa.h - Choice of the reduction kernels' code path -*- C++ -*-===//
//
// The kernels exist in several builds (baseline, AVX2+F16C). reduce() picks
// the best one the CPU supports; tests and benchmarks use this header to run
// every available build and check that they agree bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_REDUCE_KERNELISA_H
#define HCCL_RUNTIME_REDUCE_KERNELISA_H

#include "hccl-mlir/schedule/Types.h"

#include <cstddef>

namespace hccl::rt {

enum class KernelIsa : int {
  Generic = 0, ///< portable C++, auto-vectorised for the baseline target
  Avx2 = 1,    ///< x86-64 with AVX2, FMA and F16C (x86-64-v3)
};
inline constexpr int kNumKernelIsas = 2;

const char *kernelIsaName(KernelIsa isa);
/// True when this build contains the code path and the CPU can run it.
bool kernelIsaAvailable(KernelIsa isa);
/// The code path reduce() and reduceMany() use.
KernelIsa activeKernelIsa();

/// reduceMany() on a given code path; false also when it is unavailable.
bool reduceManyWith(KernelIsa isa, void *dst, const void *const *srcs, int k,
                    size_t count, sched::DataType type, sched::ReduceOp op);

/// The most sources a streamed reduction takes (a block's source pointers
/// live on the stack).
inline constexpr int kMaxStreamedSources = 64;

/// reduceManyWith() with dst written by non-temporal stores where the code
/// path has them, bit-identical to it; with `copy` set, the same result
/// also goes there in the same pass, with plain stores (the tee: a peer's
/// output streamed, this rank's own kept in cache) or, with `copyStreamed`,
/// streamed too (a call whose outputs outgrow the cache). No store fence:
/// the caller fences once after its last call (reduceManyNontemporal and
/// reduceManyTee do). False also for k outside 2..kMaxStreamedSources.
/// Either destination may be the same pointer as a source, not as the
/// other destination.
bool reduceManyStreamedWith(KernelIsa isa, void *dst, const void *const *srcs,
                            int k, size_t count, sched::DataType type,
                            sched::ReduceOp op, void *copy = nullptr,
                            bool copyStreamed = false);

namespace detail {
/// One kernel: dst = srcs[0] op ... op srcs[k-1] (k >= 2, count >= 1).
using ReduceFn = void (*)(void *dst, const void *const *srcs, int k,
                          size_t count);
/// A streamed kernel: dst = the reduction written past the cache (no
/// fence), and copy, when not null, = the same with plain stores, or
/// streamed too with copyStreamed; 2 <= k <= kMaxStreamedSources.
using StreamedFn = void (*)(void *dst, void *copy, bool copyStreamed,
                            const void *const *srcs, int k, size_t count);
/// Kernels of one code path, indexed [DataType][ReduceOp].
struct KernelTable {
  ReduceFn fn[sched::kNumDataTypes][4];
  /// The same kernels with their results streamed past the cache.
  StreamedFn streamed[sched::kNumDataTypes][4];
};
const KernelTable &genericKernels();
/// nullptr when the build has no AVX2 path (non-x86 targets).
const KernelTable *avx2Kernels();
} // namespace detail

} // namespace hccl::rt

#endif // HCCL_RUNTIME_REDUCE_KERNELISA_H
