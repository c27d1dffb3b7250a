// comm-gradient-compression: option value and ordering precondition.
// RUN: hccl-opt %s -verify-diagnostics --comm-gradient-compression
// RUN: not hccl-opt %s --comm-gradient-compression=dtype=fp8 2>&1 | FileCheck %s --check-prefix=DTYPE

// DTYPE: error: comm-gradient-compression: option dtype='fp8' is not valid: expected bf16 or fp16

comm.group @dp ranks = [0, 1, 2, 3]
// Casts cannot go inside comm.start: compression must run before overlap.
func.func @started(%a: tensor<4xf32>) -> tensor<4xf32> {
  %t = comm.start {
    // expected-error @+1 {{'comm.all_reduce' op is already started asynchronously; run comm-gradient-compression before comm-overlap-schedule}}
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  %r = comm.wait %t : tensor<4xf32>
  return %r : tensor<4xf32>
}
