// Passes that size every value (liveness, compute estimates) name the op
// whose tensor does not fit in a 64-bit count instead of pricing a wrapped
// size.
// RUN: not hccl-opt %s --comm-overlap-schedule 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not hccl-opt %s --comm-estimate 2>&1 | FileCheck %s --check-prefix=ESTIMATE
// RUN: not hccl-opt %s --comm-bucket-sizing 2>&1 | FileCheck %s --check-prefix=SIZING
// OVERLAP: size-overflow.mlir:[[@LINE+10]]:12: error: 'tensor.empty' op has a value of type 'tensor<2305843009213693952xf32>' whose elements or bytes do not fit in a 64-bit count; comm-overlap-schedule cannot size it
// ESTIMATE: error: 'tensor.empty' op has a value of type 'tensor<2305843009213693952xf32>' whose elements or bytes do not fit in a 64-bit count; comm-estimate cannot size it
// SIZING: error: 'tensor.empty' op has a value of type 'tensor<2305843009213693952xf32>' whose elements or bytes do not fit in a 64-bit count; comm-bucket-sizing cannot size it

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3]
  func.func @f(%b: tensor<4xf32>) -> tensor<4xf32> {
    %c = arith.addf %b, %b : tensor<4xf32>
    %r = comm.all_reduce sum %c on @g : tensor<4xf32>
    // 2^61 f32: the elements fit, the bytes (2^63) do not.
    %big = tensor.empty() : tensor<2305843009213693952xf32>
    return %r : tensor<4xf32>
  }
}
