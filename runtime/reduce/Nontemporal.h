//===- Nontemporal.h - Copies and reductions past the cache -----*- C++ -*-===//
//
// Data one rank writes and another rank's core reads next (a reduced block
// that a peer then reads zero-copy) is cheapest to hand over through memory:
// a line still modified in the writer's cache costs the reader a
// cross-core transfer, which on the hosts measured (docs/performance.md,
// issue 19) made a 2-rank all-reduce of 16 KB-4 MB 1.2-3.3x slower than
// streaming it out.
// These write dst with non-temporal stores (x86 movntdq; a plain copy or
// reduction elsewhere) and end with a store fence, so a flag published
// after the call orders after the data. Results are bit-identical to
// std::memcpy and reduce()/reduceMany().
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_REDUCE_NONTEMPORAL_H
#define HCCL_RUNTIME_REDUCE_NONTEMPORAL_H

#include "hccl-mlir/schedule/Types.h"

#include <cstddef>

namespace hccl::rt {

/// memcpy(dst, src, bytes) with dst streamed to memory. No overlap.
void copyNontemporal(void *dst, const void *src, size_t bytes);

/// reduceMany(dst, srcs, k, count, type, op) with dst streamed to memory
/// (dst may be the same pointer as any source). False, touching nothing,
/// when reduceMany would refuse.
bool reduceManyNontemporal(void *dst, const void *const *srcs, int k,
                           size_t count, sched::DataType type,
                           sched::ReduceOp op);

/// The tee (transport/shm/ShmPair.h): the same reduction into this rank's
/// dst with plain stores (this rank's caller reads it next) and into
/// `peerDst` with streaming stores (another core's), in one pass over the
/// sources; with `streamOwn` dst is streamed too where the streamed kernels
/// take the reduction (2..kMaxStreamedSources sources; the call's outputs
/// outgrow the cache: core/Executor.cpp). Either may be the same pointer
/// as a source, not as the other.
bool reduceManyTee(void *dst, void *peerDst, const void *const *srcs, int k,
                   size_t count, sched::DataType type, sched::ReduceOp op,
                   bool streamOwn = false);

/// The push (transport/shm/ShmPair.h): memcpy(dst, src, bytes) and
/// memcpy(peerDst, src, bytes) in one pass over src, dst with plain stores
/// (this rank's caller reads it next) or streamed with `streamOwn`, and
/// peerDst streamed (another core's buffer), then a store fence. No overlap
/// among the three.
void copyTee(void *dst, void *peerDst, const void *src, size_t bytes,
             bool streamOwn = false);

/// True when this build streams (x86-64); elsewhere the calls above are
/// ordinary copies and reductions.
bool nontemporalStoresAvailable();

} // namespace hccl::rt

#endif // HCCL_RUNTIME_REDUCE_NONTEMPORAL_H
