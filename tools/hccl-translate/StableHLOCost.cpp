//===- StableHLOCost.cpp - FLOPs and bytes of a StableHLO op --------------===//
//
// Each formula is the StableHLO specification's definition of the op read as
// a count: a result element of dot_general sums K products, so it costs 2K;
// a reduce applies its body once per input element. Ops are priced one by
// one, unfused: an elementwise chain costs its memory traffic at every op,
// as the cost model has no fusion to know better. Malformed attributes (the
// reader dialect checks syntax only) give no figure rather than a guess.
//
//===----------------------------------------------------------------------===//
#include "StableHLOCost.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Dialect/StableHLO/StableHLO.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::comm;
using shlo::ComputeCost;
namespace hlo = mlir::stablehlo;

namespace {

/// A static tensor's shape and bytes.
struct Tensor {
  ArrayRef<int64_t> shape;
  double elements = 0;
  double bytes = 0;
};

/// A static tensor of sized elements; nullopt for a dynamic shape, an
/// unranked tensor, or an element type without a size (quantized, ...).
std::optional<Tensor> tensorOf(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt)
    return std::nullopt;
  std::optional<int64_t> n = getStaticElementCount(rt);
  std::optional<int64_t> b = getStaticByteSize(rt);
  if (!n || !b)
    return std::nullopt;
  return Tensor{rt.getShape(), static_cast<double>(*n),
                static_cast<double>(*b)};
}

/// Bytes of every operand and result; nullopt when one of them is not a
/// static tensor (a token, a tuple, a dynamic shape), so that what follows
/// may read any operand's shape.
std::optional<double> allBytes(Operation *op) {
  double sum = 0;
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type t : types) {
    std::optional<Tensor> v = tensorOf(t);
    if (!v)
      return std::nullopt;
    sum += v->bytes;
  }
  return sum;
}

double bytesOf(ValueRange values) {
  double sum = 0;
  for (Value v : values)
    sum += tensorOf(v.getType())->bytes; // allBytes checked them
  return sum;
}

double elementsOf(Value v) { return tensorOf(v.getType())->elements; }

/// An integer attribute, `dflt` when absent; nullopt when not an integer
/// or past int64.
std::optional<int64_t> intOr(Operation *op, StringRef name, int64_t dflt) {
  Attribute a = op->getAttr(name);
  if (!a)
    return dflt;
  return hlo::intValue(a);
}

/// The arithmetic of one application of a computation region: its ops on
/// 0-d tensors, one each; constants and the terminator compute nothing.
double bodyOps(Region &r) {
  double n = 0;
  for (Block &b : r)
    for (Operation &op : b)
      if (!op.hasTrait<OpTrait::IsTerminator>() && !isa<hlo::constant_Op>(op))
        n += 1;
  return n;
}

/// The product of `shape`'s sizes at `dims`; nullopt for a dimension out of
/// range.
std::optional<double> productAt(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> dims) {
  double p = 1;
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(shape.size()))
      return std::nullopt;
    p *= static_cast<double>(shape[d]);
  }
  return p;
}

/// dot_general: each result element sums the products over the contracting
/// dimensions (the spec's result is batch x lhs free x rhs free).
std::optional<double> dotGeneralFlops(hlo::dot_general_Op op) {
  auto dims = dyn_cast_or_null<hlo::StructAttr>(op.getDotDimensionNumbers());
  if (!dims || dims.getKind() != "dot")
    return std::nullopt;
  SmallVector<int64_t> lc = dims.getInts("lhs_contracting_dimensions");
  SmallVector<int64_t> rc = dims.getInts("rhs_contracting_dimensions");
  ArrayRef<int64_t> lhs = tensorOf(op.getLhs().getType())->shape;
  ArrayRef<int64_t> rhs = tensorOf(op.getRhs().getType())->shape;
  std::optional<double> k = productAt(lhs, lc);
  if (!k || lc.size() != rc.size() || productAt(rhs, rc) != k)
    return std::nullopt;
  return 2 * elementsOf(op.getResult()) * *k;
}

/// dot: (M x K) . (K x N), vectors as one side of it; K is lhs's last size.
std::optional<double> dotFlops(hlo::dot_Op op) {
  ArrayRef<int64_t> lhs = tensorOf(op.getLhs().getType())->shape;
  ArrayRef<int64_t> rhs = tensorOf(op.getRhs().getType())->shape;
  if (lhs.empty() || lhs.size() > 2 || rhs.empty() || rhs.size() > 2 ||
      lhs.back() != rhs.front())
    return std::nullopt;
  return 2 * elementsOf(op.getResult()) * static_cast<double>(lhs.back());
}

