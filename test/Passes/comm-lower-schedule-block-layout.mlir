// Collectives along a dimension that is not the leading one lower to
// programs in a block layout (docs/step-programs.md): the product of the
// dimensions before it is the rows of every block, on the side holding the
// p blocks; the verifier proves each program in that layout.
// RUN: hccl-opt %s --comm-lower-schedule --comm-verify-schedule | FileCheck %s

comm.group @tp ranks = [0, 1, 2, 3]

// CHECK-DAG: comm.program @allgather_ring_p4_n32_fp32_out4 all_gather algo <ring> ranks 4 count 32 output_outer 4 : f32
// CHECK-DAG: comm.program @reducescatter_rhd_p4_n8_fp32_sum_in4 reduce_scatter sum algo <rhd> ranks 4 count 8 input_outer 4 : f32
// CHECK-DAG: comm.program @alltoall_pairwise_p4_n8_fp32_in4 all_to_all algo <pairwise> ranks 4 count 8 input_outer 4 : f32
// CHECK-DAG: comm.program @alltoall_mesh_p4_n8_fp32_out2 all_to_all algo <mesh> ranks 4 count 8 output_outer 2 : f32
// Leading dimensions (and outer dimensions of 1) keep the plain layout.
// CHECK-DAG: comm.program @allgather_mesh_p4_n8_fp32 all_gather algo <mesh> ranks 4 count 8 : f32
func.func @layers(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<1x8xf32>, %d: tensor<8x4xf32>)
    -> (tensor<4x32xf32>, tensor<4x2xf32>, tensor<16x2xf32>, tensor<1x32xf32>, tensor<2x16xf32>) {
  // CHECK: comm.schedule @allgather_ring_p4_n32_fp32_out4
  %0 = comm.all_gather %a on @tp dim 1 algo <ring> : tensor<4x8xf32> -> tensor<4x32xf32>
  // CHECK: comm.schedule @reducescatter_rhd_p4_n8_fp32_sum_in4
  %1 = comm.reduce_scatter sum %b on @tp dim 1 algo <rhd> : tensor<4x8xf32> -> tensor<4x2xf32>
  // split dimension 1 (4 input rows), concat dimension 0 (leading output)
  // CHECK: comm.schedule @alltoall_pairwise_p4_n8_fp32_in4
  %2 = comm.all_to_all %b on @tp split_dim 1 concat_dim 0 algo <pairwise> : tensor<4x8xf32> -> tensor<16x2xf32>
  // CHECK: comm.schedule @allgather_mesh_p4_n8_fp32
  %3 = comm.all_gather %c on @tp dim 1 algo <mesh> : tensor<1x8xf32> -> tensor<1x32xf32>
  // split dimension 0, concat dimension 1 (2 output rows)
  // CHECK: comm.schedule @alltoall_mesh_p4_n8_fp32_out2
  %4 = comm.all_to_all %d on @tp split_dim 0 concat_dim 1 algo <mesh> : tensor<8x4xf32> -> tensor<2x16xf32>
  return %0, %1, %2, %3, %4 : tensor<4x32xf32>, tensor<4x2xf32>, tensor<16x2xf32>, tensor<1x32xf32>, tensor<2x16xf32>
}
