//===- StableHLOAssembly.cpp - custom<...> directives of StableHLO ops ----===//
//
// StableHLO's pretty syntax, as its printer writes it and the spec's
// examples show it. Every parser accepts what the matching printer writes,
// and the printers write what StableHLO writes, so a program printed here
// reads back in StableHLO's tools too.
//
//===----------------------------------------------------------------------===//
#include "StableHLOAssembly.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::stablehlo;

//===----------------------------------------------------------------------===//
// Integer lists
//===----------------------------------------------------------------------===//

/// At most 2^20 elements, counted without overflow.
static bool fewElements(ShapedType t) {
  int64_t n = 1;
  for (int64_t d : t.getShape())
    if (d < 0 || llvm::MulOverflow(n, d, n) || n > (int64_t(1) << 20))
      return false;
  return true;
}

std::optional<int64_t> mlir::stablehlo::intValue(const APInt &v,
                                                 bool isUnsigned) {
  // An i0 has no bits to extend (getSExtValue would shift by 64); an i1 is
  // StableHLO's boolean, 0 or 1.
  if (v.getBitWidth() == 0)
    return 0;
  if (isUnsigned || v.getBitWidth() == 1)
    return v.getActiveBits() < 64 ? std::optional<int64_t>(v.getZExtValue())
                                  : std::nullopt;
  return v.trySExtValue();
}

std::optional<int64_t> mlir::stablehlo::intValue(Attribute a) {
  auto i = dyn_cast_or_null<IntegerAttr>(a);
  if (!i)
    return std::nullopt;
  return intValue(i.getValue(), i.getType().isUnsignedInteger());
}

std::optional<SmallVector<int64_t>> mlir::stablehlo::intsOf(Attribute a) {
  if (auto d = dyn_cast_or_null<DenseI64ArrayAttr>(a))
    return SmallVector<int64_t>(d.asArrayRef());
  if (auto d = dyn_cast_or_null<DenseBoolArrayAttr>(a))
    return llvm::to_vector(llvm::map_range(
        d.asArrayRef(), [](bool b) { return static_cast<int64_t>(b); }));
  SmallVector<int64_t> v;
  // A dimension list is short; a huge (splat) tensor here is not one.
  if (auto d = dyn_cast_or_null<DenseIntElementsAttr>(a);
      d && fewElements(d.getType())) {
    bool isUnsigned = d.getElementType().isUnsignedInteger();
    for (const APInt &x : d.getValues<APInt>()) {
      std::optional<int64_t> i = intValue(x, isUnsigned);
      if (!i)
        return std::nullopt;
      v.push_back(*i);
    }
    return v;
  }
  if (auto arr = dyn_cast_or_null<ArrayAttr>(a)) {
    for (Attribute e : arr) {
      std::optional<int64_t> i = intValue(e);
      if (!i)
        return std::nullopt;
      v.push_back(*i);
    }
    return v;
  }
  return std::nullopt;
}

ParseResult mlir::stablehlo::parseIntList(AsmParser &p,
                                          SmallVectorImpl<int64_t> &out,
                                          bool question) {
  return p.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        if (question && succeeded(p.parseOptionalQuestion())) {
          out.push_back(ShapedType::kDynamic);
          return success();
        }
        int64_t v = 0;
        if (p.parseInteger(v))
          return failure();
        out.push_back(v);
        return success();
      });
}

