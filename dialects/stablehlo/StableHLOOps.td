//===- StableHLOOps.td - StableHLO ops as they are printed -*- tablegen -*-===//
//
// The spec's ops (https://github.com/openxla/stablehlo/blob/main/docs/
// spec.md) with the assembly formats StableHLO prints. Operands, results and
// most attributes are unconstrained (AnyType, AnyAttr): the importer maps
// these ops to opaque comm.compute and checks nothing more, and old
// spellings (dense<...> dimension lists) must keep parsing. Directives of
// the form custom<X> are in StableHLOAssembly.cpp; constant, reduce and while
// have parsers of their own in StableHLOOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_STABLEHLO_OPS
#define HCCL_STABLEHLO_OPS

include "StableHLOBase.td"
include "mlir/IR/OpAsmInterface.td"

class StableHLO_Op<string mnemonic, list<Trait> traits = []>
    : Op<StableHLO_Dialect, mnemonic, traits>;

// An attribute the op declares so that the generic form's <{...}> keeps it.
defvar Opt = OptionalAttr<AnyAttr>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// `stablehlo.abs %x : tensor<4xf32>`, or with a function type when the
// result type differs (`: (tensor<4xf32>) -> tensor<4xi1>`).
class StableHLO_UnaryOp<string mnemonic> : StableHLO_Op<mnemonic> {
  let arguments = (ins AnyType:$operand, Opt:$result_accuracy);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand attr-dict `:` custom<SameTypes>(type($operand), type($result))
  }];
}

foreach m = ["abs", "cbrt", "ceil", "convert", "count_leading_zeros",
             "cosine", "exponential", "exponential_minus_one", "floor",
             "imag", "is_finite", "log", "log_plus_one", "logistic", "not",
             "negate", "popcnt", "real", "round_nearest_afz",
             "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "tan",
             "tanh", "uniform_quantize", "uniform_dequantize"] in
  def StableHLO_ # m # _Op : StableHLO_UnaryOp<m>;

class StableHLO_BinaryOp<string mnemonic> : StableHLO_Op<mnemonic> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<SameTypes>(type($lhs), type($rhs), type($result))
  }];
}

foreach m = ["add", "and", "atan2", "divide", "maximum", "minimum",
             "multiply", "or", "power", "remainder", "shift_left",
             "shift_right_arithmetic", "shift_right_logical", "subtract",
             "xor"] in
  def StableHLO_ # m # _Op : StableHLO_BinaryOp<m>;

// `: tensor<4xcomplex<f32>>` alone means f32 operands.
def StableHLO_complex_Op : StableHLO_Op<"complex"> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<ComplexTypes>(type($lhs), type($rhs), type($result))
  }];
}

def StableHLO_clamp_Op : StableHLO_Op<"clamp"> {
  let arguments = (ins AnyType:$min, AnyType:$operand, AnyType:$max);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $min `,` $operand `,` $max attr-dict `:`
    custom<SameTypes>(type($min), type($operand), type($max), type($result))
  }];
}

// `: tensor<2x3xi1>, tensor<2x3xf32>` (predicate, values) or a function type.
def StableHLO_select_Op : StableHLO_Op<"select"> {
  let arguments = (ins AnyType:$pred, AnyType:$on_true, AnyType:$on_false);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $pred `,` $on_true `,` $on_false attr-dict `:`
    custom<SelectTypes>(type($pred), type($on_true), type($on_false),
                        type($result))
  }];
}

def StableHLO_compare_Op : StableHLO_Op<"compare"> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs,
                   StableHLO_ComparisonDirectionAttr:$comparison_direction,
                   OptionalAttr<StableHLO_ComparisonTypeAttr>:$compare_type);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $comparison_direction `,` $lhs `,` $rhs (`,` $compare_type^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def StableHLO_reduce_precision_Op : StableHLO_Op<"reduce_precision"> {
  let arguments = (ins AnyType:$operand, I32Attr:$exponent_bits,
                   I32Attr:$mantissa_bits);
  let results = (outs AnyType:$output);
  let assemblyFormat = [{
    $operand `,` `format` `=`
    custom<ExponentMantissa>($exponent_bits, $mantissa_bits) attr-dict `:`
    custom<SameTypes>(type($operand), type($output))
  }];
}

// `%r = stablehlo.map ...` keeps the generic form, as StableHLO prints it.
def StableHLO_map_Op : StableHLO_Op<"map"> {
  let arguments = (ins Variadic<AnyType>:$inputs, Opt:$dimensions);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$computation);
}

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

