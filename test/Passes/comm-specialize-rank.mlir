// Exactly what one rank sends, receives and reduces at each step, for p = 4
// and p = 6 ring / RHD / mesh all-reduce (n = 10 p elements, block 10).
// The expected transfers were checked by hand against the textbook
// algorithms: ring RS+AG (rank r owns block r after p-1 steps), Rabenseifner
// with the non-power-of-two fold (p=6: ranks 0..3 pair up, evens fold into
// odds), mesh two-shot (scatter blocks, reduce slots in rank order, gather).

// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=1 | FileCheck %s --check-prefix=RING4R1
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=3 | FileCheck %s --check-prefix=RING6R3
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=3 | FileCheck %s --check-prefix=RHD4R3
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=1 | FileCheck %s --check-prefix=RHD6R1
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=0 | FileCheck %s --check-prefix=RHD6R0
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=2 | FileCheck %s --check-prefix=MESH4R2
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=3 | FileCheck %s --check-prefix=MESH6R3
// Specialisation leaves no expression behind and keeps idle steps.
// RUN: hccl-opt %s -split-input-file --comm-lower-schedule --comm-specialize-rank=rank=0 | FileCheck %s --check-prefix=FOLDED

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3]
  func.func @ring_p4(%a: tensor<40xf32>) -> tensor<40xf32> {
    %r = comm.all_reduce sum %a on @g algo <ring> : tensor<40xf32>
    return %r : tensor<40xf32>
  }
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3]
  func.func @rhd_p4(%a: tensor<40xf32>) -> tensor<40xf32> {
    %r = comm.all_reduce sum %a on @g algo <rhd> : tensor<40xf32>
    return %r : tensor<40xf32>
  }
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3]
  func.func @mesh_p4(%a: tensor<40xf32>) -> tensor<40xf32> {
    %r = comm.all_reduce sum %a on @g algo <mesh> : tensor<40xf32>
    return %r : tensor<40xf32>
  }
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3, 4, 5]
  func.func @ring_p6(%a: tensor<60xf32>) -> tensor<60xf32> {
    %r = comm.all_reduce sum %a on @g algo <ring> : tensor<60xf32>
    return %r : tensor<60xf32>
  }
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3, 4, 5]
  func.func @rhd_p6(%a: tensor<60xf32>) -> tensor<60xf32> {
    %r = comm.all_reduce sum %a on @g algo <rhd> : tensor<60xf32>
    return %r : tensor<60xf32>
  }
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3, 4, 5]
  func.func @mesh_p6(%a: tensor<60xf32>) -> tensor<60xf32> {
    %r = comm.all_reduce sum %a on @g algo <mesh> : tensor<60xf32>
    return %r : tensor<60xf32>
  }
}
// RING4R1-LABEL: comm.program @allreduce_ring_p4_n40_fp32_sum all_reduce sum algo <ring> ranks 4 count 40 rank 1 : f32 {
// RING4R1: comm.phase "rs" step 0 (%{{.*}}) {
// RING4R1-NEXT: comm.step.send input[0] to 2 count 10
// RING4R1-NEXT: comm.step.recv_reduce output[30] from 0 with input[30] count 10
// RING4R1: comm.phase "rs" step 0 (%{{.*}}) {
// RING4R1-NEXT: comm.step.send output[30] to 2 count 10
// RING4R1-NEXT: comm.step.recv_reduce output[20] from 0 with input[20] count 10
// RING4R1: comm.phase "rs" step 1 (%{{.*}}) {
// RING4R1-NEXT: comm.step.send output[20] to 2 count 10
// RING4R1-NEXT: comm.step.recv_reduce output[10] from 0 with input[10] count 10
// RING4R1: comm.phase "ag" step 0 (%{{.*}}) {
// RING4R1-NEXT: comm.step.send output[10] to 2 count 10
// RING4R1-NEXT: comm.step.recv output[0] from 0 count 10
// RING4R1: comm.phase "ag" step 0 (%{{.*}}) {
// RING4R1-NEXT: comm.step.send output[0] to 2 count 10
// RING4R1-NEXT: comm.step.recv output[30] from 0 count 10
// RING4R1: comm.phase "ag" step 1 (%{{.*}}) {
// RING4R1-NEXT: comm.step.send output[30] to 2 count 10
// RING4R1-NEXT: comm.step.recv output[20] from 0 count 10