void mlir::stablehlo::printIntList(AsmPrinter &p, ArrayRef<int64_t> v) {
  p << '[';
  llvm::interleaveComma(v, p, [&](int64_t x) {
    if (x == ShapedType::kDynamic)
      p << '?';
    else
      p << x;
  });
  p << ']';
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

ParseResult mlir::stablehlo::parseSameTypesImpl(OpAsmParser &p,
                                                ArrayRef<Type *> types) {
  SMLoc loc = p.getCurrentLocation();
  Type t;
  if (p.parseType(t))
    return failure();
  auto fn = dyn_cast<FunctionType>(t);
  if (!fn) {
    for (Type *x : types)
      *x = t;
    return success();
  }
  if (fn.getNumInputs() != types.size() - 1 || fn.getNumResults() != 1)
    return p.emitError(loc) << "expected a function type of "
                            << types.size() - 1 << " operands and 1 result";
  for (size_t i = 0; i + 1 < types.size(); ++i)
    *types[i] = fn.getInput(i);
  *types.back() = fn.getResult(0);
  return success();
}

void mlir::stablehlo::printSameTypesImpl(OpAsmPrinter &p,
                                         ArrayRef<Type> types) {
  if (llvm::all_equal(types)) {
    p << types.front();
    return;
  }
  p.printFunctionalType(types.drop_back(), types.take_back());
}

/// The element type of a complex shaped type's real and imaginary parts.
static Type realPart(Type complexShaped) {
  auto s = dyn_cast<ShapedType>(complexShaped);
  auto c = s ? dyn_cast<ComplexType>(s.getElementType()) : ComplexType();
  return c ? s.clone(c.getElementType()) : Type();
}

ParseResult mlir::stablehlo::parseComplexTypes(OpAsmParser &p, Type &lhs,
                                               Type &rhs, Type &result) {
  SMLoc loc = p.getCurrentLocation();
  if (parseSameTypes(p, lhs, rhs, result))
    return failure();
  if (lhs != result)
    return success(); // a function type
  Type part = realPart(result);
  if (!part)
    return p.emitError(loc)
           << "expected a tensor of complex type, found " << result;
  lhs = rhs = part;
  return success();
}

void mlir::stablehlo::printComplexTypes(OpAsmPrinter &p, Operation *, Type lhs,
                                        Type rhs, Type result) {
  if (lhs == rhs && realPart(result) == lhs)
    p << result;
  else
    p.printFunctionalType(ArrayRef<Type>{lhs, rhs}, ArrayRef<Type>{result});
}

ParseResult mlir::stablehlo::parseSelectTypes(OpAsmParser &p, Type &pred,
                                              Type &onTrue, Type &onFalse,
                                              Type &result) {
  SMLoc loc = p.getCurrentLocation();
  Type first;
  if (p.parseType(first))
    return failure();
  if (auto fn = dyn_cast<FunctionType>(first)) {
    if (fn.getNumInputs() != 3 || fn.getNumResults() != 1)
      return p.emitError(loc)
             << "expected a function type of 3 operands and 1 result";
    pred = fn.getInput(0);
    onTrue = fn.getInput(1);
    onFalse = fn.getInput(2);
    result = fn.getResult(0);
    return success();
  }
  pred = first;
  if (p.parseComma() || p.parseType(result))
    return failure();
  onTrue = onFalse = result;
  return success();
}

void mlir::stablehlo::printSelectTypes(OpAsmPrinter &p, Operation *, Type pred,
                                       Type onTrue, Type onFalse, Type result) {
  if (onTrue == onFalse && onTrue == result)
    p << pred << ", " << result;
  else
    p.printFunctionalType(ArrayRef<Type>{pred, onTrue, onFalse},
                          ArrayRef<Type>{result});
}

ParseResult mlir::stablehlo::parsePairwiseTypes(OpAsmParser &p,
                                                SmallVectorImpl<Type> &in,
                                                SmallVectorImpl<Type> &out) {
  if (p.parseTypeList(in))
    return failure();
  out.assign(in.begin(), in.end());
  return success();
}

void mlir::stablehlo::printPairwiseTypes(OpAsmPrinter &p, Operation *,
                                         TypeRange in, TypeRange) {
  llvm::interleaveComma(in, p);
}

ParseResult mlir::stablehlo::parseTupleTypes(OpAsmParser &p,
                                             SmallVectorImpl<Type> &elements,
                                             Type &tuple) {
  SMLoc loc = p.getCurrentLocation();
  if (p.parseType(tuple))
    return failure();
  auto t = dyn_cast<TupleType>(tuple);
  if (!t)
    return p.emitError(loc) << "expected a tuple type, found " << tuple;
  llvm::append_range(elements, t.getTypes());
  return success();
}

void mlir::stablehlo::printTupleTypes(OpAsmPrinter &p, Operation *, TypeRange,
                                      Type tuple) {
  p << tuple;
}

//===----------------------------------------------------------------------===//
// Attributes of shape ops
//===----------------------------------------------------------------------===//

ParseResult mlir::stablehlo::parseDims(OpAsmParser &p, Attribute &dims) {
  SmallVector<int64_t> v;
  if (parseIntList(p, v))
    return failure();
  dims = DenseI64ArrayAttr::get(p.getContext(), v);
  return success();
}

void mlir::stablehlo::printDims(OpAsmPrinter &p, Operation *, Attribute dims) {
  if (std::optional<SmallVector<int64_t>> v = intsOf(dims))
    printIntList(p, *v);
  else
    p << dims; // not a list (the verifier-free reader keeps it)
}

ParseResult mlir::stablehlo::parseSliceRanges(OpAsmParser &p, Attribute &start,
                                              Attribute &limit,
                                              Attribute &strides) {
  SmallVector<int64_t> s, l, st;
  if (p.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t a = 0, b = 0, c = 1;
            if (p.parseInteger(a) || p.parseColon() || p.parseInteger(b))
              return failure();
            if (succeeded(p.parseOptionalColon()) && p.parseInteger(c))
              return failure();
            s.push_back(a);
            l.push_back(b);
            st.push_back(c);
            return success();
          }))
    return failure();
  MLIRContext *ctx = p.getContext();
  start = DenseI64ArrayAttr::get(ctx, s);
  limit = DenseI64ArrayAttr::get(ctx, l);
  strides = DenseI64ArrayAttr::get(ctx, st);
  return success();
}