// `stablehlo.constant dense<1.0> : tensor<f32>`; a value whose type is not
// the result's (quantized) as `stablehlo.constant() <{value = ...}> : () -> T`.
def StableHLO_constant_Op : StableHLO_Op<"constant"> {
  let arguments = (ins AnyAttr:$value);
  let results = (outs AnyType:$output);
  let hasCustomAssemblyFormat = 1;
}

def StableHLO_iota_Op : StableHLO_Op<"iota"> {
  let arguments = (ins I64Attr:$iota_dimension);
  let results = (outs AnyType:$output);
  let assemblyFormat = "`dim` `=` $iota_dimension attr-dict `:` type($output)";
}

def StableHLO_dynamic_iota_Op : StableHLO_Op<"dynamic_iota"> {
  let arguments = (ins AnyType:$output_shape, I64Attr:$iota_dimension);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $output_shape `,` `dim` `=` $iota_dimension attr-dict `:`
    functional-type(operands, results)
  }];
}

// Ops printed `%x, KEY = [dims] : (...) -> ...`.
class StableHLO_DimsOp<string mnemonic, string key, string attr>
    : StableHLO_Op<mnemonic> {
  let arguments = !con((ins AnyType:$operand), !dag(ins, [AnyAttr], [attr]));
  let results = (outs AnyType:$result);
  let assemblyFormat = "$operand `,` `" # key # "` `=` custom<Dims>($" # attr #
                       ") attr-dict `:` functional-type(operands, results)";
}

def StableHLO_broadcast_in_dim_Op
    : StableHLO_DimsOp<"broadcast_in_dim", "dims", "broadcast_dimensions">;
def StableHLO_broadcast_Op
    : StableHLO_DimsOp<"broadcast", "sizes", "broadcast_sizes">;
def StableHLO_transpose_Op
    : StableHLO_DimsOp<"transpose", "dims", "permutation">;