// RING6R3-LABEL: comm.program @allreduce_ring_p6_n60_fp32_sum all_reduce sum algo <ring> ranks 6 count 60 rank 3 : f32 {
// RING6R3: comm.phase "rs" step 0 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send input[20] to 4 count 10
// RING6R3-NEXT: comm.step.recv_reduce output[10] from 2 with input[10] count 10
// RING6R3: comm.phase "rs" step 0 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[10] to 4 count 10
// RING6R3-NEXT: comm.step.recv_reduce output[0] from 2 with input[0] count 10
// RING6R3: comm.phase "rs" step 1 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[0] to 4 count 10
// RING6R3-NEXT: comm.step.recv_reduce output[50] from 2 with input[50] count 10
// RING6R3: comm.phase "rs" step 2 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[50] to 4 count 10
// RING6R3-NEXT: comm.step.recv_reduce output[40] from 2 with input[40] count 10
// RING6R3: comm.phase "rs" step 3 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[40] to 4 count 10
// RING6R3-NEXT: comm.step.recv_reduce output[30] from 2 with input[30] count 10
// RING6R3: comm.phase "ag" step 0 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[30] to 4 count 10
// RING6R3-NEXT: comm.step.recv output[20] from 2 count 10
// RING6R3: comm.phase "ag" step 0 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[20] to 4 count 10
// RING6R3-NEXT: comm.step.recv output[10] from 2 count 10
// RING6R3: comm.phase "ag" step 1 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[10] to 4 count 10
// RING6R3-NEXT: comm.step.recv output[0] from 2 count 10
// RING6R3: comm.phase "ag" step 2 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[0] to 4 count 10
// RING6R3-NEXT: comm.step.recv output[50] from 2 count 10
// RING6R3: comm.phase "ag" step 3 (%{{.*}}) {
// RING6R3-NEXT: comm.step.send output[50] to 4 count 10
// RING6R3-NEXT: comm.step.recv output[40] from 2 count 10

// RHD4R3-LABEL: comm.program @allreduce_rhd_p4_n40_fp32_sum all_reduce sum algo <rhd> ranks 4 count 40 rank 3 : f32 {
// RHD4R3: comm.phase "halve" step 0 (%{{.*}}) {
// RHD4R3-NEXT: comm.step.send input[0] to 1 count 20
// RHD4R3-NEXT: comm.step.recv_reduce output[20] from 1 with input[20] count 20
// RHD4R3: comm.phase "halve" step 0 (%{{.*}}) {
// RHD4R3-NEXT: comm.step.send output[20] to 2 count 10
// RHD4R3-NEXT: comm.step.recv_reduce output[30] from 2 with output[30] count 10
// RHD4R3: comm.phase "double" step 0 (%{{.*}}) {
// RHD4R3-NEXT: comm.step.send output[30] to 2 count 10
// RHD4R3-NEXT: comm.step.recv output[20] from 2 count 10
// RHD4R3: comm.phase "double" step 1 (%{{.*}}) {
// RHD4R3-NEXT: comm.step.send output[20] to 1 count 20
// RHD4R3-NEXT: comm.step.recv output[0] from 1 count 20

// RHD6R1-LABEL: comm.program @allreduce_rhd_p6_n60_fp32_sum all_reduce sum algo <rhd> ranks 6 count 60 rank 1 : f32 {
// RHD6R1: comm.phase "fold" step 0 (%{{.*}}) {
// RHD6R1-NEXT: comm.step.recv_reduce output[0] from 0 with input[0] count 60
// RHD6R1: comm.phase "halve" step 0 (%{{.*}}) {
// RHD6R1-NEXT: comm.step.send output[30] to 4 count 30
// RHD6R1-NEXT: comm.step.recv_reduce output[0] from 4 with output[0] count 30
// RHD6R1: comm.phase "halve" step 0 (%{{.*}}) {
// RHD6R1-NEXT: comm.step.send output[15] to 3 count 15
// RHD6R1-NEXT: comm.step.recv_reduce output[0] from 3 with output[0] count 15
// RHD6R1: comm.phase "double" step 0 (%{{.*}}) {
// RHD6R1-NEXT: comm.step.send output[0] to 3 count 15
// RHD6R1-NEXT: comm.step.recv output[15] from 3 count 15
// RHD6R1: comm.phase "double" step 1 (%{{.*}}) {
// RHD6R1-NEXT: comm.step.send output[0] to 4 count 30
// RHD6R1-NEXT: comm.step.recv output[30] from 4 count 30
// RHD6R1: comm.phase "unfold" step 0 (%{{.*}}) {
// RHD6R1-NEXT: comm.step.send output[0] to 0 count 60

// RHD6R0-LABEL: comm.program @allreduce_rhd_p6_n60_fp32_sum all_reduce sum algo <rhd> ranks 6 count 60 rank 0 : f32 {
// RHD6R0: comm.phase "fold" step 0 (%{{.*}}) {
// RHD6R0-NEXT: comm.step.send input[0] to 1 count 60
// RHD6R0: comm.phase "halve" step 0 (%{{.*}}) {
// RHD6R0: comm.phase "halve" step 0 (%{{.*}}) {
// RHD6R0: comm.phase "double" step 0 (%{{.*}}) {
// RHD6R0: comm.phase "double" step 1 (%{{.*}}) {
// RHD6R0: comm.phase "unfold" step 0 (%{{.*}}) {
// RHD6R0-NEXT: comm.step.recv output[0] from 1 count 60

