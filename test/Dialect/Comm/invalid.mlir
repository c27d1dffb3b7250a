// Every verifier of the comm dialect, one case per split.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics

func.func @unknown_group(%a: tensor<4xf32>) {
  // expected-error @+1 {{'comm.all_reduce' op references unknown group @nope}}
  %0 = comm.all_reduce sum %a on @nope : tensor<4xf32>
  return
}

// -----

func.func @not_a_group(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected @not_a_group to be a comm.group, found 'func.func'}}
  %0 = comm.all_gather %a on @not_a_group dim 0 : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
  // expected-error @+1 {{rank 8 out of range: the topology has 8 ranks (0..7)}}
  comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 8]
}

// -----

// expected-error @+1 {{rank -1 is negative}}
comm.group @g ranks = [0, -1]

// -----

// expected-error @+1 {{rank 2 appears more than once}}
comm.group @g ranks = [[0, 2], [2, 3]]

// -----

// expected-error @+1 {{expected at least one rank, found an empty group}}
comm.group @g ranks = []

// -----

// expected-error @+1 {{subgroups must have equal sizes: expected 2 ranks, found 3}}
comm.group @g ranks = [[0, 1], [2, 3, 4]]

// -----

// expected-error @+1 {{parent @missing is not a comm.group in scope}}
comm.group @g ranks = [0, 1] parent @missing

// -----

comm.group @dp ranks = [0, 1, 2, 3]
// expected-error @+1 {{rank 4 is not in parent group @dp}}
comm.group @tp ranks = [[0, 1], [4, 5]] parent @dp

// -----