def StableHLO_reverse_Op : StableHLO_Op<"reverse"> {
  let arguments = (ins AnyType:$operand, AnyAttr:$dimensions);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` custom<Dims>($dimensions) attr-dict `:`
    custom<SameTypes>(type($operand), type($result))
  }];
}

def StableHLO_dynamic_broadcast_in_dim_Op
    : StableHLO_Op<"dynamic_broadcast_in_dim"> {
  let arguments = (ins AnyType:$operand, AnyType:$output_dimensions,
                   AnyAttr:$broadcast_dimensions,
                   Opt:$known_expanding_dimensions,
                   Opt:$known_nonexpanding_dimensions);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `,` $output_dimensions `,` `dims` `=`
    custom<Dims>($broadcast_dimensions) attr-dict `:`
    functional-type(operands, results)
  }];
}

// Ops printed `%a, %b : (...) -> ...`.
class StableHLO_FunctionalOp<string mnemonic> : StableHLO_Op<mnemonic> {
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

foreach m = ["reshape", "bitcast_convert", "dynamic_reshape",
             "dynamic_update_slice", "real_dynamic_slice", "dynamic_pad"] in
  def StableHLO_ # m # _Op : StableHLO_FunctionalOp<m>;

// `stablehlo.slice %x [1:3, 4:8:2]`.
def StableHLO_slice_Op : StableHLO_Op<"slice"> {
  let arguments = (ins AnyType:$operand, AnyAttr:$start_indices,
                   AnyAttr:$limit_indices, AnyAttr:$strides);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand custom<SliceRanges>($start_indices, $limit_indices, $strides)
    attr-dict `:` functional-type(operands, results)
  }];
}

def StableHLO_dynamic_slice_Op : StableHLO_Op<"dynamic_slice"> {
  let arguments = (ins AnyType:$operand, Variadic<AnyType>:$start_indices,
                   AnyAttr:$slice_sizes);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `,` custom<OperandsThenComma>($start_indices) `sizes` `=`
    custom<Dims>($slice_sizes) attr-dict `:` functional-type(operands, results)
  }];
}

def StableHLO_concatenate_Op : StableHLO_Op<"concatenate"> {
  let arguments = (ins Variadic<AnyType>:$inputs, I64Attr:$dimension);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    custom<OperandsThenComma>($inputs) `dim` `=` $dimension attr-dict `:`
    functional-type(operands, results)
  }];
}

def StableHLO_pad_Op : StableHLO_Op<"pad"> {
  let arguments = (ins AnyType:$operand, AnyType:$padding_value,
                   AnyAttr:$edge_padding_low, AnyAttr:$edge_padding_high,
                   AnyAttr:$interior_padding);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `,` $padding_value `,` `low` `=` custom<Dims>($edge_padding_low)
    `,` `high` `=` custom<Dims>($edge_padding_high) `,` `interior` `=`
    custom<Dims>($interior_padding) attr-dict `:`
    functional-type(operands, results)
  }];
}

def StableHLO_get_dimension_size_Op : StableHLO_Op<"get_dimension_size"> {
  let arguments = (ins AnyType:$operand, I64Attr:$dimension);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `,` `dim` `=` $dimension attr-dict `:`
    functional-type(operands, results)
  }];
}

def StableHLO_set_dimension_size_Op : StableHLO_Op<"set_dimension_size"> {
  let arguments = (ins AnyType:$operand, AnyType:$size, I64Attr:$dimension);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `,` $size `,` `dim` `=` $dimension attr-dict `:`
    functional-type(operands, results)
  }];
}

def StableHLO_gather_Op : StableHLO_Op<"gather"> {
  let arguments = (ins AnyType:$operand, AnyType:$start_indices,
                   Opt:$dimension_numbers, Opt:$slice_sizes,
                   Opt:$indices_are_sorted);
  let results = (outs AnyType:$result);
}

def StableHLO_dynamic_gather_Op : StableHLO_Op<"dynamic_gather"> {
  let arguments = (ins Variadic<AnyType>:$inputs, Opt:$dimension_numbers,
                   Opt:$indices_are_sorted);
  let results = (outs AnyType:$result);
}

def StableHLO_torch_index_select_Op : StableHLO_Op<"torch_index_select"> {
  let arguments = (ins AnyType:$operand, AnyType:$index, Opt:$dim,
                   Opt:$batch_dims);
  let results = (outs AnyType:$result);
}

def StableHLO_scatter_Op : StableHLO_Op<"scatter"> {
  let arguments = (ins Variadic<AnyType>:$operands,
                   Opt:$scatter_dimension_numbers, Opt:$indices_are_sorted,
                   Opt:$unique_indices);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$update_computation);
}

def StableHLO_sort_Op : StableHLO_Op<"sort"> {
  let arguments = (ins Variadic<AnyType>:$inputs, Opt:$dimension,
                   Opt:$is_stable);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$comparator);
}

//===----------------------------------------------------------------------===//
// Contractions, convolutions, reductions
//===----------------------------------------------------------------------===//

// `%a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
// precision = [DEFAULT, DEFAULT] : (...) -> ...` (batching_dims when any).
def StableHLO_dot_general_Op : StableHLO_Op<"dot_general"> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs,
                   AnyAttr:$dot_dimension_numbers, Opt:$precision_config,
                   Opt:$algorithm);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,`
    custom<DotTail>($dot_dimension_numbers, $precision_config, $algorithm)
    attr-dict `:` functional-type(operands, results)
  }];
}

def StableHLO_dot_Op : StableHLO_Op<"dot"> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs, Opt:$precision_config);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`,` `precision` `=` custom<PrecisionList>($precision_config)^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

class StableHLO_EinsumOp<string mnemonic, dag inputs>
    : StableHLO_Op<mnemonic> {
  let arguments = !con(inputs, (ins StrAttr:$einsum_config));
  let results = (outs AnyType:$result);
}
def StableHLO_einsum_Op
    : StableHLO_EinsumOp<"einsum", (ins AnyType:$lhs, AnyType:$rhs)> {
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `config` `=` $einsum_config attr-dict `:`
    functional-type(operands, results)
  }];
}
def StableHLO_unary_einsum_Op
    : StableHLO_EinsumOp<"unary_einsum", (ins AnyType:$operand)> {
  let assemblyFormat = [{
    $operand `,` `config` `=` $einsum_config attr-dict `:`
    functional-type(operands, results)
  }];
}

// `stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->
// [b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]}
// {feature_group_count = 1 : i64, ...} : (...) -> ...`.
def StableHLO_convolution_Op : StableHLO_Op<"convolution"> {
  let arguments = (ins AnyType:$lhs, AnyType:$rhs, Opt:$window_strides,
                   Opt:$padding, Opt:$lhs_dilation, Opt:$rhs_dilation,
                   Opt:$window_reversal, AnyAttr:$dimension_numbers,
                   Opt:$feature_group_count, Opt:$batch_group_count,
                   Opt:$precision_config);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    `(` $lhs `,` $rhs `)` `dim_numbers` `=`
    custom<ConvDims>($dimension_numbers) `,` `window` `=`
    custom<Window>($window_strides, $padding, $lhs_dilation, $rhs_dilation,
                   $window_reversal)
    attr-dict `:` functional-type(operands, results)
  }];
}

