//===- StableHLOLoops.cpp - loops with collectives, unrolled --------------===//
#include "StableHLOLoops.h"

#include "StableHLORegions.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Dialect/StableHLO/StableHLO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace {

bool isOp(Operation *op, StringRef name) {
  return op && op->getName().getStringRef() == name;
}

/// The value of a scalar integer stablehlo.constant (generic or pretty).
std::optional<int64_t> constantInt(Value v) {
  Operation *def = v.getDefiningOp();
  if (!isOp(def, "stablehlo.constant"))
    return std::nullopt;
  Attribute a = def->getAttr("value");
  if (!a)
    if (auto props =
            dyn_cast_or_null<DictionaryAttr>(def->getPropertiesAsAttribute()))
      a = props.get("value");
  auto dense = dyn_cast_or_null<DenseIntElementsAttr>(a);
  // getNumElements() overflows on a huge shape; getSExtValue() on an i0.
  if (!dense || comm::getStaticElementCount(dense.getType()) != 1)
    return std::nullopt;
  // An i128 constant past int64 is not a trip count we could unroll.
  return stablehlo::intValue(dense.getValues<APInt>()[0],
                             dense.getElementType().isUnsignedInteger());
}

/// The comparison direction of a stablehlo.compare (GT, LT, ...).
std::string direction(Operation *cmp) {
  Attribute a = cmp->getAttr("comparison_direction");
  if (!a)
    if (auto props =
            dyn_cast_or_null<DictionaryAttr>(cmp->getPropertiesAsAttribute()))
      a = props.get("comparison_direction");
  if (!a)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  // #stablehlo<comparison_direction LT>
  for (const char *d : {"EQ", "NE", "GE", "GT", "LE", "LT"})
    if (s.find(std::string(" ") + d + ">") != std::string::npos)
      return d;
  return "";
}

bool holds(const std::string &dir, int64_t a, int64_t b) {
  if (dir == "LT")
    return a < b;
  if (dir == "LE")
    return a <= b;
  if (dir == "GT")
    return a > b;
  if (dir == "GE")
    return a >= b;
  if (dir == "NE")
    return a != b;
  return a == b; // EQ
}

std::string mirrored(const std::string &dir) {
  if (dir == "LT")
    return "GT";
  if (dir == "GT")
    return "LT";
  if (dir == "LE")
    return "GE";
  if (dir == "GE")
    return "LE";
  return dir;
}

bool communicates(Operation *op) {
  bool found = false;
  op->walk([&](Operation *o) {
    if (o != op && mlir::comm::shlo::isCommunication(o))
      found = true;
  });
  return found;
}

} // namespace

Operation *mlir::comm::shlo::cloneWithProperties(OpBuilder &b, Operation &o,
                                                 IRMapping &map) {
  Operation *c = b.clone(o, map);
  SmallVector<Operation *> from, to;
  o.walk<WalkOrder::PreOrder>([&](Operation *x) { from.push_back(x); });
  c->walk<WalkOrder::PreOrder>([&](Operation *x) { to.push_back(x); });
  for (auto [f, t] : llvm::zip(from, to))
    if (!f->isRegistered())
      if (Attribute props = f->getPropertiesAsAttribute())
        (void)t->setPropertiesFromAttribute(props, nullptr);
  return c;
}