comm.group @dp ranks = [0, 1]
func.func @variadic_type_mismatch(%a: tensor<4xf32>, %b: tensor<8xf16>) {
  // expected-error @+1 {{result #1 must have the type of input #1 ('tensor<8xf16>'), found 'tensor<8xf32>'}}
  %0:2 = "comm.all_reduce"(%a, %b) <{group = @dp, kind = #comm.reduction<sum>}> : (tensor<4xf32>, tensor<8xf16>) -> (tensor<4xf32>, tensor<8xf32>)
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @all_reduce_no_inputs() {
  // expected-error @+1 {{expected at least one input tensor, found none}}
  "comm.all_reduce"() <{group = @dp, kind = #comm.reduction<sum>}> : () -> ()
  return
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @all_gather_size(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result size along dim 0: expected 16 (4 x group size 4), found 8}}
  %0 = comm.all_gather %a on @dp dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @all_gather_dim(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{gather dim 2 out of range: expected 0..1 for 'tensor<4x8xf32>'}}
  %0 = comm.all_gather %a on @dp dim 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @all_gather_elt(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected result element type 'f32', found 'f16'}}
  %0 = comm.all_gather %a on @dp dim 0 : tensor<4xf32> -> tensor<8xf16>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @all_gather_other_dim(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{expected result dim 1 to be 8 (unchanged), found 9}}
  %0 = comm.all_gather %a on @dp dim 0 : tensor<4x8xf32> -> tensor<8x9xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @reduce_scatter_size(%a: tensor<32xf32>) {
  // expected-error @+1 {{input size along dim 0: expected 16 (4 x group size 4), found 32}}
  %0 = comm.reduce_scatter sum %a on @dp dim 0 : tensor<32xf32> -> tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @broadcast_root(%a: tensor<4xf32>) {
  // expected-error @+1 {{root 4 is outside the group: expected 0..3}}
  %0 = comm.broadcast %a on @dp root 4 : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1, 2, 3]
func.func @broadcast_negative_root(%a: tensor<4xf32>) {
  // expected-error @+1 {{root -1 is negative: expected a rank of the group}}
  %0 = comm.broadcast %a on @dp root -1 : tensor<4xf32>
  return
}

// -----

comm.group @tp ranks = [[0, 1], [2, 3]]
func.func @reduce_root(%a: tensor<4xf32>) {
  // expected-error @+1 {{root 2 is outside the group: expected 0..1}}
  %0 = comm.reduce max %a on @tp root 2 : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1, 2]
func.func @all_to_all_split(%a: tensor<8x4xf32>) {
  // expected-error @+1 {{split_dim 0 has size 8, expected a multiple of the group size 3}}
  %0 = comm.all_to_all %a on @dp split_dim 0 concat_dim 1 : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @all_to_all_shape(%a: tensor<8x4xf32>) {
  // expected-error @+1 {{result size along dim 1: expected 8 (4 x group size 2), found 4}}
  %0 = comm.all_to_all %a on @dp split_dim 0 concat_dim 1 : tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

comm.group @pp ranks = [0, 1]
func.func @send_peer(%a: tensor<4xf32>) {
  // expected-error @+1 {{peer 2 is outside the group: expected 0..1}}
  comm.send %a to 2 on @pp : tensor<4xf32>
  return
}

// -----

comm.group @pp ranks = [0, 1]
func.func @recv_tag() -> tensor<4xf32> {
  // expected-error @+1 {{tag -3 is negative}}
  %0 = comm.recv from 0 on @pp tag -3 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @never_waited(%a: tensor<4xf32>) {
  // expected-error @+1 {{token must be consumed by exactly one comm.wait, but it is never waited}}
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @waited_twice(%a: tensor<4xf32>) {
  // expected-error @+1 {{token must be consumed by exactly one comm.wait, but it is used 2 times}}
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  %0 = comm.wait %t : tensor<4xf32>
  %1 = comm.wait %t : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @waited_elsewhere(%a: tensor<4xf32>, %c: i1) {
  // expected-error @+1 {{token must be waited in the block of its comm.start, found its comm.wait in another block}}
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  scf.if %c {
    %0 = comm.wait %t : tensor<4xf32>
  }
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @token_escapes(%a: tensor<4xf32>) -> !comm.token {
  // expected-error @+1 {{token may only be consumed by comm.wait, found 'func.return'}}
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  return %t : !comm.token
}

// -----

func.func @wait_block_arg(%t: !comm.token) {
  // expected-error @+1 {{token must come from a comm.start in the same block}}
  %0 = comm.wait %t : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @wait_types(%a: tensor<4xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  // expected-error @+1 {{result types ('tensor<8xf32>') must match the started op's results ('tensor<4xf32>')}}
  %0 = comm.wait %t : tensor<8xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @start_two_ops(%a: tensor<4xf32>) {
  // expected-error @+1 {{body must hold exactly one communication op and a comm.yield, found 3 ops}}
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    %s = comm.all_reduce sum %r on @dp : tensor<4xf32>
    comm.yield %s : tensor<4xf32>
  }
  %0 = comm.wait %t : tensor<4xf32>
  return
}

// -----

func.func @start_compute(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected a communication op in the body, found 'arith.addf'}}
  %t = comm.start {
    %r = arith.addf %a, %a : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  %0 = comm.wait %t : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @start_bad_yield(%a: tensor<4xf32>) {
  // expected-error @+1 {{comm.yield must yield the 1 result(s) of 'comm.all_reduce' in order}}
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %a : tensor<4xf32>
  }
  %0 = comm.wait %t : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @bad_reduction(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown reduction 'avg'; expected sum, prod, max or min}}
  %0 = comm.all_reduce avg %a on @dp : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @bad_algorithm(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown algorithm 'butterfly'; expected one of ring, mesh, mesh_oneshot, rhd, rd, tree, star, pairwise, hierarchical}}
  %0 = comm.all_reduce sum %a on @dp algo <butterfly> : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @nested_hierarchical(%a: tensor<4xf32>) {
  // expected-error @+1 {{hierarchical levels must be flat algorithms}}
  %0 = comm.all_reduce sum %a on @dp algo <hierarchical(ring, hierarchical)> : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @zero_slices(%a: tensor<4xf32>) {
  // expected-error @+1 {{slices must be in 1..4096, found 0}}
  %0 = comm.all_reduce sum %a on @dp algo <ring, slices = 0> : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{unknown topology preset '910c'; accepted forms: '910b-8', '910b-8xN', '910d-8', '910d-8xN' (N servers, N >= 1), '910d-8xN-podS' (in super pods of S servers), 'host' or 'host-N' (N local ranks)}}
module attributes {comm.topology = #comm.topology<"910c">} {}

// -----

// expected-error @+1 {{unknown topology preset '910b-8x0'}}
module attributes {comm.topology = #comm.topology<"910b-8x0">} {}

// -----

// expected-error @+1 {{expected a topology preset string (one of '910b-8', '910b-8xN', '910d-8', '910d-8xN' (N servers, N >= 1), '910d-8xN-podS' (in super pods of S servers), 'host' or 'host-N' (N local ranks)) or 'servers = N, devices = M, intra = mesh|ring #comm.link<...>, inter = #comm.link<...>, reduce = GBPS[, pods = S #comm.link<...>][, overhead = US][, wakeup = US[, wakeup_idle = US]][, cache = BYTES|[BYTES, ...], past_cache = X|[X, ...]][, steal = US_PER_MB]'}}
module attributes {comm.topology = #comm.topology<8>} {}

// -----

// expected-error @+1 {{expected intra-server shape 'mesh' or 'ring', found 'torus'}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = torus #comm.link<hccs, bandwidth = 56, latency = 1, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100>} {}

// -----

// expected-error @+1 {{topology servers per pod must be in 0..65536, found -3}}
module attributes {comm.topology = #comm.topology<servers = 2, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, pods = -3 #comm.link<hccs, bandwidth = 56, latency = 2, ports = 7>>} {}

// -----

// expected-error @+1 {{topology pods need a scale-up link, and a scale-up link needs pods}}
module attributes {comm.topology = #comm.topology<servers = 2, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, pods = 0 #comm.link<hccs, bandwidth = 56, latency = 2, ports = 7>>} {}

// -----

// expected-error @+1 {{topology devices per server must be in 1..4096, found 0}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 0, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100>} {}

// -----

// expected-error @+1 {{link bandwidth must be > 0 GB/s, found 0}}
func.func @link_bw() attributes {l = #comm.link<hccs, bandwidth = 0, latency = 1, ports = 7>} { return }

// -----

// expected-error @+1 {{unknown link class 'nvlink'; expected one of hccs, pcie, roce, tcp, shm}}
func.func @link_class() attributes {l = #comm.link<nvlink, bandwidth = 1, latency = 1, ports = 7>} { return }

// -----

// expected-error @+1 {{link ports must be in 1..64, found 0}}
func.func @link_ports() attributes {l = #comm.link<roce, bandwidth = 1, latency = 1, ports = 0>} { return }

// -----

// expected-error @+1 {{'comm.topology' belongs on a builtin.module, found it on 'func.func'}}
func.func @topology_on_func() attributes {comm.topology = #comm.topology<"910b-8">} { return }

// -----

// expected-error @+1 {{'comm.topology' must be a #comm.topology attribute, found "910b-8"}}
module attributes {comm.topology = "910b-8"} {}

// -----

func.func @negative_cost(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.cost_us' must be >= 0, found -2}}
  %0 = arith.addf %a, %a {comm.cost_us = -2.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @negative_bucket(%a: tensor<4xf32>) {
  // expected-error @+1 {{'comm.bucket' must be a non-negative integer, found -1 : i64}}
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = -1} : tensor<4xf32>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @unsupported_element(%a: tensor<4xf8E4M3FN>) {
  // expected-error @+1 {{operand #0 must be variadic of ranked tensor of}}
  %0 = comm.all_reduce sum %a on @dp : tensor<4xf8E4M3FN>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @complex_element(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = comm.broadcast %a on @dp root 0 : tensor<4xcomplex<f32>>
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = "comm.all_gather"(%a) <{dim = 0 : i64, group = @dp}> : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

comm.group @pp ranks = [0, 1, 2]
func.func @permute_target_twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{rank 2 is the target of more than one pair}}
  %0 = comm.permute %a on @pp pairs [[0, 2], [1, 2]] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

comm.group @pp ranks = [0, 1, 2]
func.func @permute_outside(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{pair rank 3 is outside the group: expected 0..2}}
  %0 = comm.permute %a on @pp pairs [[0, 3]] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compute_no_results(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected at least one output: a compute op without results would be dead code}}
  comm.compute "sink"(%a) : (tensor<4xf32>) -> ()
  return
}

// -----

// expected-error @+1 {{split = pod is only meaningful for 'hierarchical', found 'ring'}}
func.func @split_flat() attributes {a = #comm.algo<ring, split = pod>} { return }

// -----

// expected-error @+1 {{expected split 'pod' or 'server', found 'rack'}}
func.func @split_rack() attributes {a = #comm.algo<hierarchical(mesh, ring), split = rack>} { return }
