//===- Nontemporal.cpp - Copies and reductions that bypass the cache ------===//
//
// Reductions run the kernel table's streamed entries (KernelTemplates.h):
// the same kernels as reduce(), on blocks small enough for L1, each stored
// with the code path's widest non-temporal stores once it is complete, so
// dst may alias a source.
//
//===----------------------------------------------------------------------===//
#include "reduce/Nontemporal.h"
#include "reduce/KernelIsa.h"
#include "reduce/Reduce.h"
#include "reduce/VectorCopy.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace hccl::rt {
namespace {

void fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

} // namespace

bool nontemporalStoresAvailable() {
#if defined(__x86_64__)
  return true;
#else
  return false;
#endif
}

void copyNontemporal(void *dst, const void *src, size_t bytes) {
  if (bytes == 0 || dst == src)
    return;
  detail::streamBytes(static_cast<char *>(dst), static_cast<const char *>(src),
                      bytes);
  fence();
}

void copyTee(void *dst, void *peerDst, const void *src, size_t bytes,
             bool streamOwn) {
  if (bytes == 0)
    return;
  detail::copyAndStreamBytes(static_cast<char *>(dst),
                             static_cast<char *>(peerDst),
                             static_cast<const char *>(src), bytes, streamOwn);
  fence();
}

bool reduceManyNontemporal(void *dst, const void *const *srcs, int k,
                           size_t count, sched::DataType type,
                           sched::ReduceOp op) {
  if (k > kMaxStreamedSources) // rare (star programs over > 64 ranks)
    return reduceMany(dst, srcs, k, count, type, op);
  if (k < 1 || !isValidReduction(type, op))
    return false;
  if (k == 1) {
    copyNontemporal(dst, srcs[0], count * sched::dataTypeSize(type));
    return true;
  }
  if (!reduceManyStreamedWith(activeKernelIsa(), dst, srcs, k, count, type, op))
    return false;
  fence();
  return true;
}

bool reduceManyTee(void *dst, void *peerDst, const void *const *srcs, int k,
                   size_t count, sched::DataType type, sched::ReduceOp op,
                   bool streamOwn) {
  if (k < 2 || k > kMaxStreamedSources) {
    // One source or very many: reduce (or copy), then stream the copy.
    if (!reduceMany(dst, srcs, k, count, type, op))
      return false;
    copyNontemporal(peerDst, dst, count * sched::dataTypeSize(type));
    return true;
  }
  if (!reduceManyStreamedWith(activeKernelIsa(), peerDst, srcs, k, count, type,
                              op, dst, streamOwn))
    return false;
  fence();
  return true;
}

} // namespace hccl::rt