/// convolution: each result element sums a kernel window over the kernel's
/// input features, which the spec makes input features / feature_group_count
/// (batch_group_count splits the batch, not the sum), so it costs
/// 2 x kernel elements / kernel output features. Padding and dilation holes
/// count, as the spec multiplies them. The spec's shape constraints on the
/// group counts are checked: the formula means nothing without them.
std::optional<double> convFlops(Operation *op, Value lhsV, Value rhsV,
                                Value resV, Attribute dimsAttr) {
  auto dims = dyn_cast_or_null<hlo::StructAttr>(dimsAttr);
  if (!dims || dims.getKind() != "conv")
    return std::nullopt;
  std::optional<int64_t> g = intOr(op, "feature_group_count", 1);
  std::optional<int64_t> bg = intOr(op, "batch_group_count", 1);
  std::optional<Tensor> lhs = tensorOf(lhsV.getType());
  std::optional<Tensor> rhs = tensorOf(rhsV.getType());
  std::optional<Tensor> res = tensorOf(resV.getType());
  if (!g || !bg || *g < 1 || *bg < 1 || !lhs || !rhs || !res)
    return std::nullopt;
  auto size = [](const Tensor &t, std::optional<int64_t> d) -> int64_t {
    if (!d || *d < 0 || *d >= static_cast<int64_t>(t.shape.size()))
      return -1;
    return t.shape[*d];
  };
  int64_t batch = size(*lhs, dims.getInt("input_batch_dimension"));
  int64_t in = size(*lhs, dims.getInt("input_feature_dimension"));
  int64_t kin = size(*rhs, dims.getInt("kernel_input_feature_dimension"));
  int64_t kout = size(*rhs, dims.getInt("kernel_output_feature_dimension"));
  int64_t outBatch = size(*res, dims.getInt("output_batch_dimension"));
  int64_t out = size(*res, dims.getInt("output_feature_dimension"));
  int64_t groupedIn = 0; // kin * g, which a huge g overflows
  if (batch < 0 || in < 0 || kin < 0 || kout <= 0 || outBatch < 0 || out < 0 ||
      llvm::MulOverflow(kin, *g, groupedIn) || in != groupedIn || kout % *g ||
      kout % *bg || batch % *bg || outBatch != batch / *bg || out != kout)
    return std::nullopt;
  return 2 * res->elements * (rhs->elements / static_cast<double>(kout));
}

/// The product of a window attribute's sizes.
std::optional<double> windowSize(Attribute a) {
  // Short lists only (a splat of 2^62 ones is no window).
  std::optional<SmallVector<int64_t>> w = hlo::intsOf(a);
  if (!w)
    return std::nullopt;
  double n = 1;
  for (int64_t s : *w) {
    if (s < 0)
      return std::nullopt;
    n *= static_cast<double>(s);
  }
  return n;
}

/// Ops whose result is their operand's bytes seen another way, or no data:
/// nothing moves (a reshape or bitcast of a dense row-major array is a
/// view; a constant is part of the program, read by its users).
bool movesNothing(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("reshape", "bitcast_convert", "tuple", "get_tuple_element", true)
      .Cases("constant", "optimization_barrier", "create_token", "after_all",
             true)
      .Case("get_dimension_size", true)
      .Default(false);
}

/// Ops whose work is elsewhere (a loop or branch body, a callee, the host):
/// no figure, the cost model's fallback prices them.
bool unknownWork(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("while", "if", "case", "custom_call", "composite", true)
      .Cases("async_start", "async_done", "infeed", "outfeed", true)
      .Default(false);
}

/// One operation per result element: the spec's elementwise ops
/// (transcendentals count as one; so do integer and comparison ops).
bool isElementwise(Operation *op) {
  return isa<hlo::abs_Op, hlo::cbrt_Op, hlo::ceil_Op, hlo::convert_Op,
             hlo::count_leading_zeros_Op, hlo::cosine_Op, hlo::exponential_Op,
             hlo::exponential_minus_one_Op, hlo::floor_Op, hlo::imag_Op,
             hlo::is_finite_Op, hlo::log_Op, hlo::log_plus_one_Op,
             hlo::logistic_Op, hlo::not_Op, hlo::negate_Op, hlo::popcnt_Op,
             hlo::real_Op, hlo::round_nearest_afz_Op,
             hlo::round_nearest_even_Op, hlo::rsqrt_Op, hlo::sign_Op,
             hlo::sine_Op, hlo::sqrt_Op, hlo::tan_Op, hlo::tanh_Op>(op) ||
         isa<hlo::add_Op, hlo::and_Op, hlo::atan2_Op, hlo::divide_Op,
             hlo::maximum_Op, hlo::minimum_Op, hlo::multiply_Op, hlo::or_Op,
             hlo::power_Op, hlo::remainder_Op, hlo::shift_left_Op,
             hlo::shift_right_arithmetic_Op, hlo::shift_right_logical_Op,
             hlo::subtract_Op, hlo::xor_Op, hlo::complex_Op, hlo::clamp_Op,
             hlo::select_Op, hlo::compare_Op, hlo::reduce_precision_Op>(op);
}