void mlir::stablehlo::printSliceRanges(OpAsmPrinter &p, Operation *,
                                       Attribute start, Attribute limit,
                                       Attribute strides) {
  auto s = intsOf(start), l = intsOf(limit), st = intsOf(strides);
  if (!s || !l || !st || s->size() != l->size() || s->size() != st->size()) {
    p << "<malformed slice " << start << ", " << limit << ", " << strides
      << ">";
    return;
  }
  p << '[';
  for (size_t i = 0; i < s->size(); ++i) {
    if (i)
      p << ", ";
    p << (*s)[i] << ':' << (*l)[i];
    if ((*st)[i] != 1)
      p << ':' << (*st)[i];
  }
  p << ']';
}

ParseResult mlir::stablehlo::parseOperandsThenComma(
    OpAsmParser &p, SmallVectorImpl<OpAsmParser::UnresolvedOperand> &ops) {
  while (true) {
    OpAsmParser::UnresolvedOperand op;
    OptionalParseResult r = p.parseOptionalOperand(op);
    if (!r.has_value())
      return success();
    if (failed(*r) || p.parseComma())
      return failure();
    ops.push_back(op);
  }
}

void mlir::stablehlo::printOperandsThenComma(OpAsmPrinter &p, Operation *,
                                             OperandRange ops) {
  llvm::interleave(ops, p, [&](Value v) { p << v << ','; }, " ");
}

ParseResult mlir::stablehlo::parseExponentMantissa(OpAsmParser &p,
                                                   IntegerAttr &exponent,
                                                   IntegerAttr &mantissa) {
  SMLoc loc = p.getCurrentLocation();
  StringRef word;
  if (p.parseKeyword(&word))
    return failure();
  auto [e, m] = word.drop_front().split('m');
  int32_t ev = 0, mv = 0;
  if (!word.starts_with("e") || e.getAsInteger(10, ev) ||
      m.getAsInteger(10, mv))
    return p.emitError(loc)
           << "expected a format eNmM (exponent and mantissa bits), found '"
           << word << "'";
  Builder b(p.getContext());
  exponent = b.getI32IntegerAttr(ev);
  mantissa = b.getI32IntegerAttr(mv);
  return success();
}

void mlir::stablehlo::printExponentMantissa(OpAsmPrinter &p, Operation *,
                                            IntegerAttr exponent,
                                            IntegerAttr mantissa) {
  p << 'e' << exponent.getInt() << 'm' << mantissa.getInt();
}

ParseResult mlir::stablehlo::parseCallTarget(OpAsmParser &p,
                                             StringAttr &target) {
  return p.parseSymbolName(target);
}

void mlir::stablehlo::printCallTarget(OpAsmPrinter &p, Operation *,
                                      StringAttr target) {
  p.printSymbolName(target.getValue());
}

//===----------------------------------------------------------------------===//
// dot_general, dot
//===----------------------------------------------------------------------===//

ParseResult mlir::stablehlo::parsePrecisionList(OpAsmParser &p,
                                                Attribute &out) {
  SmallVector<Attribute> values;
  if (p.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            SMLoc loc = p.getCurrentLocation();
            StringRef word;
            if (p.parseKeyword(&word))
              return failure();
            std::optional<Precision> v = symbolizePrecision(word);
            if (!v)
              return p.emitError(loc) << "unknown precision '" << word
                                      << "' (DEFAULT, HIGH or HIGHEST)";
            values.push_back(PrecisionAttr::get(p.getContext(), *v));
            return success();
          }))
    return failure();
  out = ArrayAttr::get(p.getContext(), values);
  return success();
}

