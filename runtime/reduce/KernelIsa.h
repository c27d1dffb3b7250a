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
/// path has them, bit-identical to it. No store fence: the caller fences
/// once after its last call (reduceManyNontemporal does). False also for k
/// outside 2..kMaxStreamedSources.
bool reduceManyStreamedWith(KernelIsa isa, void *dst, const void *const *srcs,
                            int k, size_t count, sched::DataType type,
                            sched::ReduceOp op);

namespace detail {
/// One kernel: dst = srcs[0] op ... op srcs[k-1] (k >= 2, count >= 1).
using ReduceFn = void (*)(void *dst, const void *const *srcs, int k,
                          size_t count);
/// Kernels of one code path, indexed [DataType][ReduceOp].
struct KernelTable {
  ReduceFn fn[sched::kNumDataTypes][4];
  /// The same kernels with dst streamed past the cache (no fence;
  /// k <= kMaxStreamedSources).
  ReduceFn streamed[sched::kNumDataTypes][4];
};
const KernelTable &genericKernels();
/// nullptr when the build has no AVX2 path (non-x86 targets).
const KernelTable *avx2Kernels();
} // namespace detail

} // namespace hccl::rt

#endif // HCCL_RUNTIME_REDUCE_KERNELISA_H