/// FLOPs by the op's definition; nullopt for ops without a formula (data
/// movement, the ops of unknownWork) and for malformed attributes.
std::optional<double> flopsOf(Operation *op) {
  if (isElementwise(op))
    return elementsOf(op->getResult(0));
  if (auto m = dyn_cast<hlo::map_Op>(op))
    return elementsOf(op->getResult(0)) * bodyOps(m.getComputation());
  if (auto d = dyn_cast<hlo::dot_general_Op>(op))
    return dotGeneralFlops(d);
  if (auto d = dyn_cast<hlo::dot_Op>(op))
    return dotFlops(d);
  if (auto c = dyn_cast<hlo::convolution_Op>(op))
    return convFlops(op, c.getLhs(), c.getRhs(), c.getResult(),
                     c.getDimensionNumbers());
  // A reduce of N inputs applies its body to N values per input position:
  // once per element of one input (n elements and the init value take n
  // applications).
  if (auto r = dyn_cast<hlo::reduce_Op>(op)) {
    if (op->getNumOperands() < 2)
      return std::nullopt;
    return elementsOf(op->getOperand(0)) * bodyOps(r.getBody());
  }
  // Each result element reduces one window (padded and dilated positions
  // included, as the spec pads with the init value).
  if (auto r = dyn_cast<hlo::reduce_window_Op>(op)) {
    std::optional<double> w = windowSize(r.getWindowDimensionsAttr());
    if (!w || op->getNumResults() == 0)
      return std::nullopt;
    return elementsOf(op->getResult(0)) * *w * bodyOps(r.getBody());
  }
  // One window per source element: select picks among its w elements
  // (w - 1 applications), scatter folds the source value in (one).
  if (auto s = dyn_cast<hlo::select_and_scatter_Op>(op)) {
    std::optional<double> w = windowSize(s.getWindowDimensionsAttr());
    if (!w || *w < 1)
      return std::nullopt;
    return elementsOf(s.getSource()) *
           ((*w - 1) * bodyOps(s.getSelect()) + bodyOps(s.getScatter()));
  }
  // The update computation once per update element.
  if (auto s = dyn_cast<hlo::scatter_Op>(op)) {
    unsigned n = op->getNumOperands();
    if (n < 3 || n % 2 == 0)
      return std::nullopt;
    return elementsOf(op->getOperand(n - 1)) *
           bodyOps(s.getUpdateComputation());
  }
  // The spec fixes no algorithm: a comparison sort's n ceil(log2 n)
  // comparator applications per sorted row of n.
  if (auto s = dyn_cast<hlo::sort_Op>(op)) {
    if (op->getNumOperands() == 0)
      return std::nullopt;
    ArrayRef<int64_t> shape = tensorOf(op->getOperand(0).getType())->shape;
    std::optional<int64_t> d = intOr(op, "dimension", -1);
    if (!d || shape.empty())
      return std::nullopt;
    int64_t dim = *d < 0 ? *d + static_cast<int64_t>(shape.size()) : *d;
    if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
      return std::nullopt;
    double n = static_cast<double>(shape[dim]);
    double depth = n > 1 ? std::ceil(std::log2(n)) : 0;
    return elementsOf(op->getOperand(0)) * depth * bodyOps(s.getComparator());
  }
  return std::nullopt;
}

/// Bytes read and written; the default is every operand and result once.
double movedBytes(Operation *op, double all) {
  StringRef name = op->getName().stripDialect();
  unsigned n = op->getNumOperands();
  // Reads only what it writes (plus the indices).
  if ((name == "slice" || name == "dynamic_slice" || name == "gather" ||
       name == "torch_index_select") &&
      n >= 1)
    return 2 * bytesOf(op->getResults()) +
           bytesOf(op->getOperands().drop_front());
  // Updated in place, as a compiler does when the operand dies there: the
  // update is read, the region it covers read (scatter combines) and
  // written. (The reader checks no operand counts: a malformed op keeps
  // the default.)
  if (name == "dynamic_update_slice" && n >= 2)
    return 2 * bytesOf(op->getOperand(1)) +
           bytesOf(op->getOperands().drop_front(2));
  if (name == "scatter" && n >= 3 && n % 2 == 1) {
    unsigned inputs = (n - 1) / 2;
    return 3 * bytesOf(op->getOperands().drop_front(inputs + 1)) +
           bytesOf(op->getOperand(inputs));
  }
  return all;
}

} // namespace

ComputeCost mlir::comm::shlo::computeCost(Operation *op) {
  StringRef name = op->getName().stripDialect();
  // CHLO math is elementwise (one operation per result element) but for
  // top_k, whose work depends on the sort the device picks (no FLOPs).
  if (op->getName().getDialectNamespace() == "chlo") {
    std::optional<double> all = allBytes(op);
    std::optional<double> flops;
    if (name != "top_k" && op->getNumResults() == 1)
      if (std::optional<int64_t> n =
              getStaticElementCount(op->getResult(0).getType()))
        flops = static_cast<double>(*n); // none when the count overflows
    return {flops, all};
  }
  if (!isa_and_nonnull<hlo::StableHLODialect>(op->getDialect()) ||
      unknownWork(name))
    return {};
  if (movesNothing(name))
    return {std::nullopt, 0.0};
  std::optional<double> all = allBytes(op);
  if (!all || op->getNumResults() == 0)
    return {};
  ComputeCost c{flopsOf(op), movedBytes(op, *all)};
  for (std::optional<double> *v : {&c.flops, &c.bytes})
    if (*v && !(std::isfinite(**v) && **v >= 0))
      v->reset();
  return c;
}
