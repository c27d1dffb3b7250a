// A hierarchical all-gather whose level0 ring (or H-D_R) repeats steps: the
// values a repeat's fields compute per phase step must be defined before
// the repeat (they once came after it: "operand does not dominate this
// use"). The pipeline verifies the IR after each pass and the program on
// every rank.
// RUN: hccl-opt %s -split-input-file "--hccl-pipeline=algo=level0:ring;level1:ring" | FileCheck %s --check-prefix=RING
// RUN: hccl-opt %s -split-input-file "--hccl-pipeline=algo=level0:H-D_R;level1:ring" | FileCheck %s --check-prefix=HDR

// RING: comm.program @allgather_hierarchical_ring_ring_p16_n64_fp32_m8
// RING: comm.phase "l0_ag" steps 6 (%s) {
// RING: %[[SEND:.*]] = comm.emod
// RING-NEXT: comm.repeat
// RING: arith.addi %{{.*}}, %[[SEND]] : index
// RING: comm.step.send
// RING: %[[RECV:.*]] = comm.emod
// RING-NEXT: comm.repeat
// RING: arith.addi %{{.*}}, %[[RECV]] : index
// RING: comm.step.recv
// RING: comm.schedule @allgather_hierarchical_ring_ring_p16_n64_fp32_m8
// HDR: comm.program @allgather_hierarchical_rhd_ring_p16_n64_fp32_m8
// HDR: comm.schedule @allgather_hierarchical_rhd_ring_p16_n64_fp32_m8
module attributes {comm.topology = #comm.topology<"910b-8x2">} {
  comm.group @w ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
  func.func @gather(%x: tensor<64xf32>) -> tensor<1024xf32> {
    %0 = comm.all_gather %x on @w dim 0 : tensor<64xf32> -> tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}

// -----

// RING: comm.program @allgather_hierarchical_ring_ring_p32_n64_fp32_m8
// RING: comm.schedule @allgather_hierarchical_ring_ring_p32_n64_fp32_m8
// HDR: comm.program @allgather_hierarchical_rhd_ring_p32_n64_fp32_m8
// HDR: comm.schedule @allgather_hierarchical_rhd_ring_p32_n64_fp32_m8
module attributes {comm.topology = #comm.topology<"910b-8x4">} {
  comm.group @w ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                         16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
  func.func @gather(%x: tensor<64xf32>) -> tensor<2048xf32> {
    %0 = comm.all_gather %x on @w dim 0 : tensor<64xf32> -> tensor<2048xf32>
    return %0 : tensor<2048xf32>
  }
}
