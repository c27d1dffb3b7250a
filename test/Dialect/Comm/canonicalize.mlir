// RUN: hccl-opt %s --canonicalize --cse | FileCheck %s

comm.group @solo ranks = [[0], [1], [2], [3]]
comm.group @dp ranks = [0, 1, 2, 3]

// A collective over one-rank groups is the identity.
// CHECK-LABEL: func.func @singleton_identity
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<4xi32>)
// CHECK-NOT: comm.
// CHECK: return %[[A]], %[[B]], %[[A]], %[[A]], %[[A]], %[[A]], %[[A]]
func.func @singleton_identity(%a: tensor<8xf32>, %b: tensor<4xi32>)
    -> (tensor<8xf32>, tensor<4xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r:2 = comm.all_reduce sum %a, %b on @solo : tensor<8xf32>, tensor<4xi32>
  %g = comm.all_gather %a on @solo dim 0 : tensor<8xf32> -> tensor<8xf32>
  %s = comm.reduce_scatter max %a on @solo dim 0 : tensor<8xf32> -> tensor<8xf32>
  %bc = comm.broadcast %a on @solo root 0 : tensor<8xf32>
  %rd = comm.reduce min %a on @solo root 0 : tensor<8xf32>
  %aa = comm.all_to_all %a on @solo split_dim 0 concat_dim 0 : tensor<8xf32> -> tensor<8xf32>
  comm.barrier on @solo
  return %r#0, %r#1, %g, %s, %bc, %rd, %aa : tensor<8xf32>, tensor<4xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// Real groups keep their collectives, even when a result is unused (every
// rank must still take part).
// CHECK-LABEL: func.func @real_group_kept
// CHECK: comm.all_reduce sum
// CHECK: comm.all_gather
// CHECK: comm.barrier on @dp
func.func @real_group_kept(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = comm.all_reduce sum %a on @dp : tensor<8xf32>
  %g = comm.all_gather %a on @dp dim 0 : tensor<8xf32> -> tensor<32xf32>
  comm.barrier on @dp
  return %a : tensor<8xf32>
}

// Two identical collectives are not merged by CSE: both must run.
// CHECK-LABEL: func.func @no_cse
// CHECK-COUNT-2: comm.all_reduce sum
func.func @no_cse(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<8xf32>
  %1 = comm.all_reduce sum %a on @dp : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// A start immediately followed by its wait is the synchronous op.
// CHECK-LABEL: func.func @adjacent_start_wait
// CHECK-NOT: comm.start
// CHECK-NOT: comm.wait
// CHECK: %[[R:.*]]:2 = comm.all_reduce sum %{{.*}}, %{{.*}} on @dp algo <ring> : tensor<8xf32>, tensor<2xf16>
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @adjacent_start_wait(%a: tensor<8xf32>, %b: tensor<2xf16>) -> (tensor<8xf32>, tensor<2xf16>) {
  %t = comm.start {
    %r:2 = comm.all_reduce sum %a, %b on @dp algo <ring> : tensor<8xf32>, tensor<2xf16>
    comm.yield %r#0, %r#1 : tensor<8xf32>, tensor<2xf16>
  }
  %w:2 = comm.wait %t : tensor<8xf32>, tensor<2xf16>
  return %w#0, %w#1 : tensor<8xf32>, tensor<2xf16>
}

// With compute in between, the asynchronous pair stays.
// CHECK-LABEL: func.func @overlapped_start_wait
// CHECK: comm.start
// CHECK: arith.mulf
// CHECK: comm.wait
func.func @overlapped_start_wait(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<8xf32>
    comm.yield %r : tensor<8xf32>
  }
  %m = arith.mulf %a, %a : tensor<8xf32>
  %w = comm.wait %t : tensor<8xf32>
  return %w, %m : tensor<8xf32>, tensor<8xf32>
}

// A started collective on one-rank groups disappears entirely.
// CHECK-LABEL: func.func @singleton_start
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>)
// CHECK-NOT: comm.
// CHECK: return %[[A]], %{{.*}}
func.func @singleton_start(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @solo : tensor<8xf32>
    comm.yield %r : tensor<8xf32>
  }
  %m = arith.mulf %a, %a : tensor<8xf32>
  %w = comm.wait %t : tensor<8xf32>
  return %w, %m : tensor<8xf32>, tensor<8xf32>
}

// A started barrier immediately waited is a barrier.
// CHECK-LABEL: func.func @barrier_start_wait
// CHECK-NEXT: comm.barrier on @dp
// CHECK-NEXT: return
func.func @barrier_start_wait() {
  %t = comm.start {
    comm.barrier on @dp
    comm.yield
  }
  comm.wait %t
  return
}
