// Preconditions of comm-lower-schedule, diagnosed at the op.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics --comm-lower-schedule

comm.group @dp ranks = [0, 1, 2, 3]
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{cannot lower a collective on the dynamically shaped 'tensor<?xf32>': the step program needs static element counts}}
  %r = comm.all_reduce sum %a on @dp algo <ring> : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Along dimension 1 the blocks are rows (a block layout): only flat
// algorithms move them.
module attributes {comm.topology = #comm.topology<"910b-8x2">} {
  comm.group @dp ranks = [0, 1, 8, 9]
  func.func @rows_on_hierarchical(%a: tensor<4x8xf32>) -> tensor<4x32xf32> {
    // expected-error @+1 {{hierarchical algorithms move blocks of the leading dimension only}}
    %r = comm.all_gather %a on @dp dim 1 algo <hierarchical(ring, ring)> : tensor<4x8xf32> -> tensor<4x32xf32>
    return %r : tensor<4x32xf32>
  }
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
