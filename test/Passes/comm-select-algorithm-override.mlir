// comm-select-algorithm: overrides that cannot serve a group or a
// collective are errors at the op.
// RUN: hccl-opt %s -verify-diagnostics --comm-select-algorithm="algo=allreduce=level0:ring;level1:ring"
// RUN: not hccl-opt %s --comm-select-algorithm=algo=alltoall=level0:ring 2>&1 | FileCheck %s --check-prefix=SERVE

// SERVE: comm-select-algorithm-override.mlir:[[# @LINE + 13]]:8: error: 'comm.all_to_all' op no algorithm can serve alltoall on group @even (p = 4): HCCL_ALGO: level0 algorithm 'ring' cannot serve alltoall
// SERVE-NOT: error

// Forcing the two-level form: @twelve has 8 ranks on one server and 4 on
// the other, so no hierarchical algorithm fits it and no flat one is
// allowed. Two ranks per server (@even) is fine.
module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @twelve ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
comm.group @even ranks = [0, 1, 8, 9]
func.func @uneven(%a: tensor<12xf32>) -> (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) {
  // expected-error @+1 {{'comm.all_reduce' op no algorithm can serve allreduce on group @twelve (p = 12): no flat algorithm is allowed, and the group's ranks are not spread evenly over the servers}}
  %0 = comm.all_reduce sum %a on @twelve : tensor<12xf32>
  %1 = comm.all_reduce sum %a on @even : tensor<12xf32>
  %2 = comm.all_to_all %a on @even split_dim 0 concat_dim 0 : tensor<12xf32> -> tensor<12xf32>
  return %0, %1, %2 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
}
}