void mlir::stablehlo::printPrecisionList(OpAsmPrinter &p, Operation *,
                                         Attribute precision) {
  auto arr = dyn_cast<ArrayAttr>(precision);
  if (!arr) {
    p << precision;
    return;
  }
  p << '[';
  llvm::interleaveComma(arr, p, [&](Attribute a) {
    if (auto e = dyn_cast<PrecisionAttr>(a))
      p << stringifyPrecision(e.getValue());
    else
      p << a;
  });
  p << ']';
}

ParseResult mlir::stablehlo::parseDotTail(OpAsmParser &p, Attribute &dims,
                                          Attribute &precision,
                                          Attribute &algorithm) {
  MLIRContext *ctx = p.getContext();
  SmallVector<int64_t> lb, rb, lc, rc;
  do {
    SMLoc loc = p.getCurrentLocation();
    StringRef key;
    if (p.parseKeyword(&key) || p.parseEqual())
      return failure();
    if (key == "batching_dims" || key == "contracting_dims") {
      auto &l = key == "batching_dims" ? lb : lc;
      auto &r = key == "batching_dims" ? rb : rc;
      if (parseIntList(p, l) || p.parseKeyword("x") || parseIntList(p, r))
        return failure();
    } else if (key == "precision") {
      if (parsePrecisionList(p, precision))
        return failure();
    } else if (key == "algorithm") {
      if (p.parseLess())
        return failure();
      algorithm = parseStructFields(p, "dot_algorithm");
      if (!algorithm)
        return failure();
    } else {
      return p.emitError(loc)
             << "unknown dot_general field '" << key
             << "' (batching_dims, contracting_dims, precision, algorithm)";
    }
  } while (succeeded(p.parseOptionalComma()));
  NamedAttrList fields;
  fields.append("lhs_batching_dimensions", DenseI64ArrayAttr::get(ctx, lb));
  fields.append("rhs_batching_dimensions", DenseI64ArrayAttr::get(ctx, rb));
  fields.append("lhs_contracting_dimensions", DenseI64ArrayAttr::get(ctx, lc));
  fields.append("rhs_contracting_dimensions", DenseI64ArrayAttr::get(ctx, rc));
  dims = StructAttr::get(ctx, "dot", fields.getDictionary(ctx));
  return success();
}

void mlir::stablehlo::printDotTail(OpAsmPrinter &p, Operation *, Attribute dims,
                                   Attribute precision, Attribute algorithm) {
  auto d = dyn_cast<StructAttr>(dims);
  if (!d || d.getKind() != "dot") {
    p << "<malformed dot_dimension_numbers " << dims << ">";
    return;
  }
  SmallVector<int64_t> lb = d.getInts("lhs_batching_dimensions"),
                       rb = d.getInts("rhs_batching_dimensions");
  if (!lb.empty() || !rb.empty()) {
    p << "batching_dims = ";
    printIntList(p, lb);
    p << " x ";
    printIntList(p, rb);
    p << ", ";
  }
  p << "contracting_dims = ";
  printIntList(p, d.getInts("lhs_contracting_dimensions"));
  p << " x ";
  printIntList(p, d.getInts("rhs_contracting_dimensions"));
  if (precision) {
    p << ", precision = ";
    printPrecisionList(p, nullptr, precision);
  }
  if (auto alg = dyn_cast_or_null<StructAttr>(algorithm)) {
    p << ", algorithm = <";
    printStructFields(p, alg);
    p << '>';
  }
}

//===----------------------------------------------------------------------===//
// convolution
//===----------------------------------------------------------------------===//