std::optional<int64_t> mlir::comm::shlo::staticTripCount(Operation *loop,
                                                         std::string &why) {
  if (loop->getNumRegions() != 2 || loop->getRegion(0).empty() ||
      loop->getRegion(1).empty()) {
    why = "it has no condition and body";
    return std::nullopt;
  }
  Block &cond = loop->getRegion(0).front(), &body = loop->getRegion(1).front();
  Operation *condRet = cond.empty() ? nullptr : &cond.back();
  Operation *bodyRet = body.empty() ? nullptr : &body.back();
  if (!condRet || condRet->getNumOperands() != 1 || !bodyRet ||
      bodyRet->getNumOperands() != body.getNumArguments() ||
      cond.getNumArguments() != loop->getNumOperands() ||
      body.getNumArguments() != loop->getNumOperands()) {
    why = "its regions do not have the while shape";
    return std::nullopt;
  }
  Operation *cmp = condRet->getOperand(0).getDefiningOp();
  if (!isOp(cmp, "stablehlo.compare") || cmp->getNumOperands() != 2) {
    why = "its condition is not one stablehlo.compare";
    return std::nullopt;
  }
  std::string dir = direction(cmp);
  if (dir.empty()) {
    why = "its condition's comparison direction is unknown";
    return std::nullopt;
  }
  // A bound: a constant, or a loop-carried value the body returns
  // unchanged whose initial value is a constant.
  auto bound = [&](Value v) -> std::optional<int64_t> {
    if (auto c = constantInt(v))
      return c;
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &cond)
      return std::nullopt;
    unsigned i = arg.getArgNumber();
    if (bodyRet->getOperand(i) != body.getArgument(i))
      return std::nullopt;
    return constantInt(loop->getOperand(i));
  };
  // The counter: a condition argument whose body value is itself plus (or
  // minus) a constant and whose initial value is a constant.
  bool dynamicStart = false;
  auto counter = [&](Value v, int64_t &init,
                     int64_t &step) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &cond)
      return std::nullopt;
    unsigned i = arg.getArgNumber();
    Operation *next = bodyRet->getOperand(i).getDefiningOp();
    if (!next || next->getNumOperands() != 2)
      return std::nullopt;
    auto start = constantInt(loop->getOperand(i));
    if (!start) {
      dynamicStart = true;
      return std::nullopt;
    }
    Value a = next->getOperand(0), b = next->getOperand(1);
    std::optional<int64_t> c;
    if (isOp(next, "stablehlo.add") && a == body.getArgument(i))
      c = constantInt(b);
    else if (isOp(next, "stablehlo.add") && b == body.getArgument(i))
      c = constantInt(a);
    else if (isOp(next, "stablehlo.subtract") && a == body.getArgument(i)) {
      c = constantInt(b);
      if (c && *c == std::numeric_limits<int64_t>::min())
        c.reset(); // its negation is not an int64 (and no loop steps so)
      else if (c)
        c = -*c;
    }
    if (!c || *c == 0)
      return std::nullopt;
    init = *start;
    step = *c;
    return i;
  };
  int64_t init = 0, step = 0;
  std::optional<int64_t> limit;
  std::string d = dir;
  if (counter(cmp->getOperand(0), init, step)) {
    limit = bound(cmp->getOperand(1));
  } else if (counter(cmp->getOperand(1), init, step)) {
    limit = bound(cmp->getOperand(0));
    d = mirrored(dir);
  } else {
    why = dynamicStart ? "its counter starts at a value that is not constant"
                       : "no loop counter (a carried value that starts at a "
                         "constant and steps by a constant) is compared in "
                         "its condition";
    return std::nullopt;
  }
  if (!limit) {
    why = "its counter is compared with a value that is not constant";
    return std::nullopt;
  }
  // The counter wraps at its element type's width (tensor<i32>: 32 bits);
  // a loop whose counter would wrap before it ends is not unrolled.
  unsigned width = 64;
  if (auto shaped = dyn_cast<ShapedType>(cmp->getOperand(0).getType()))
    if (auto it = dyn_cast<IntegerType>(shaped.getElementType()))
      width = std::clamp(it.getWidth(), 1u, 64u);
  const int64_t hi = width == 64 ? std::numeric_limits<int64_t>::max()
                                 : (int64_t(1) << (width - 1)) - 1;
  const int64_t lo = -hi - 1;
  int64_t n = 0;
  for (int64_t v = init; holds(d, v, *limit);) {
    if (++n > kMaxUnrolledIterations) {
      why = "it runs more than " + std::to_string(kMaxUnrolledIterations) +
            " iterations (or does not end)";
      return std::nullopt;
    }
    if (__builtin_add_overflow(v, step, &v) || v < lo || v > hi) {
      why = "its counter leaves the range of its " + std::to_string(width) +
            "-bit type (it would wrap) on iteration " + std::to_string(n);
      return std::nullopt;
    }
  }
  return n;
}

LogicalResult mlir::comm::shlo::unrollCommunicatingLoops(ModuleOp module) {
  int64_t cloned = 0;
  while (true) {
    // An innermost communicating loop with a static trip count.
    Operation *loop = nullptr;
    int64_t trips = 0;
    module.walk([&](Operation *op) {
      if (loop || !isOp(op, "stablehlo.while") || !communicates(op))
        return;
      bool inner = true;
      op->walk([&](Operation *o) {
        inner &= o == op || !isOp(o, "stablehlo.while") || !communicates(o);
      });
      std::string why;
      std::optional<int64_t> n = staticTripCount(op, why);
      if (inner && n) {
        loop = op;
        trips = *n;
      }
    });
    if (!loop)
      return success();
    Block &body = loop->getRegion(1).front();
    int64_t bodyOps = 0;
    body.walk([&](Operation *) { ++bodyOps; });
    cloned += trips * bodyOps;
    if (cloned > kMaxUnrolledOps)
      return loop->emitError()
             << "'stablehlo.while' communicates and runs " << trips
             << " iterations; unrolling it (the comm IR is straight-line) "
                "would make more than "
             << kMaxUnrolledOps << " ops";
    OpBuilder b(loop);
    SmallVector<Value> carried(loop->getOperands());
    Operation *ret = &body.back();
    for (int64_t it = 0; it < trips; ++it) {
      IRMapping map;
      map.map(body.getArguments(), carried);
      for (Operation &o : body.without_terminator())
        cloneWithProperties(b, o, map);
      for (auto [i, v] : llvm::enumerate(ret->getOperands()))
        carried[i] = map.lookupOrDefault(v);
    }
    loop->replaceAllUsesWith(carried);
    loop->erase();
  }
}
