// comm-select-algorithm: preconditions, diagnosed at the op, and options.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics --comm-select-algorithm
// RUN: not hccl-opt %s -split-input-file --comm-select-algorithm=slices=0 2>&1 | FileCheck %s --check-prefix=SLICES
// RUN: not hccl-opt %s -split-input-file --comm-select-algorithm=slices=5000 2>&1 | FileCheck %s --check-prefix=SLICES5000
// RUN: not hccl-opt %s -split-input-file --comm-select-algorithm=algo=level0:warp 2>&1 | FileCheck %s --check-prefix=NAME

// SLICES: error: comm-select-algorithm: option slices=0 is not valid: expected 1..4096
// SLICES5000: error: comm-select-algorithm: option slices=5000 is not valid: expected 1..4096
// NAME: error: comm-select-algorithm: option algo='level0:warp' is not valid: HCCL_ALGO: level0: unknown algorithm 'warp'

// No topology to price with.
comm.group @dp ranks = [0, 1, 2, 3]
func.func @no_topology(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm-select-algorithm needs the cluster topology: add a 'comm.topology' attribute to the enclosing module, e.g. #comm.topology<"910b-8">}}
  %0 = comm.all_reduce sum %a on @dp : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A recorded algorithm that cannot serve the collective.
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3]
func.func @pinned(%a: tensor<4xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'comm.all_gather' op algorithm 'rd' cannot serve allgather on group @dp (p = 4): algorithm 'rd' cannot serve allgather}}
  %0 = comm.all_gather %a on @dp dim 0 algo <rd> : tensor<4xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
}

// -----

// Sizes must be static.
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3]
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'comm.all_reduce' op has a dynamically shaped payload; the cost model needs static shapes}}
  %0 = comm.all_reduce sum %a on @dp : tensor<?xf32>
  return %0 : tensor<?xf32>
}
}

// -----

// 12 ranks on two 8-NPU servers: 8 on one, 4 on the other. No hierarchical
// algorithm fits such a group; a recorded one is an error.
module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @twelve ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
func.func @uneven(%a: tensor<12xf32>) -> tensor<12xf32> {
  // expected-error @+1 {{'comm.all_reduce' op algorithm 'hierarchical(mesh, ring)' cannot serve allreduce on group @twelve (p = 12): the group's ranks are not spread evenly over the servers}}
  %0 = comm.all_reduce sum %a on @twelve algo <hierarchical(mesh, ring)> : tensor<12xf32>
  return %0 : tensor<12xf32>
}
}
