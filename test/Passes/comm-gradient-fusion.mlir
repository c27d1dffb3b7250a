// comm-gradient-fusion materialises the buckets of comm-bucket-sizing.
// RUN: hccl-opt %s --comm-gradient-fusion | FileCheck %s
// Running it twice changes nothing more (fused ops are single members).
// RUN: hccl-opt %s --comm-gradient-fusion --comm-gradient-fusion | FileCheck %s

comm.group @dp ranks = [0, 1, 2, 3]
comm.group @tp ranks = [[0, 1], [2, 3]]

// One bucket: one variadic all_reduce where the last member was, every
// member's uses rewired to its slot of the fused results.
// CHECK-LABEL: func.func @fused_bucket
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<2x2xf32>)
// CHECK-NEXT: %[[R:.*]]:3 = comm.all_reduce sum %[[A]], %[[B]], %[[C]] on @dp {comm.bucket = 0 : i64} : tensor<4xf32>, tensor<8xf32>, tensor<2x2xf32>
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @fused_bucket(%a: tensor<4xf32>, %b: tensor<8xf32>, %c: tensor<2x2xf32>)
    -> (tensor<4xf32>, tensor<8xf32>, tensor<2x2xf32>) {
  %ra = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %rb = comm.all_reduce sum %b on @dp {comm.bucket = 0} : tensor<8xf32>
  %rc = comm.all_reduce sum %c on @dp {comm.bucket = 0} : tensor<2x2xf32>
  return %ra, %rb, %rc : tensor<4xf32>, tensor<8xf32>, tensor<2x2xf32>
}

// Different buckets stay apart; all_reduces without a bucket are untouched.
// CHECK-LABEL: func.func @two_buckets
// CHECK: %[[X:.*]]:2 = comm.all_reduce sum %{{.*}}, %{{.*}} on @dp {comm.bucket = 0 : i64}
// CHECK: %[[Y:.*]]:2 = comm.all_reduce sum %{{.*}}, %{{.*}} on @dp {comm.bucket = 1 : i64}
// CHECK: %[[Z:.*]] = comm.all_reduce sum %{{.*}} on @dp : tensor<4xf32>
// CHECK: return %[[X]]#0, %[[X]]#1, %[[Y]]#0, %[[Y]]#1, %[[Z]]
func.func @two_buckets(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %1 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %a on @dp {comm.bucket = 1} : tensor<4xf32>
  %3 = comm.all_reduce sum %a on @dp {comm.bucket = 1} : tensor<4xf32>
  %4 = comm.all_reduce sum %a on @dp : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Members that disagree on the key (element type, reduction, group) are
// fused per key, each at its last member.
// CHECK-LABEL: func.func @key_splits
// CHECK: %[[F:.*]]:2 = comm.all_reduce sum %[[A0:.*]], %[[A1:.*]] on @dp {comm.bucket = 0 : i64} : tensor<4xf32>, tensor<4xf32>
// CHECK: %[[H:.*]]:2 = comm.all_reduce sum %{{.*}}, %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<4xbf16>, tensor<4xbf16>
// CHECK: %[[M:.*]] = comm.all_reduce max %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<4xf32>
// CHECK: %[[T:.*]] = comm.all_reduce sum %{{.*}} on @tp {comm.bucket = 0 : i64} : tensor<4xf32>
// CHECK: return %[[F]]#0, %[[H]]#0, %[[F]]#1, %[[H]]#1, %[[M]], %[[T]]
func.func @key_splits(%a: tensor<4xf32>, %h: tensor<4xbf16>)
    -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %1 = comm.all_reduce sum %h on @dp {comm.bucket = 0} : tensor<4xbf16>
  %2 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %3 = comm.all_reduce sum %h on @dp {comm.bucket = 0} : tensor<4xbf16>
  %4 = comm.all_reduce max %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %5 = comm.all_reduce sum %a on @tp {comm.bucket = 0} : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>
}

// The second member's input is computed from the first member's result:
// fusing them would make the bucket depend on itself, so it is split.
// CHECK-LABEL: func.func @cycle_split
// CHECK: %[[R0:.*]] = comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[R0]], %[[R0]]
// CHECK-NEXT: %[[R1:.*]]:2 = comm.all_reduce sum %[[D]], %{{.*}} on @dp {comm.bucket = 0 : i64}
// CHECK-NEXT: return %[[R0]], %[[R1]]#0, %[[R1]]#1
func.func @cycle_split(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %d = arith.addf %0, %0 : tensor<4xf32>
  %1 = comm.all_reduce sum %d on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %b on @dp {comm.bucket = 0} : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// The same when the second member reduces the first one's result directly.
// CHECK-LABEL: func.func @direct_cycle_split
// CHECK-NEXT: %[[R0:.*]] = comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<4xf32>
// CHECK-NEXT: %[[R1:.*]]:2 = comm.all_reduce sum %[[R0]], %{{.*}} on @dp {comm.bucket = 0 : i64}
// CHECK-NEXT: return %[[R1]]#0, %[[R1]]#1
func.func @direct_cycle_split(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %1 = comm.all_reduce sum %0 on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %b on @dp {comm.bucket = 0} : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// A pure user of the first member that sat between the members moves after
// the fused op, keeping its own order with the other moved ops.
// CHECK-LABEL: func.func @moved_user
// CHECK-NEXT: %[[G:.*]] = arith.mulf
// CHECK-NEXT: %[[R:.*]]:2 = comm.all_reduce sum %{{.*}}, %[[G]] on @dp {comm.bucket = 3 : i64}
// CHECK-NEXT: %[[U:.*]] = arith.addf %[[R]]#0, %[[R]]#0
// CHECK-NEXT: %[[V:.*]] = arith.negf %[[U]]
// CHECK-NEXT: return %[[V]], %[[R]]#1
func.func @moved_user(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 3} : tensor<4xf32>
  %u = arith.addf %0, %0 : tensor<4xf32>
  %v = arith.negf %u : tensor<4xf32>
  %g = arith.mulf %b, %b : tensor<4xf32>
  %1 = comm.all_reduce sum %g on @dp {comm.bucket = 3} : tensor<4xf32>
  return %v, %1 : tensor<4xf32>, tensor<4xf32>
}

// A user with side effects would have to move: the bucket is split there.
// CHECK-LABEL: func.func @side_effect_split
// CHECK-NEXT: %[[R0:.*]] = comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<4xf32>
// CHECK-NEXT: call @sink(%[[R0]])
// CHECK-NEXT: %[[R1:.*]]:2 = comm.all_reduce sum
// CHECK-NEXT: return %[[R1]]#0, %[[R1]]#1
func.func private @sink(tensor<4xf32>)
func.func @side_effect_split(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  func.call @sink(%0) : (tensor<4xf32>) -> ()
  %1 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
