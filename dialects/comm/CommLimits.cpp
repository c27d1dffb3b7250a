//===- CommLimits.cpp - Sizes and depths our code can handle --------------===//
//
// ShapedType::getNumElements multiplies unchecked: tensor<2^62 x 4 x f32>
// wraps to 0 elements, which lowered to `count 0` and exported a plan. Every
// count or size our code derives from a shape goes through these, and the
// collectives' verifier rejects tensors whose bytes do not fit in int64_t,
// so the runtime's byte arithmetic (count x element size) cannot wrap
// either.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::comm;

/// Bytes of one element; nullopt for element types without a fixed size.
static std::optional<int64_t> elementBytes(Type t) {
  if (t.isIntOrFloat())
    return (static_cast<int64_t>(t.getIntOrFloatBitWidth()) + 7) / 8;
  if (t.isIndex())
    return 8;
  if (auto c = dyn_cast<ComplexType>(t))
    if (auto e = elementBytes(c.getElementType()))
      return 2 * *e;
  return std::nullopt;
}

static bool isStatic(Type t) {
  auto st = dyn_cast<ShapedType>(t);
  return st && st.hasRank() && st.hasStaticShape();
}

std::optional<int64_t> mlir::comm::getStaticElementCount(Type t) {
  if (!isStatic(t))
    return std::nullopt;
  int64_t n = 1;
  for (int64_t d : cast<ShapedType>(t).getShape())
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return std::nullopt;
  return n;
}

std::optional<int64_t> mlir::comm::getStaticByteSize(Type t) {
  std::optional<int64_t> n = getStaticElementCount(t);
  if (!n)
    return std::nullopt;
  std::optional<int64_t> e = elementBytes(cast<ShapedType>(t).getElementType());
  int64_t bytes;
  if (!e || llvm::MulOverflow(*n, *e, bytes))
    return std::nullopt;
  return bytes;
}

/// A static shape whose elements or bytes do not fit in int64_t.
static bool overflows(Type t) {
  if (!isStatic(t))
    return false;
  if (!getStaticElementCount(t))
    return true;
  return elementBytes(cast<ShapedType>(t).getElementType()) &&
         !getStaticByteSize(t);
}

LogicalResult mlir::comm::verifySizesFit(Operation *op) {
  int64_t total = 0;
  bool totalFits = true;
  auto check = [&](Type t, StringRef what, unsigned i) -> LogicalResult {
    if (overflows(t))
      return op->emitOpError()
             << what << " #" << i << " of type " << t
             << " holds more elements or bytes than a 64-bit count can hold";
    if (std::optional<int64_t> b = getStaticByteSize(t))
      totalFits = totalFits && !llvm::AddOverflow(total, *b, total);
    return success();
  };
  for (auto [i, t] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(t, "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  if (!totalFits)
    return op->emitOpError() << "moves more bytes in all than a 64-bit "
                                "count can hold";
  return success();
}

LogicalResult mlir::comm::verifySizesFitIn(Operation *root, StringRef pass) {
  WalkResult r = root->walk([&](Operation *op) {
    auto bad = [&](Type t) {
      if (!overflows(t))
        return false;
      op->emitOpError() << "has a value of type " << t
                        << " whose elements or bytes do not fit in a 64-bit "
                           "count; "
                        << pass << " cannot size it";
      return true;
    };
    if (llvm::any_of(op->getOperandTypes(), bad) ||
        llvm::any_of(op->getResultTypes(), bad))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

LogicalResult mlir::comm::verifyRegionDepth(Operation *root, unsigned limit,
                                            StringRef pass) {
  // Iterative: the point is not to recurse on what may be too deep.
  SmallVector<std::pair<Operation *, unsigned>> work = {{root, 0}};
  while (!work.empty()) {
    auto [op, depth] = work.pop_back_val();
    if (depth > limit)
      return op->emitOpError()
             << "is nested in more than " << limit << " regions; " << pass
             << " walks regions recursively and stops here";
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (Operation &inner : b)
          if (inner.getNumRegions())
            work.push_back({&inner, depth + 1});
  }
  return success();
}
