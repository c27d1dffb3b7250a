//===- ChloOps.td - CHLO ops JAX writes, as it prints them -----*- tablegen -*-===//
//
// CHLO ("client HLO") ops appear in StableHLO that JAX exports: math that
// StableHLO decomposes later (erf_inv in jax.random's normal, lgamma,
// digamma, top_k, ...). For the importer they are compute like any other
// (opaque comm.compute, priced per element), so they are declared here in
// the forms JAX prints, from CHLO's printed syntax.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_CHLO_OPS
#define HCCL_CHLO_OPS

include "mlir/IR/OpBase.td"

def Chlo_Dialect : Dialect {
  let name = "chlo";
  let cppNamespace = "::mlir::chlo";
  let summary = "CHLO ops as JAX prints them, for the importer";
}

class Chlo_Op<string mnemonic, list<Trait> traits = []>
    : Op<Chlo_Dialect, mnemonic, traits>;

// `chlo.erf_inv %x : tensor<4xf32> -> tensor<4xf32>`
class Chlo_UnaryOp<string mnemonic> : Chlo_Op<mnemonic> {
  let summary = "elementwise " # mnemonic;
  let arguments = (ins AnyType:$operand);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}
foreach m = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e",
             "conj", "cosh", "digamma", "erf", "erf_inv", "erfc", "is_inf",
             "is_neg_inf", "is_pos_inf", "lgamma", "sinh", "tan", "square"] in
  def Chlo_ # m # Op : Chlo_UnaryOp<m>;

// `chlo.next_after %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>`
class Chlo_BinaryOp<string mnemonic> : Chlo_Op<mnemonic> {
  let summary = "elementwise " # mnemonic;
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}
foreach m = ["next_after", "polygamma", "zeta"] in
  def Chlo_ # m # Op : Chlo_BinaryOp<m>;

// `chlo.broadcast_add %a, %b {broadcast_dimensions = ...} :
//    (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>`
class Chlo_BroadcastBinaryOp<string mnemonic> : Chlo_Op<mnemonic> {
  let summary = "broadcasting elementwise " # mnemonic;
  let arguments = (ins AnyType:$lhs, AnyType:$rhs,
                       OptionalAttr<DenseI64ArrayAttr>:$broadcast_dimensions);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->`
    type($result)
  }];
}
foreach m = ["broadcast_add", "broadcast_and", "broadcast_atan2",
             "broadcast_divide", "broadcast_maximum", "broadcast_minimum",
             "broadcast_multiply", "broadcast_next_after", "broadcast_or",
             "broadcast_polygamma", "broadcast_power", "broadcast_remainder",
             "broadcast_select", "broadcast_shift_left",
             "broadcast_shift_right_arithmetic",
             "broadcast_shift_right_logical", "broadcast_subtract",
             "broadcast_xor", "broadcast_zeta", "broadcast_compare",
             "broadcast_complex"] in
  def Chlo_ # m # Op : Chlo_BroadcastBinaryOp<m>;

// `%v, %i = chlo.top_k(%x, k = 5) : tensor<16x16xf32> ->
//    (tensor<16x5xf32>, tensor<16x5xi32>)`
def Chlo_TopKOp : Chlo_Op<"top_k"> {
  let summary = "the k largest values along the last dimension, and where";
  let arguments = (ins AnyType:$operand, I64Attr:$k);
  let results = (outs AnyType:$values, AnyType:$indices);
  let assemblyFormat = [{
    `(` $operand `,` `k` `=` $k `)` attr-dict `:` type($operand) `->`
    `(` type($values) `,` type($indices) `)`
  }];
}

#endif
