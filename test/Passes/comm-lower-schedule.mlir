// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-verify-schedule | FileCheck %s
// The lowered IR verifies and round-trips.
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule | hccl-opt -split-input-file --comm-verify-schedule > /dev/null
// slices= fills in the chunking of algorithms that have none.
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule=slices=4 | FileCheck %s --check-prefix=SLICES

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]

  // A fused bucket lowers as one flat buffer of all its elements.
  // Programs are module-level symbols, placed before their first user.
  // CHECK: comm.program @allreduce_ring_p8_n1040_fp32_sum all_reduce sum algo <ring> ranks 8 count 1040 : f32 {
  // CHECK-NEXT: ^bb0(%[[R:.*]]: index, %[[P:.*]]: index, %[[N:.*]]: index):
  // CHECK: comm.buffers input %[[N]] output %[[N]]
  // CHECK: comm.phase "rs" steps 1
  // CHECK: comm.phase "rs" steps 6
  // CHECK: comm.phase "ag" steps 1
  // CHECK: comm.phase "ag" steps 6
  // CHECK-LABEL: func.func @bucket
  // CHECK: %[[S:.*]]:2 = comm.schedule @allreduce_ring_p8_n1040_fp32_sum all_reduce sum (%{{.*}}, %{{.*}}) on @dp algo <ring> {comm.bucket = 2 : i64} : (tensor<1024xf32>, tensor<16xf32>) -> (tensor<1024xf32>, tensor<16xf32>)
  // CHECK-NOT: comm.all_reduce
  // CHECK: return %[[S]]#0, %[[S]]#1
  // SLICES-LABEL: func.func @bucket
  // SLICES: algo <ring, slices = 4>
  func.func @bucket(%a: tensor<1024xf32>, %b: tensor<16xf32>) -> (tensor<1024xf32>, tensor<16xf32>) {
    %r:2 = comm.all_reduce sum %a, %b on @dp algo <ring> {comm.bucket = 2} : tensor<1024xf32>, tensor<16xf32>
    return %r#0, %r#1 : tensor<1024xf32>, tensor<16xf32>
  }

  // Every collective kind, with the algorithms that serve it.
  // CHECK: comm.program @allgather_rhd_p8_n32_fp32 all_gather algo <rhd> ranks 8 count 32 : f32
  // CHECK: comm.program @reducescatter_mesh_p8_n8_bf16_max reduce_scatter max algo <mesh> ranks 8 count 8 : bf16
  // CHECK: comm.program @broadcast_tree_p8_n16_int32_root3 broadcast algo <tree> ranks 8 count 16 root 3 : i32
  // CHECK: comm.program @broadcast_ring_p8_n16_int32_s2_root0 broadcast algo <ring, slices = 2> ranks 8 count 16 : i32
  // CHECK: comm.program @reduce_star_p8_n16_int32_min_root7 reduce min algo <star> ranks 8 count 16 root 7 : i32
  // CHECK: comm.program @alltoall_pairwise_p8_n2_fp16 all_to_all algo <pairwise> ranks 8 count 2 : f16
  // CHECK: comm.program @allreduce_rd_p8_n3_fp64_prod all_reduce prod algo <rd> ranks 8 count 3 : f64
  // CHECK: comm.program @allreduce_mesh_oneshot_p8_n3_fp64_sum all_reduce sum algo <mesh_oneshot> ranks 8 count 3 : f64
  // CHECK-LABEL: func.func @kinds
  // CHECK: comm.schedule @allgather_rhd_p8_n32_fp32 all_gather (%{{.*}}) on @dp algo <rhd> : (tensor<4x8xf32>) -> tensor<32x8xf32>
  // CHECK: comm.schedule @reducescatter_mesh_p8_n8_bf16_max reduce_scatter max (%{{.*}}) on @dp algo <mesh> : (tensor<64xbf16>) -> tensor<8xbf16>
  // CHECK: comm.schedule @broadcast_tree_p8_n16_int32_root3 broadcast (%{{.*}}) on @dp algo <tree> : (tensor<16xi32>) -> tensor<16xi32>
  // CHECK: comm.schedule @broadcast_ring_p8_n16_int32_s2_root0 broadcast (%{{.*}}) on @dp algo <ring, slices = 2> : (tensor<16xi32>) -> tensor<16xi32>
  // CHECK: comm.schedule @reduce_star_p8_n16_int32_min_root7 reduce min (%{{.*}}) on @dp algo <star> : (tensor<16xi32>) -> tensor<16xi32>
  // CHECK: comm.schedule @alltoall_pairwise_p8_n2_fp16 all_to_all (%{{.*}}) on @dp algo <pairwise> : (tensor<16xf16>) -> tensor<16xf16>
  // CHECK: comm.schedule @allreduce_rd_p8_n3_fp64_prod all_reduce prod (%{{.*}}) on @dp algo <rd> : (tensor<3xf64>) -> tensor<3xf64>
  // CHECK: comm.schedule @allreduce_mesh_oneshot_p8_n3_fp64_sum all_reduce sum (%{{.*}}) on @dp algo <mesh_oneshot> : (tensor<3xf64>) -> tensor<3xf64>
  func.func @kinds(%x: tensor<4x8xf32>, %y: tensor<64xbf16>, %z: tensor<16xi32>, %w: tensor<16xf16>, %v: tensor<3xf64>) {
    %0 = comm.all_gather %x on @dp dim 0 algo <rhd> : tensor<4x8xf32> -> tensor<32x8xf32>
    %1 = comm.reduce_scatter max %y on @dp dim 0 algo <mesh> : tensor<64xbf16> -> tensor<8xbf16>
    %2 = comm.broadcast %z on @dp root 3 algo <tree> : tensor<16xi32>
    %3 = comm.broadcast %z on @dp root 0 algo <ring, slices = 2> : tensor<16xi32>
    %4 = comm.reduce min %z on @dp root 7 algo <star> : tensor<16xi32>
    %5 = comm.all_to_all %w on @dp split_dim 0 concat_dim 0 algo <pairwise> : tensor<16xf16> -> tensor<16xf16>
    %6 = comm.all_reduce prod %v on @dp algo <rd> : tensor<3xf64>
    %7 = comm.all_reduce sum %v on @dp algo <mesh_oneshot> : tensor<3xf64>
    return
  }

  // Without an algo attribute, the cheapest for the topology is used; a
  // tiny message on 910b-8 takes a latency-bound algorithm, a large one a
  // bandwidth-bound one.
  // CHECK-LABEL: func.func @auto
  // CHECK: comm.schedule @allreduce_{{mesh_oneshot|rd|rhd|mesh}}_p8_n4_fp32_sum all_reduce sum
  // CHECK: comm.schedule @allreduce_{{mesh|ring|rhd}}_p8_n16777216_fp32_sum all_reduce sum
  func.func @auto(%a: tensor<4xf32>, %b: tensor<16777216xf32>) {
    %0 = comm.all_reduce sum %a on @dp : tensor<4xf32>
    %1 = comm.all_reduce sum %b on @dp : tensor<16777216xf32>
    return
  }

  // Started collectives lower in place, the async pair stays.
  // CHECK-LABEL: func.func @async
  // CHECK: comm.start {
  // CHECK-NEXT: %[[X:.*]] = comm.schedule @allreduce_ring_p8_n64_fp32_sum all_reduce sum
  // CHECK: comm.yield %[[X]] : tensor<64xf32>
  // CHECK: comm.wait
  func.func @async(%a: tensor<64xf32>) -> tensor<64xf32> {
    %t = comm.start {
      %r = comm.all_reduce sum %a on @dp algo <ring> : tensor<64xf32>
      comm.yield %r : tensor<64xf32>
    }
    %m = arith.mulf %a, %a : tensor<64xf32>
    %w = comm.wait %t : tensor<64xf32>
    return %w : tensor<64xf32>
  }
}

