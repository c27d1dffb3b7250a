//===- StableHLOLoops.h - loops with collectives, unrolled ------*- C++ -*-===//
//
// A `stablehlo.while` whose body communicates (lax.fori_loop / lax.scan with
// a psum: a gradient all-reduce per micro-batch or layer) runs its
// collectives once per iteration. The comm IR and the plans are
// straight-line, so such a loop is unrolled when its trip count is static:
// a counter that starts at a constant, steps by a constant each iteration
// and is compared with a constant (or with a loop-carried value the body
// passes through unchanged) by the condition, JAX's shape for both. Every
// iteration's collectives are then scheduled with that iteration's compute
// (and may overlap the next one's). A loop whose trip count is not static is
// left alone and refused later, naming why.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOLOOPS_H
#define HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOLOOPS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::comm::shlo {

/// Iterations a stablehlo.while runs, when static; otherwise nullopt and
/// `why` says what was not.
std::optional<int64_t> staticTripCount(Operation *whileOp, std::string &why);

/// Most iterations (and cloned ops in all) one module's unrolling may make.
inline constexpr int64_t kMaxUnrolledIterations = 4096;
inline constexpr int64_t kMaxUnrolledOps = 1 << 20;

/// Unrolls every stablehlo.while that communicates and has a static trip
/// count (innermost first). Fails only when unrolling would exceed the
/// limits above (an error naming the loop); other loops stay for the
/// region check to diagnose.
LogicalResult unrollCommunicatingLoops(ModuleOp module);

/// `o` cloned before `b`'s insertion point with `map`, keeping the
/// properties of unregistered ops (MLIR 19's clone drops them).
Operation *cloneWithProperties(OpBuilder &b, Operation &o, IRMapping &map);

} // namespace mlir::comm::shlo

#endif