ParseResult mlir::stablehlo::parseConvDimsBody(AsmParser &p, StructAttr &out) {
  MLIRContext *ctx = p.getContext();
  // One bracketed list per operand: the letters name the batch / feature
  // dimensions (b, f; i, o for the kernel), the numbers spatial dimension k.
  struct Layout {
    int64_t a = -1, b = -1;
    SmallVector<int64_t> spatial;
  };
  auto parseLayout = [&](char first, char second, Layout &l) -> ParseResult {
    SmallVector<std::pair<int64_t, int64_t>> spatial; // (k, position)
    int64_t pos = 0;
    SMLoc loc = p.getCurrentLocation();
    if (p.parseCommaSeparatedList(
            AsmParser::Delimiter::Square, [&]() -> ParseResult {
              int64_t k = 0;
              OptionalParseResult r = p.parseOptionalInteger(k);
              if (r.has_value()) {
                if (failed(*r))
                  return failure();
                spatial.emplace_back(k, pos++);
                return success();
              }
              SMLoc at = p.getCurrentLocation();
              StringRef word;
              if (p.parseKeyword(&word))
                return failure();
              int64_t &slot = word == StringRef(&first, 1)    ? l.a
                              : word == StringRef(&second, 1) ? l.b
                                                              : pos;
              if (&slot == &pos || slot != -1)
                return p.emitError(at)
                       << "expected '" << first << "', '" << second
                       << "' or a spatial dimension number once each, found '"
                       << word << "'";
              slot = pos++;
              return success();
            }))
      return failure();
    l.spatial.assign(spatial.size(), -1);
    for (auto [k, at] : spatial) {
      if (k < 0 || k >= static_cast<int64_t>(spatial.size()) ||
          l.spatial[k] != -1)
        return p.emitError(loc) << "spatial dimensions must be 0.."
                                << spatial.size() - 1 << ", each once";
      l.spatial[k] = at;
    }
    if (l.a < 0 || l.b < 0)
      return p.emitError(loc)
             << "expected both '" << first << "' and '" << second << "'";
    return success();
  };
  Layout in, kernel, outl;
  if (parseLayout('b', 'f', in) || p.parseKeyword("x") ||
      parseLayout('i', 'o', kernel) || p.parseArrow() ||
      parseLayout('b', 'f', outl))
    return failure();
  Builder b(ctx);
  NamedAttrList f;
  f.append("input_batch_dimension", b.getI64IntegerAttr(in.a));
  f.append("input_feature_dimension", b.getI64IntegerAttr(in.b));
  f.append("input_spatial_dimensions", b.getDenseI64ArrayAttr(in.spatial));
  f.append("kernel_input_feature_dimension", b.getI64IntegerAttr(kernel.a));
  f.append("kernel_output_feature_dimension", b.getI64IntegerAttr(kernel.b));
  f.append("kernel_spatial_dimensions", b.getDenseI64ArrayAttr(kernel.spatial));
  f.append("output_batch_dimension", b.getI64IntegerAttr(outl.a));
  f.append("output_feature_dimension", b.getI64IntegerAttr(outl.b));
  f.append("output_spatial_dimensions", b.getDenseI64ArrayAttr(outl.spatial));
  out = StructAttr::get(ctx, "conv", f.getDictionary(ctx));
  return success();
}

bool mlir::stablehlo::printConvDimsBody(AsmPrinter &p, StructAttr dims) {
  struct Side {
    const char *a, *b, *spatial;
    char la, lb;
  };
  const Side sides[] = {{"input_batch_dimension", "input_feature_dimension",
                         "input_spatial_dimensions", 'b', 'f'},
                        {"kernel_input_feature_dimension",
                         "kernel_output_feature_dimension",
                         "kernel_spatial_dimensions", 'i', 'o'},
                        {"output_batch_dimension", "output_feature_dimension",
                         "output_spatial_dimensions", 'b', 'f'}};
  SmallVector<std::string> lists;
  for (const Side &s : sides) {
    std::optional<int64_t> a = dims.getInt(s.a), b = dims.getInt(s.b);
    SmallVector<int64_t> sp = dims.getInts(s.spatial);
    int64_t rank = static_cast<int64_t>(sp.size()) + 2;
    SmallVector<std::string> slots(rank);
    auto put = [&](int64_t at, std::string v) {
      if (at < 0 || at >= rank || !slots[at].empty())
        return false;
      slots[at] = std::move(v);
      return true;
    };
    if (!a || !b || !put(*a, std::string(1, s.la)) ||
        !put(*b, std::string(1, s.lb)))
      return false;
    for (size_t k = 0; k < sp.size(); ++k)
      if (!put(sp[k], std::to_string(k)))
        return false;
    lists.push_back("[" + llvm::join(slots, ", ") + "]");
  }
  p << lists[0] << 'x' << lists[1] << "->" << lists[2];
  return true;
}

