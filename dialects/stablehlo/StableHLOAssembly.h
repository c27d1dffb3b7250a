//===- StableHLOAssembly.h - StableHLO custom<...> directives ---*- C++ -*-===//
//
// The parsers and printers the ops' assembly formats name (custom<X>), in
// StableHLO's printed syntax. Included by StableHLOOps.cpp before the
// generated op definitions.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_DIALECTS_STABLEHLO_STABLEHLOASSEMBLY_H
#define HCCL_MLIR_DIALECTS_STABLEHLO_STABLEHLOASSEMBLY_H

#include "hccl-mlir/Dialect/StableHLO/StableHLO.h"

namespace mlir::stablehlo {

/// `[a, b, ...]`, with `?` for ShapedType::kDynamic when `question`.
ParseResult parseIntList(AsmParser &p, SmallVectorImpl<int64_t> &out,
                         bool question = false);
void printIntList(AsmPrinter &p, ArrayRef<int64_t> v);

/// `T` (every type the same) or `(T, ...) -> R`.
ParseResult parseSameTypesImpl(OpAsmParser &p, ArrayRef<Type *> types);
void printSameTypesImpl(OpAsmPrinter &p, ArrayRef<Type> types);
template <typename... T>
ParseResult parseSameTypes(OpAsmParser &p, T &...types) {
  Type *all[] = {&types...};
  return parseSameTypesImpl(p, all);
}
template <typename... T>
void printSameTypes(OpAsmPrinter &p, Operation *, T... types) {
  printSameTypesImpl(p, {types...});
}

ParseResult parseComplexTypes(OpAsmParser &p, Type &lhs, Type &rhs,
                              Type &result);
void printComplexTypes(OpAsmPrinter &p, Operation *, Type lhs, Type rhs,
                       Type result);
ParseResult parseSelectTypes(OpAsmParser &p, Type &pred, Type &onTrue,
                             Type &onFalse, Type &result);
void printSelectTypes(OpAsmPrinter &p, Operation *, Type pred, Type onTrue,
                      Type onFalse, Type result);
ParseResult parsePairwiseTypes(OpAsmParser &p, SmallVectorImpl<Type> &in,
                               SmallVectorImpl<Type> &out);
void printPairwiseTypes(OpAsmPrinter &p, Operation *, TypeRange in,
                        TypeRange out);
ParseResult parseTupleTypes(OpAsmParser &p, SmallVectorImpl<Type> &elements,
                            Type &tuple);
void printTupleTypes(OpAsmPrinter &p, Operation *, TypeRange elements,
                     Type tuple);

/// `[1, 2]` as array<i64: 1, 2>.
ParseResult parseDims(OpAsmParser &p, Attribute &dims);
void printDims(OpAsmPrinter &p, Operation *, Attribute dims);
/// `[1:3, 4:8:2]` (start:limit[:stride]).
ParseResult parseSliceRanges(OpAsmParser &p, Attribute &start, Attribute &limit,
                             Attribute &strides);
void printSliceRanges(OpAsmPrinter &p, Operation *, Attribute start,
                      Attribute limit, Attribute strides);
/// `%a, %b,` before a keyword (the operands and their commas).
ParseResult
parseOperandsThenComma(OpAsmParser &p,
                       SmallVectorImpl<OpAsmParser::UnresolvedOperand> &ops);
void printOperandsThenComma(OpAsmPrinter &p, Operation *, OperandRange ops);
/// `e5m10`.
ParseResult parseExponentMantissa(OpAsmParser &p, IntegerAttr &exponent,
                                  IntegerAttr &mantissa);
void printExponentMantissa(OpAsmPrinter &p, Operation *, IntegerAttr exponent,
                           IntegerAttr mantissa);
/// `@target` or `@"a-b"`.
ParseResult parseCallTarget(OpAsmParser &p, StringAttr &target);
void printCallTarget(OpAsmPrinter &p, Operation *, StringAttr target);

/// `batching_dims = [0] x [0], contracting_dims = [2] x [1],
/// precision = [DEFAULT, DEFAULT], algorithm = <...>`.
ParseResult parseDotTail(OpAsmParser &p, Attribute &dims, Attribute &precision,
                         Attribute &algorithm);
void printDotTail(OpAsmPrinter &p, Operation *, Attribute dims,
                  Attribute precision, Attribute algorithm);
/// `[DEFAULT, HIGH]`.
ParseResult parsePrecisionList(OpAsmParser &p, Attribute &precision);
void printPrecisionList(OpAsmPrinter &p, Operation *, Attribute precision);
/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
ParseResult parseConvDims(OpAsmParser &p, Attribute &dims);
void printConvDims(OpAsmPrinter &p, Operation *, Attribute dims);
/// `window = {stride = [..], pad = [[..]], lhs_dilate = [..],
/// rhs_dilate = [..], reverse = [..]}`.
ParseResult parseWindow(OpAsmParser &p, Attribute &strides, Attribute &padding,
                        Attribute &lhsDilation, Attribute &rhsDilation,
                        Attribute &reversal);
void printWindow(OpAsmPrinter &p, Operation *, Attribute strides,
                 Attribute padding, Attribute lhsDilation,
                 Attribute rhsDilation, Attribute reversal);

/// The compact convolution dimension numbers (shared with #stablehlo.conv).
ParseResult parseConvDimsBody(AsmParser &p, StructAttr &out);
/// False when `dims` lacks a field the compact form needs.
bool printConvDimsBody(AsmPrinter &p, StructAttr dims);
/// The body of `<key = value, ...>` of struct attribute `kind`, after `<`.
StructAttr parseStructFields(AsmParser &p, StringRef kind);
void printStructFields(AsmPrinter &p, StructAttr attr);

} // namespace mlir::stablehlo

#endif
