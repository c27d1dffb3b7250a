//===- Reduce.h - Element-wise reduction kernels of the runtime -*- C++ -*-===//
//
// The reductions the executor applies to received data: sum, prod, max, min
// over every sched::DataType. Kernels are vectorised (a baseline build plus an
// AVX2/F16C build picked at run time on x86) and give bit-identical results on
// every code path, so a reduction never depends on the machine's vector width.
//
// Semantics (what users of the collectives observe):
//  - Integers wrap modulo 2^bits for sum and prod (no undefined behaviour).
//  - fp16 and bf16 are widened to float, combined, and rounded back to the
//    16-bit type once per pairwise op, round-to-nearest-even. Because float
//    has more than 2x+2 the significand bits of either type, this equals the
//    correctly rounded 16-bit result for sum and prod.
//  - max/min propagate NaN: if either operand is NaN the result is NaN (the
//    left operand's NaN when both are). For equal operands (+0 vs -0) max and
//    min return the right operand.
//  - NaN bits: a NaN produced by the hardware (inf - inf) is the platform's
//    default NaN; 16-bit types return quiet NaNs keeping the top payload bits.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_REDUCE_REDUCE_H
#define HCCL_RUNTIME_REDUCE_REDUCE_H

#include "hccl-mlir/schedule/Types.h"

#include <cstddef>

namespace hccl::rt {

/// dst[i] = a[i] op b[i] for i < count. dst may be the same pointer as a or b
/// (partial overlaps are not supported). Returns false, touching nothing, for
/// a data type or operator outside the enumerations.
bool reduce(void *dst, const void *a, const void *b, size_t count,
            sched::DataType type, sched::ReduceOp op);

/// dst = srcs[0] op srcs[1] op ... op srcs[k-1], left to right (a fixed order,
/// so results are deterministic). k >= 1; with k == 1 this is a copy. dst may
/// be the same pointer as any srcs[i]. Returns false for k < 1 or an unknown
/// type/op.
bool reduceMany(void *dst, const void *const *srcs, int k, size_t count,
                sched::DataType type, sched::ReduceOp op);

/// True when (type, op) names a reduction these kernels implement.
bool isValidReduction(sched::DataType type, sched::ReduceOp op);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_REDUCE_REDUCE_H