// -----

// Hierarchical on two 910B servers: intra-server level0, inter-server level1.
// CHECK: comm.program @allreduce_hierarchical_mesh_ring_p16_n4096_fp32_sum_m8 all_reduce sum algo <hierarchical(mesh, ring)> ranks 16 count 4096
// CHECK: comm.param "m" = 8
// CHECK-LABEL: func.func @hierarchical
// CHECK: comm.schedule @allreduce_hierarchical_mesh_ring_p16_n4096_fp32_sum_m8 all_reduce sum (%{{.*}}) on @world
module attributes {comm.topology = #comm.topology<"910b-8x2">} {
  comm.group @world ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
  func.func @hierarchical(%a: tensor<4096xf32>) -> tensor<4096xf32> {
    %r = comm.all_reduce sum %a on @world algo <hierarchical(mesh, ring)> : tensor<4096xf32>
    return %r : tensor<4096xf32>
  }
}

// -----

// The IR does not grow with the group size: a ring or mesh all-reduce on
// 64 ranks has exactly the ops of one on 8 ranks (@bucket above: 8 step ops
// for the ring; @auto: 6 repeats for the mesh).
// CHECK: comm.program @allreduce_ring_p64_n65536_fp32_sum
// CHECK-COUNT-8: comm.step.
// CHECK-NOT: comm.step.
// CHECK-LABEL: func.func @big_ring
// CHECK: comm.program @allreduce_mesh_p64_n65536_fp32_sum
// CHECK-COUNT-6: comm.repeat
// CHECK-NOT: comm.repeat
// CHECK-LABEL: func.func @big_mesh

module {
  comm.group @big ranks = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]]
  func.func @big_ring(%a: tensor<65536xf32>) -> tensor<65536xf32> {
    %r = comm.all_reduce sum %a on @big algo <ring> : tensor<65536xf32>
    return %r : tensor<65536xf32>
  }
  func.func @big_mesh(%a: tensor<65536xf32>) -> tensor<65536xf32> {
    %r = comm.all_reduce sum %a on @big algo <mesh> : tensor<65536xf32>
    return %r : tensor<65536xf32>
  }
}

// -----

// Identical collectives share one program: three all-reduces of the same
// size and type lower to one comm.program and three schedules.
// CHECK-COUNT-1: comm.program @allreduce_ring_p4_n256_fp32_sum
// CHECK-NOT: comm.program
// CHECK-LABEL: func.func @layers
// CHECK-COUNT-3: comm.schedule @allreduce_ring_p4_n256_fp32_sum
// Lowering again reuses the program instead of adding a copy.
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule | hccl-opt -split-input-file --comm-lower-schedule | FileCheck %s --check-prefix=AGAIN
// AGAIN-COUNT-1: comm.program @allreduce_ring_p4_n256_fp32_sum
// AGAIN-NOT: comm.program @allreduce_ring_p4_n256_fp32_sum
module {
  comm.group @tp ranks = [0, 1, 2, 3]
  func.func @layers(%a: tensor<256xf32>, %b: tensor<16x16xf32>, %c: tensor<256xf32>) {
    %0 = comm.all_reduce sum %a on @tp algo <ring> : tensor<256xf32>
    %1 = comm.all_reduce sum %b on @tp algo <ring> : tensor<16x16xf32>
    %2 = comm.all_reduce sum %c on @tp algo <ring> : tensor<256xf32>
    return
  }
}
