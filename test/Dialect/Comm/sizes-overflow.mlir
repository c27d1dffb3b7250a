// Element counts and bytes that do not fit in int64_t. ShapedType's own
// count wraps: tensor<2^62 x 4 x f32> has "0" elements, lowered to
// `count 0` and exported a plan.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics

comm.group @g ranks = [0, 1, 2, 3]
func.func @elements(%a: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op operand #0 of type 'tensor<4611686018427387904x4xf32>' holds more elements or bytes than a 64-bit count can hold}}
  %r = comm.all_reduce sum %a on @g : tensor<4611686018427387904x4xf32>
  return %r : tensor<4611686018427387904x4xf32>
}

// -----

comm.group @g ranks = [0, 1, 2, 3]
func.func @bytes(%a: tensor<2305843009213693952xf32>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{operand #0 of type 'tensor<2305843009213693952xf32>' holds more elements or bytes than a 64-bit count can hold}}
  %r = comm.all_reduce sum %a on @g : tensor<2305843009213693952xf32>
  return %r : tensor<2305843009213693952xf32>
}

// -----

// Each operand fits, the fused buffer does not.
comm.group @g ranks = [0, 1, 2, 3]
func.func @total(%a: tensor<1152921504606846976xf32>, %b: tensor<1152921504606846976xf32>) {
  // expected-error @+1 {{'comm.all_reduce' op moves more bytes in all than a 64-bit count can hold}}
  %r:2 = comm.all_reduce sum %a, %b on @g : tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>
  return
}

// -----

// 2^61 x 8 ranks wrapped to 0, which matched the result's 0.
comm.group @g8 ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @gather(%a: tensor<2305843009213693952xi8>) -> tensor<0xi8> {
  // expected-error @+1 {{result size along dim 0: 2305843009213693952 x group size 8 does not fit in a 64-bit count}}
  %r = comm.all_gather %a on @g8 dim 0 : tensor<2305843009213693952xi8> -> tensor<0xi8>
  return %r : tensor<0xi8>
}

// -----

// expected-error @+1 {{'comm.program' op count 4611686018427387904 of 'f32' holds more bytes than a 64-bit count can hold}}
comm.program @p all_reduce sum algo <ring> ranks 2 count 4611686018427387904 : f32 {
^bb0(%r: index, %p: index, %n: index):
  %c0 = arith.constant 0 : index
  comm.buffers input %n output %n scratch %c0
}
