// comm-select-algorithm: the cheapest algorithm per size, group and
// topology; HCCL_ALGO overrides; slices.
// RUN: hccl-opt %s -split-input-file --comm-select-algorithm | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: hccl-opt %s -split-input-file --comm-select-algorithm=slices=4 | FileCheck %s --check-prefixes=CHECK,SLICES
// RUN: hccl-opt %s -split-input-file --comm-select-algorithm="algo=level0:ring;level1:ring" | FileCheck %s --check-prefixes=CHECK,RING
// RUN: hccl-opt %s -split-input-file --comm-select-algorithm="algo=allreduce=level0:NA;level1:H-D_R" | FileCheck %s --check-prefixes=CHECK,HDR

// One 910B server: 8 NPUs on an HCCS full mesh, 7 links of 56 GB/s each,
// alpha 1.5 us, reduction 100 GB/s. For n bytes on 8 ranks:
//   mesh one-shot: 1 step,  1.5 us + n/56 GB/s + 7n/100 GB/s
//   mesh two-shot: 2 steps, 3.0 us + (n/8)/56 GB/s * 2 + (7n/8)/100 GB/s
// One-shot wins below ~20 KB, two-shot above; ring (14 steps) and RHD
// (6 steps) pay more latency and no less bandwidth on a full mesh.
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK-LABEL: func.func @one_server
// AUTO:   comm.all_reduce sum %{{.*}} on @dp algo <mesh_oneshot> : tensor<1024xf32>
// AUTO:   comm.all_reduce sum %{{.*}} on @dp algo <mesh> : tensor<262144xf32>
// SLICES: comm.all_reduce sum %{{.*}} on @dp algo <mesh_oneshot, slices = 4> : tensor<1024xf32>
// SLICES: comm.all_reduce sum %{{.*}} on @dp algo <mesh, slices = 4> : tensor<262144xf32>
// RING:   comm.all_reduce sum %{{.*}} on @dp algo <ring> : tensor<1024xf32>
// RING:   comm.all_reduce sum %{{.*}} on @dp algo <ring> : tensor<262144xf32>
// One server: level1 does not apply; all-reduce is still selected.
// HDR:    comm.all_reduce sum %{{.*}} on @dp algo <mesh_oneshot> : tensor<1024xf32>
// HDR:    comm.all_reduce sum %{{.*}} on @dp algo <mesh> : tensor<262144xf32>
// Other collectives are selected too; a recorded choice stands unless
// algo= speaks for that collective.
// AUTO:   comm.all_gather %{{.*}} on @dp dim 0 algo <mesh>
// AUTO:   comm.broadcast %{{.*}} on @dp root 0 algo <star>
// AUTO:   comm.all_reduce sum %{{.*}} on @dp algo <rhd> : tensor<1024xf32>
// RING:   comm.all_gather %{{.*}} on @dp dim 0 algo <ring>
// RING:   comm.broadcast %{{.*}} on @dp root 0 algo <ring>
// RING:   comm.all_reduce sum %{{.*}} on @dp algo <ring> : tensor<1024xf32>
// HDR:    comm.all_gather %{{.*}} on @dp dim 0 algo <mesh>
// HDR:    comm.broadcast %{{.*}} on @dp root 0 algo <star>
// HDR:    comm.all_reduce sum %{{.*}} on @dp algo <mesh_oneshot> : tensor<1024xf32>
func.func @one_server(%s: tensor<1024xf32>, %l: tensor<262144xf32>)
    -> (tensor<1024xf32>, tensor<262144xf32>, tensor<8192xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %s on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %l on @dp : tensor<262144xf32>
  %2 = comm.all_gather %s on @dp dim 0 : tensor<1024xf32> -> tensor<8192xf32>
  %3 = comm.broadcast %s on @dp root 0 : tensor<1024xf32>
  %4 = comm.all_reduce sum %s on @dp algo <rhd> : tensor<1024xf32>
  return %0, %1, %2, %3, %4 : tensor<1024xf32>, tensor<262144xf32>, tensor<8192xf32>, tensor<1024xf32>, tensor<1024xf32>
}

