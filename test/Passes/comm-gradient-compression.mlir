// comm-gradient-compression: f32 sum all-reduces run in bf16 or fp16.
// RUN: hccl-opt %s --comm-gradient-compression | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: hccl-opt %s --comm-gradient-compression=dtype=bf16 | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: hccl-opt %s --comm-gradient-compression=dtype=fp16 | FileCheck %s --check-prefixes=CHECK,FP16
// The cost model sees half the bytes.
// RUN: hccl-opt %s --comm-gradient-compression --comm-estimate -o /dev/null | FileCheck %s --check-prefix=COST
// RUN: hccl-opt %s --comm-estimate -o /dev/null | FileCheck %s --check-prefix=FULL

module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]

// A fused bucket: every input is narrowed, every result widened; the bucket
// and algorithm attributes stay.
// CHECK-LABEL: func.func @bucket
// CHECK-SAME:  (%[[A:.*]]: tensor<1024xf32>, %[[B:.*]]: tensor<4x4xf32>)
// BF16-NEXT:   %[[NA:.*]] = arith.truncf %[[A]] : tensor<1024xf32> to tensor<1024xbf16>
// BF16-NEXT:   %[[NB:.*]] = arith.truncf %[[B]] : tensor<4x4xf32> to tensor<4x4xbf16>
// BF16-NEXT:   %[[R:.*]]:2 = comm.all_reduce sum %[[NA]], %[[NB]] on @dp algo <ring> {comm.bucket = 3 : i64} : tensor<1024xbf16>, tensor<4x4xbf16>
// BF16-NEXT:   %[[WA:.*]] = arith.extf %[[R]]#0 : tensor<1024xbf16> to tensor<1024xf32>
// BF16-NEXT:   %[[WB:.*]] = arith.extf %[[R]]#1 : tensor<4x4xbf16> to tensor<4x4xf32>
// BF16-NEXT:   arith.addf %[[WA]], %[[A]]
// BF16-NEXT:   return %{{.*}}, %[[WB]]
// FP16:        arith.truncf %{{.*}} : tensor<1024xf32> to tensor<1024xf16>
// FP16:        comm.all_reduce sum %{{.*}}, %{{.*}} on @dp algo <ring> {comm.bucket = 3 : i64} : tensor<1024xf16>, tensor<4x4xf16>
// FP16:        arith.extf %{{.*}} : tensor<4x4xf16> to tensor<4x4xf32>
// COST: #0 all_reduce @dp p=8 bytes=2080 algo=ring
// FULL: #0 all_reduce @dp p=8 bytes=4160 algo=ring
func.func @bucket(%a: tensor<1024xf32>, %b: tensor<4x4xf32>) -> (tensor<1024xf32>, tensor<4x4xf32>) {
  %r:2 = comm.all_reduce sum %a, %b on @dp algo <ring> {comm.bucket = 3} : tensor<1024xf32>, tensor<4x4xf32>
  %s = arith.addf %r#0, %a : tensor<1024xf32>
  return %s, %r#1 : tensor<1024xf32>, tensor<4x4xf32>
}

// Left alone: max (rounding would change which value wins), integers,
// already-narrow tensors, and other collectives.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:   arith.truncf
// CHECK:       comm.all_reduce max %{{.*}} on @dp : tensor<8xf32>
// CHECK-NEXT:  comm.all_reduce sum %{{.*}} on @dp : tensor<8xi32>
// CHECK-NEXT:  comm.all_reduce sum %{{.*}} on @dp : tensor<8xbf16>
// CHECK-NEXT:  comm.all_gather %{{.*}} on @dp dim 0 : tensor<8xf32> -> tensor<64xf32>
// CHECK-NOT:   arith.extf
// CHECK:       return
func.func @untouched(%a: tensor<8xf32>, %i: tensor<8xi32>, %h: tensor<8xbf16>)
    -> (tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<64xf32>) {
  %0 = comm.all_reduce max %a on @dp : tensor<8xf32>
  %1 = comm.all_reduce sum %i on @dp : tensor<8xi32>
  %2 = comm.all_reduce sum %h on @dp : tensor<8xbf16>
  %3 = comm.all_gather %a on @dp dim 0 : tensor<8xf32> -> tensor<64xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<64xf32>
}
}