ParseResult mlir::stablehlo::parseConvDims(OpAsmParser &p, Attribute &dims) {
  StructAttr s;
  if (parseConvDimsBody(p, s))
    return failure();
  dims = s;
  return success();
}

void mlir::stablehlo::printConvDims(OpAsmPrinter &p, Operation *,
                                    Attribute dims) {
  auto s = dyn_cast<StructAttr>(dims);
  if (!s || s.getKind() != "conv" || !printConvDimsBody(p, s))
    p << "<malformed dimension_numbers " << dims << ">";
}

ParseResult mlir::stablehlo::parseWindow(OpAsmParser &p, Attribute &strides,
                                         Attribute &padding,
                                         Attribute &lhsDilation,
                                         Attribute &rhsDilation,
                                         Attribute &reversal) {
  MLIRContext *ctx = p.getContext();
  if (p.parseLBrace())
    return failure();
  if (succeeded(p.parseOptionalRBrace()))
    return success();
  do {
    SMLoc loc = p.getCurrentLocation();
    StringRef key;
    if (p.parseKeyword(&key) || p.parseEqual())
      return failure();
    SmallVector<int64_t> v;
    if (key == "pad") {
      SmallVector<int64_t> flat;
      if (p.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                SmallVector<int64_t> pair;
                if (parseIntList(p, pair))
                  return failure();
                if (pair.size() != 2)
                  return p.emitError(loc)
                         << "pad entries are [low, high] pairs";
                flat.append(pair);
                return success();
              }))
        return failure();
      auto type =
          RankedTensorType::get({static_cast<int64_t>(flat.size() / 2), 2},
                                IntegerType::get(ctx, 64));
      padding = DenseIntElementsAttr::get(type, flat);
      continue;
    }
    if (key == "reverse") {
      SmallVector<bool> flags;
      if (p.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                int64_t i = 0;
                OptionalParseResult r = p.parseOptionalInteger(i);
                if (r.has_value()) {
                  flags.push_back(i != 0);
                  return *r;
                }
                if (succeeded(p.parseOptionalKeyword("true")))
                  flags.push_back(true);
                else if (p.parseKeyword("false"))
                  return failure();
                else
                  flags.push_back(false);
                return success();
              }))
        return failure();
      reversal = DenseBoolArrayAttr::get(ctx, flags);
      continue;
    }
    Attribute *slot = key == "stride"       ? &strides
                      : key == "lhs_dilate" ? &lhsDilation
                      : key == "rhs_dilate" ? &rhsDilation
                                            : nullptr;
    if (!slot)
      return p.emitError(loc) << "unknown window field '" << key
                              << "' (stride, pad, lhs_dilate, rhs_dilate, "
                                 "reverse)";
    if (parseIntList(p, v))
      return failure();
    *slot = DenseI64ArrayAttr::get(ctx, v);
  } while (succeeded(p.parseOptionalComma()));
  return p.parseRBrace();
}

void mlir::stablehlo::printWindow(OpAsmPrinter &p, Operation *,
                                  Attribute strides, Attribute padding,
                                  Attribute lhsDilation, Attribute rhsDilation,
                                  Attribute reversal) {
  SmallVector<std::string> parts;
  auto list = [&](StringRef key, Attribute a) {
    if (!a)
      return;
    std::string s;
    llvm::raw_string_ostream os(s);
    os << key << " = [";
    if (auto v = intsOf(a))
      llvm::interleaveComma(*v, os);
    os << ']';
    parts.push_back(s);
  };
  list("stride", strides);
  if (std::optional<SmallVector<int64_t>> v = intsOf(padding)) {
    std::string s = "pad = [";
    for (size_t i = 0; i + 1 < v->size(); i += 2)
      s += (i ? ", [" : "[") + std::to_string((*v)[i]) + ", " +
           std::to_string((*v)[i + 1]) + "]";
    parts.push_back(s + "]");
  }
  list("lhs_dilate", lhsDilation);
  list("rhs_dilate", rhsDilation);
  if (auto rev = dyn_cast_or_null<DenseBoolArrayAttr>(reversal)) {
    std::string s = "reverse = [";
    for (int64_t i = 0; i < rev.size(); ++i)
      s += std::string(i ? ", " : "") + (rev[i] ? "true" : "false");
    parts.push_back(s + "]");
  }
  p << '{' << llvm::join(parts, ", ") << '}';
}
