//===- Copy.h - Byte copies without glibc's slow alignments -----*- C++ -*-===//
//
// glibc's memcpy/memmove copy a few KB and more with `rep movsb`. On the AMD
// EPYC hosts measured, that runs at a tenth of its speed when the
// destination lies 1-31 bytes ahead of the source modulo 4 KiB: 64 KB
// copies at 1.6-2.9 GB/s against 22-34 GB/s at every other distance, while
// a plain vector loop runs at full speed at all of them (bench/runtime
// copy_bench, docs/performance.md "Copies 16 bytes off a page"). That
// distance is what a 64 KiB-aligned shm slot and a malloc'd buffer have
// (glibc returns mmap'd chunks 16 bytes into a page), so every FIFO receive
// into such a buffer paid it. These copies take the vector loop when the
// destination lies 1-63 bytes ahead (a margin over the 1-31 measured slow)
// and memcpy everywhere else.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_REDUCE_COPY_H
#define HCCL_RUNTIME_REDUCE_COPY_H

#include <cstddef>

namespace hccl::rt {

/// memcpy(dst, src, bytes): the ranges must not overlap.
void copyBytes(void *dst, const void *src, size_t bytes);

/// memmove(dst, src, bytes): the ranges may overlap.
void moveBytes(void *dst, const void *src, size_t bytes);

/// Whether copyBytes avoids memcpy for this pair of addresses (the tests
/// check the rule; copy_bench shows the speed).
bool copyAvoidsMemcpy(const void *dst, const void *src, size_t bytes);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_REDUCE_COPY_H