def StableHLO_dynamic_conv_Op : StableHLO_Op<"dynamic_conv"> {
  let arguments = (ins Variadic<AnyType>:$inputs, Opt:$window_strides,
                   Opt:$lhs_dilation, Opt:$rhs_dilation, Opt:$window_reversal,
                   Opt:$dimension_numbers, Opt:$feature_group_count,
                   Opt:$batch_group_count, Opt:$precision_config);
  let results = (outs AnyType:$result);
}

// `stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions =
// [1] : (...) -> ...`, or the `reducer(%a: T, %b: T) {...}` form.
// Operands: the N inputs, then the N initial values.
def StableHLO_reduce_Op : StableHLO_Op<"reduce"> {
  let arguments = (ins Variadic<AnyType>:$operands, AnyAttr:$dimensions);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def StableHLO_reduce_window_Op : StableHLO_Op<"reduce_window"> {
  let arguments = (ins Variadic<AnyType>:$operands, Opt:$window_dimensions,
                   Opt:$window_strides, Opt:$base_dilations,
                   Opt:$window_dilations, Opt:$padding);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$body);
}

def StableHLO_select_and_scatter_Op : StableHLO_Op<"select_and_scatter"> {
  let arguments = (ins AnyType:$operand, AnyType:$source,
                   AnyType:$init_value, Opt:$window_dimensions,
                   Opt:$window_strides, Opt:$padding);
  let results = (outs AnyType:$result);
  let regions = (region AnyRegion:$select, AnyRegion:$scatter);
}

class StableHLO_BatchNormOp<string mnemonic> : StableHLO_Op<mnemonic> {
  let arguments = (ins Variadic<AnyType>:$inputs, Opt:$epsilon,
                   Opt:$feature_index);
  let results = (outs Variadic<AnyType>:$outputs);
}
def StableHLO_batch_norm_training_Op
    : StableHLO_BatchNormOp<"batch_norm_training">;
def StableHLO_batch_norm_inference_Op
    : StableHLO_BatchNormOp<"batch_norm_inference">;
def StableHLO_batch_norm_grad_Op
    : StableHLO_BatchNormOp<"batch_norm_grad">;

def StableHLO_cholesky_Op : StableHLO_Op<"cholesky"> {
  let arguments = (ins AnyType:$a, OptionalAttr<BoolAttr>:$lower);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $a (`,` `lower` `=` $lower^)? attr-dict `:`
    custom<SameTypes>(type($a), type($result))
  }];
}

def StableHLO_triangular_solve_Op : StableHLO_Op<"triangular_solve"> {
  let arguments = (ins AnyType:$a, AnyType:$b, Opt:$left_side, Opt:$lower,
                   Opt:$unit_diagonal, Opt:$transpose_a);
  let results = (outs AnyType:$result);
}

def StableHLO_fft_Op : StableHLO_Op<"fft"> {
  let arguments = (ins AnyType:$operand, StableHLO_FftTypeAttr:$fft_type,
                   AnyAttr:$fft_length);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `,` `type` `=` $fft_type `,` `length` `=`
    custom<Dims>($fft_length) attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

def StableHLO_rng_Op : StableHLO_Op<"rng"> {
  let arguments = (ins AnyType:$a, AnyType:$b, AnyType:$shape,
                   StableHLO_RngDistributionAttr:$rng_distribution);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $shape `,` `distribution` `=` $rng_distribution attr-dict
    `:` functional-type(operands, results)
  }];
}