// Started collectives are selected in place.
// CHECK-LABEL: func.func @started
// AUTO:      comm.start {
// AUTO-NEXT:   comm.all_reduce sum %{{.*}} on @dp algo <mesh_oneshot>
func.func @started(%s: tensor<1024xf32>) -> tensor<1024xf32> {
  %t = comm.start {
    %r = comm.all_reduce sum %s on @dp : tensor<1024xf32>
    comm.yield %r : tensor<1024xf32>
  }
  %r = comm.wait %t : tensor<1024xf32>
  return %r : tensor<1024xf32>
}
}

// -----

// Four such servers joined by 200 GbE RoCE (25 GB/s, alpha 5 us, one port).
// 32 ranks: intra-server mesh reduce-scatter, an inter-server all-reduce of
// n/8 bytes on 4 servers, intra-server mesh all-gather. On 4 servers,
// recursive doubling takes 2 steps of the whole n/8 (10 us + 2 (n/8) (beta +
// gamma)), RHD 4 steps of halves and quarters (20 us + 1.5 (n/8) beta +
// 0.75 (n/8) gamma): RD wins for 4 KiB, RHD for 64 MiB. Any flat algorithm
// crosses RoCE with all 32 ranks and loses.
module attributes {comm.topology = #comm.topology<"910b-8x4">} {
comm.group @world ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]
comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15], [16, 17], [18, 19], [20, 21], [22, 23], [24, 25], [26, 27], [28, 29], [30, 31]]
comm.group @cross ranks = [0, 8, 16, 24]
// CHECK-LABEL: func.func @four_servers
// AUTO:   comm.all_reduce sum %{{.*}} on @world algo <hierarchical(mesh, rd)> : tensor<1024xf32>
// AUTO:   comm.all_reduce sum %{{.*}} on @world algo <hierarchical(mesh, rhd)> : tensor<16777216xf32>
// A pair inside one server: one-shot for small, ring (= two-shot at p = 2,
// the first listed wins the tie) for large.
// AUTO:   comm.all_reduce sum %{{.*}} on @tp algo <mesh_oneshot> : tensor<1024xf32>
// AUTO:   comm.all_reduce sum %{{.*}} on @tp algo <ring> : tensor<16777216xf32>
// One rank per server: every step crosses RoCE; RHD has the fewest (4).
// AUTO:   comm.all_reduce sum %{{.*}} on @cross algo <rhd> : tensor<16777216xf32>
// SLICES: algo <hierarchical(mesh, rd), slices = 4>
// RING:   comm.all_reduce sum %{{.*}} on @world algo <hierarchical(ring, ring)> : tensor<1024xf32>
// RING:   comm.all_reduce sum %{{.*}} on @world algo <hierarchical(ring, ring)> : tensor<16777216xf32>
// RING:   comm.all_reduce sum %{{.*}} on @tp algo <ring> : tensor<1024xf32>
// RING:   comm.all_reduce sum %{{.*}} on @tp algo <ring> : tensor<16777216xf32>
// RING:   comm.all_reduce sum %{{.*}} on @cross algo <ring> : tensor<16777216xf32>
// H-D_R at level1, level0 automatic:
// HDR:    comm.all_reduce sum %{{.*}} on @world algo <hierarchical(mesh, rhd)> : tensor<1024xf32>
// HDR:    comm.all_reduce sum %{{.*}} on @world algo <hierarchical(mesh, rhd)> : tensor<16777216xf32>
// HDR:    comm.all_reduce sum %{{.*}} on @tp algo <mesh_oneshot> : tensor<1024xf32>
// HDR:    comm.all_reduce sum %{{.*}} on @cross algo <rhd> : tensor<16777216xf32>
func.func @four_servers(%s: tensor<1024xf32>, %l: tensor<16777216xf32>)
    -> (tensor<1024xf32>, tensor<16777216xf32>, tensor<1024xf32>, tensor<16777216xf32>, tensor<16777216xf32>) {
  %0 = comm.all_reduce sum %s on @world : tensor<1024xf32>
  %1 = comm.all_reduce sum %l on @world : tensor<16777216xf32>
  %2 = comm.all_reduce sum %s on @tp : tensor<1024xf32>
  %3 = comm.all_reduce sum %l on @tp : tensor<16777216xf32>
  %4 = comm.all_reduce sum %l on @cross : tensor<16777216xf32>
  return %0, %1, %2, %3, %4 : tensor<1024xf32>, tensor<16777216xf32>, tensor<1024xf32>, tensor<16777216xf32>, tensor<16777216xf32>
}
}
