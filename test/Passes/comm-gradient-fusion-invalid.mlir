// comm-gradient-fusion's precondition: bucket ids as comm-bucket-sizing
// writes them (non-negative integers). Anything else is rejected at the op
// before the pass runs, never fused by guess; and an unknown option is an
// option error.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics --comm-gradient-fusion
// RUN: not hccl-opt %S/comm-gradient-fusion.mlir --comm-gradient-fusion=policy=optimal 2>&1 | FileCheck %s --check-prefix=OPT

// OPT: error: <Pass-Options-Parser>: no such option policy

comm.group @dp ranks = [0, 1, 2, 3]
func.func @string_id(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ra = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  // expected-error @+1 {{'comm.bucket' must be a non-negative integer, found "0"}}
  %rb = comm.all_reduce sum %b on @dp {comm.bucket = "0"} : tensor<4xf32>
  return %ra, %rb : tensor<4xf32>, tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @float_id(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.bucket' must be a non-negative integer, found 1.000000e+00 : f64}}
  %ra = comm.all_reduce sum %a on @dp {comm.bucket = 1.0 : f64} : tensor<4xf32>
  return %ra : tensor<4xf32>
}

// -----

// A member whose group symbol is missing: diagnosed at the op.
func.func @no_group(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op references unknown group @missing}}
  %ra = comm.all_reduce sum %a on @missing {comm.bucket = 0} : tensor<4xf32>
  return %ra : tensor<4xf32>
}