def StableHLO_rng_bit_generator_Op : StableHLO_Op<"rng_bit_generator"> {
  let arguments = (ins AnyType:$initial_state,
                   StableHLO_RngAlgorithmAttr:$rng_algorithm);
  let results = (outs AnyType:$output_state, AnyType:$output);
  let assemblyFormat = [{
    $initial_state `,` `algorithm` `=` $rng_algorithm attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Control flow, calls, tuples
//===----------------------------------------------------------------------===//

def StableHLO_return_Op : StableHLO_Op<"return", [Terminator]> {
  let arguments = (ins Variadic<AnyType>:$results);
  let assemblyFormat = "$results attr-dict (`:` type($results)^)?";
}

// `stablehlo.while(%iterArg = %x, ...) : T, ... cond {...} do {...}`; both
// regions name their arguments after the iteration values.
def StableHLO_while_Op : StableHLO_Op<"while", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let arguments = (ins Variadic<AnyType>:$operand);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$cond, AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def StableHLO_if_Op : StableHLO_Op<"if"> {
  let arguments = (ins AnyType:$pred);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$true_branch, AnyRegion:$false_branch);
}

def StableHLO_case_Op : StableHLO_Op<"case"> {
  let arguments = (ins AnyType:$index);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region VariadicRegion<AnyRegion>:$branches);
}

// `stablehlo.custom_call @target(%x) {backend_config = ""} : (...) -> ...`.
def StableHLO_custom_call_Op : StableHLO_Op<"custom_call"> {
  let arguments = (ins Variadic<AnyType>:$inputs, StrAttr:$call_target_name,
                   Opt:$has_side_effect, Opt:$backend_config,
                   Opt:$api_version, Opt:$called_computations,
                   Opt:$operand_layouts, Opt:$result_layouts,
                   Opt:$output_operand_aliases);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    custom<CallTarget>($call_target_name) `(` $inputs `)` attr-dict `:`
    functional-type(operands, results)
  }];
}

def StableHLO_composite_Op : StableHLO_Op<"composite"> {
  let arguments = (ins Variadic<AnyType>:$inputs, StrAttr:$name,
                   Opt:$composite_attributes, Opt:$decomposition,
                   Opt:$version);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $name $inputs attr-dict `:` functional-type(operands, results)
  }];
}

def StableHLO_optimization_barrier_Op
    : StableHLO_Op<"optimization_barrier"> {
  let arguments = (ins Variadic<AnyType>:$operand);
  let results = (outs Variadic<AnyType>:$result);
  let assemblyFormat = [{
    attr-dict ($operand^ `:`
               custom<PairwiseTypes>(type($operand), type($result))):(`(` `)`)?
  }];
}

def StableHLO_tuple_Op : StableHLO_Op<"tuple"> {
  let arguments = (ins Variadic<AnyType>:$val);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $val attr-dict `:` custom<TupleTypes>(type($val), type($result))
  }];
}

def StableHLO_get_tuple_element_Op : StableHLO_Op<"get_tuple_element"> {
  let arguments = (ins AnyType:$operand, I32Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $operand `[` $index `]` attr-dict `:` functional-type($operand, $result)
  }];
}

def StableHLO_async_start_Op : StableHLO_Op<"async_start"> {
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs AnyType:$future);
  let regions = (region AnyRegion:$body);
}

def StableHLO_async_done_Op : StableHLO_Op<"async_done"> {
  let arguments = (ins AnyType:$future);
  let results = (outs Variadic<AnyType>:$results);
}

//===----------------------------------------------------------------------===//
// Processes, tokens, host transfers (the collectives stay generic)
//===----------------------------------------------------------------------===//

class StableHLO_NullaryOp<string mnemonic> : StableHLO_Op<mnemonic> {
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}
def StableHLO_replica_id_Op : StableHLO_NullaryOp<"replica_id">;
def StableHLO_partition_id_Op : StableHLO_NullaryOp<"partition_id">;
def StableHLO_create_token_Op : StableHLO_NullaryOp<"create_token">;

def StableHLO_after_all_Op : StableHLO_Op<"after_all"> {
  let arguments = (ins Variadic<StableHLO_Token>:$inputs);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($result)";
}

def StableHLO_infeed_Op : StableHLO_Op<"infeed"> {
  let arguments = (ins AnyType:$token, Opt:$infeed_config, Opt:$layout);
  let results = (outs Variadic<AnyType>:$results);
}

def StableHLO_outfeed_Op : StableHLO_Op<"outfeed"> {
  let arguments = (ins Variadic<AnyType>:$inputs, Opt:$outfeed_config);
  let results = (outs AnyType:$result);
}

#endif
