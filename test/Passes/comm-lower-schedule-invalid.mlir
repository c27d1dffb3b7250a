// Preconditions of comm-lower-schedule, diagnosed at the op.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics --comm-lower-schedule

comm.group @dp ranks = [0, 1, 2, 3]
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{cannot lower a collective on the dynamically shaped 'tensor<?xf32>': the step program needs static element counts}}
  %r = comm.all_reduce sum %a on @dp algo <ring> : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @inner_dim(%a: tensor<4x8xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{cannot lower all_gather along dim 1: only leading dimensions (all outer dimensions 1) have the flat block layout the step program moves; transpose first}}
  %r = comm.all_gather %a on @dp dim 1 algo <ring> : tensor<4x8xf32> -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @transposing_all_to_all(%a: tensor<8x4xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{cannot lower an all_to_all with split_dim 0 and concat_dim 1: only equal leading dimensions have the flat block layout of the step program}}
  %r = comm.all_to_all %a on @dp split_dim 0 concat_dim 1 algo <pairwise> : tensor<8x4xf32> -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @wrong_algorithm(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot lower with algorithm 'pairwise'}}
  %r = comm.all_reduce sum %a on @dp algo <pairwise> : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @no_algorithm(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has no algorithm and the module has no comm.topology to choose one: run comm-select-algorithm or add an algo}}
  %r = comm.all_reduce sum %a on @dp : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @hierarchical_without_topology(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{hierarchical algorithm needs a comm.topology on the module}}
  %r = comm.all_reduce sum %a on @dp algo <hierarchical(ring, ring)> : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8x2">} {
  // 3 ranks on server 0, 1 on server 1: no even split.
  comm.group @odd ranks = [0, 1, 2, 8]
  func.func @uneven(%a: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{hierarchical algorithm needs group @odd to split evenly across the topology's servers, server-major}}
    %r = comm.all_reduce sum %a on @odd algo <hierarchical(mesh, rhd)> : tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