// MESH4R2-LABEL: comm.program @allreduce_mesh_p4_n40_fp32_sum all_reduce sum algo <mesh> ranks 4 count 40 rank 2 : f32 {
// MESH4R2: comm.phase "rs_exchange" step 0 (%{{.*}}) {
// MESH4R2-NEXT: comm.step.send input[30] to 3 count 10
// MESH4R2-NEXT: comm.step.send input[0] to 0 count 10
// MESH4R2-NEXT: comm.step.send input[10] to 1 count 10
// MESH4R2-NEXT: comm.step.recv scratch[10] from 1 count 10
// MESH4R2-NEXT: comm.step.recv scratch[0] from 0 count 10
// MESH4R2-NEXT: comm.step.recv scratch[30] from 3 count 10
// MESH4R2-NEXT: comm.step.copy scratch[20] from input[20] count 10
// MESH4R2: comm.phase "rs_reduce" step 0 (%{{.*}}) {
// MESH4R2-NEXT: comm.step.reduce output[20] from scratch[0] stride 10 n 4 count 10
// MESH4R2: comm.phase "ag_exchange" step 0 (%{{.*}}) {
// MESH4R2-NEXT: comm.step.send output[20] to 3 count 10
// MESH4R2-NEXT: comm.step.send output[20] to 0 count 10
// MESH4R2-NEXT: comm.step.send output[20] to 1 count 10
// MESH4R2-NEXT: comm.step.recv output[10] from 1 count 10
// MESH4R2-NEXT: comm.step.recv output[0] from 0 count 10
// MESH4R2-NEXT: comm.step.recv output[30] from 3 count 10

// MESH6R3-LABEL: comm.program @allreduce_mesh_p6_n60_fp32_sum all_reduce sum algo <mesh> ranks 6 count 60 rank 3 : f32 {
// MESH6R3: comm.phase "rs_exchange" step 0 (%{{.*}}) {
// MESH6R3-NEXT: comm.step.send input[40] to 4 count 10
// MESH6R3-NEXT: comm.step.send input[50] to 5 count 10
// MESH6R3-NEXT: comm.step.send input[0] to 0 count 10
// MESH6R3-NEXT: comm.step.send input[10] to 1 count 10
// MESH6R3-NEXT: comm.step.send input[20] to 2 count 10
// MESH6R3-NEXT: comm.step.recv scratch[20] from 2 count 10
// MESH6R3-NEXT: comm.step.recv scratch[10] from 1 count 10
// MESH6R3-NEXT: comm.step.recv scratch[0] from 0 count 10
// MESH6R3-NEXT: comm.step.recv scratch[50] from 5 count 10
// MESH6R3-NEXT: comm.step.recv scratch[40] from 4 count 10
// MESH6R3-NEXT: comm.step.copy scratch[30] from input[30] count 10
// MESH6R3: comm.phase "rs_reduce" step 0 (%{{.*}}) {
// MESH6R3-NEXT: comm.step.reduce output[30] from scratch[0] stride 10 n 6 count 10
// MESH6R3: comm.phase "ag_exchange" step 0 (%{{.*}}) {
// MESH6R3-NEXT: comm.step.send output[30] to 4 count 10
// MESH6R3-NEXT: comm.step.send output[30] to 5 count 10
// MESH6R3-NEXT: comm.step.send output[30] to 0 count 10
// MESH6R3-NEXT: comm.step.send output[30] to 1 count 10
// MESH6R3-NEXT: comm.step.send output[30] to 2 count 10
// MESH6R3-NEXT: comm.step.recv output[20] from 2 count 10
// MESH6R3-NEXT: comm.step.recv output[10] from 1 count 10
// MESH6R3-NEXT: comm.step.recv output[0] from 0 count 10
// MESH6R3-NEXT: comm.step.recv output[50] from 5 count 10
// MESH6R3-NEXT: comm.step.recv output[40] from 4 count 10

// FOLDED-NOT: arith.addi
// FOLDED-NOT: comm.emod
// FOLDED-NOT: comm.repeat
// FOLDED-LABEL: comm.program @allreduce_rhd_p6_n60_fp32_sum
// FOLDED: comm.phase "fold" step 0
// FOLDED-NEXT: comm.step.send input[0] to 1 count 60
// FOLDED-NEXT: }
// FOLDED-NEXT: comm.phase "halve" step 0
// FOLDED-NEXT: }
