// Round trip of every comm op and attribute in the custom form, the generic
// form and bytecode.
// RUN: hccl-opt %s | hccl-opt | FileCheck %s
// RUN: hccl-opt %s --mlir-print-op-generic | hccl-opt | FileCheck %s
// RUN: hccl-opt %s --emit-bytecode | hccl-opt | FileCheck %s
// RUN: hccl-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK: module attributes {comm.topology = #comm.topology<"910b-8x2">}
module attributes {comm.topology = #comm.topology<"910b-8x2">} {

// CHECK: comm.group @world ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
comm.group @world ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: comm.group @dp ranks = [0, 2, 4, 6] parent @world
comm.group @dp ranks = [0, 2, 4, 6] parent @world
// CHECK: comm.group @tp ranks = {{\[}}[0, 1], [2, 3], [4, 5], [6, 7]] parent @world
comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7]] parent @world
// CHECK: comm.group @solo ranks = {{\[}}[0], [1]]
comm.group @solo ranks = [[0], [1]]
// CHECK: comm.group @tagged ranks = [3] {note = "kept"}
comm.group @tagged ranks = [3] {note = "kept"}
// GENERIC: "comm.group"() <{group_size = 2 : i64, parent = @world, ranks = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, sym_name = "tp"}>

// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%a: tensor<1024xf32>, %b: tensor<3x5xf32>, %c: tensor<7xi32>,
                      %d: tensor<8xbf16>, %e: tensor<8xf16>, %f: tensor<2xf64>,
                      %g: tensor<4xi8>, %h: tensor<4xui8>, %i: tensor<4xi64>,
                      %j: tensor<4xi16>) {
  // CHECK: comm.all_reduce sum %{{.*}}, %{{.*}} on @dp : tensor<1024xf32>, tensor<3x5xf32>
  %0:2 = comm.all_reduce sum %a, %b on @dp : tensor<1024xf32>, tensor<3x5xf32>
  // CHECK: comm.all_reduce prod %{{.*}} on @world : tensor<7xi32>
  %1 = comm.all_reduce prod %c on @world : tensor<7xi32>
  // CHECK: comm.all_reduce max %{{.*}}, %{{.*}}, %{{.*}} on @tp : tensor<8xbf16>, tensor<8xf16>, tensor<2xf64>
  %2:3 = comm.all_reduce max %d, %e, %f on @tp : tensor<8xbf16>, tensor<8xf16>, tensor<2xf64>
  // CHECK: comm.all_reduce min %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} on @dp : tensor<4xi8>, tensor<4xui8>, tensor<4xi64>, tensor<4xi16>
  %3:4 = comm.all_reduce min %g, %h, %i, %j on @dp : tensor<4xi8>, tensor<4xui8>, tensor<4xi64>, tensor<4xi16>
  // CHECK: comm.all_reduce sum %{{.*}} on @dp algo <ring> {comm.bucket = 3 : i64} : tensor<1024xf32>
  %4 = comm.all_reduce sum %a on @dp algo <ring> {comm.bucket = 3} : tensor<1024xf32>
  // GENERIC: "comm.all_reduce"(%{{.*}}, %{{.*}}) <{group = @dp, kind = #comm.reduction<sum>}> : (tensor<1024xf32>, tensor<3x5xf32>) -> (tensor<1024xf32>, tensor<3x5xf32>)
  return
}

// CHECK-LABEL: func.func @algorithms
func.func @algorithms(%a: tensor<64xf32>) {
  // CHECK: algo <ring, slices = 4>
  %0 = comm.all_reduce sum %a on @dp algo <ring, slices = 4> : tensor<64xf32>
  // CHECK: algo <mesh>
  %1 = comm.all_reduce sum %a on @dp algo <mesh> : tensor<64xf32>
  // CHECK: algo <mesh_oneshot>
  %2 = comm.all_reduce sum %a on @dp algo <mesh_oneshot> : tensor<64xf32>
  // CHECK: algo <rhd, slices = 2>
  %3 = comm.all_reduce sum %a on @dp algo <rhd, slices = 2> : tensor<64xf32>
  // CHECK: algo <rd>
  %4 = comm.all_reduce sum %a on @dp algo <rd> : tensor<64xf32>
  // CHECK: algo <hierarchical(mesh, rhd), slices = 8>
  %5 = comm.all_reduce sum %a on @world algo <hierarchical(mesh, rhd), slices = 8> : tensor<64xf32>
  // CHECK: algo <hierarchical(ring, ring)>
  %6 = comm.all_reduce sum %a on @world algo <hierarchical(ring, ring)> : tensor<64xf32>
  // CHECK: algo <tree>
  %7 = comm.broadcast %a on @dp root 0 algo <tree> : tensor<64xf32>
  // CHECK: algo <star>
  %8 = comm.reduce sum %a on @dp root 0 algo <star> : tensor<64xf32>
  // CHECK: algo <pairwise>
  %9 = comm.all_to_all %a on @dp split_dim 0 concat_dim 0 algo <pairwise> : tensor<64xf32> -> tensor<64xf32>
  // GENERIC: algo = #comm.algo<hierarchical(mesh, rhd), slices = 8>
  return
}

// CHECK-LABEL: func.func @gather_scatter
func.func @gather_scatter(%x: tensor<4x8xf32>, %y: tensor<32x8xf32>, %z: tensor<?x8xf32>) {
  // CHECK: comm.all_gather %{{.*}} on @dp dim 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  %0 = comm.all_gather %x on @dp dim 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  // CHECK: comm.all_gather %{{.*}} on @tp dim 1 : tensor<4x8xf32> -> tensor<4x16xf32>
  %1 = comm.all_gather %x on @tp dim 1 : tensor<4x8xf32> -> tensor<4x16xf32>
  // CHECK: comm.all_gather %{{.*}} on @dp dim 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %2 = comm.all_gather %z on @dp dim 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: comm.reduce_scatter sum %{{.*}} on @dp dim 0 : tensor<32x8xf32> -> tensor<8x8xf32>
  %3 = comm.reduce_scatter sum %y on @dp dim 0 : tensor<32x8xf32> -> tensor<8x8xf32>
  // CHECK: comm.reduce_scatter max %{{.*}} on @world dim 0 algo <rhd> : tensor<32x8xf32> -> tensor<2x8xf32>
  %4 = comm.reduce_scatter max %y on @world dim 0 algo <rhd> : tensor<32x8xf32> -> tensor<2x8xf32>
  // GENERIC: "comm.all_gather"(%{{.*}}) <{dim = 0 : i64, group = @dp}> : (tensor<4x8xf32>) -> tensor<16x8xf32>
  // GENERIC: "comm.reduce_scatter"(%{{.*}}) <{dim = 0 : i64, group = @dp, kind = #comm.reduction<sum>}>
  return
}

// CHECK-LABEL: func.func @rooted
func.func @rooted(%x: tensor<16xf16>) {
  // CHECK: comm.broadcast %{{.*}} on @dp root 3 : tensor<16xf16>
  %0 = comm.broadcast %x on @dp root 3 : tensor<16xf16>
  // CHECK: comm.reduce prod %{{.*}} on @tp root 1 : tensor<16xf16>
  %1 = comm.reduce prod %x on @tp root 1 : tensor<16xf16>
  // GENERIC: "comm.broadcast"(%{{.*}}) <{group = @dp, root = 3 : i64}>
  return
}

// CHECK-LABEL: func.func @all_to_all
func.func @all_to_all(%x: tensor<8x4xi32>) {
  // CHECK: comm.all_to_all %{{.*}} on @dp split_dim 0 concat_dim 1 : tensor<8x4xi32> -> tensor<2x16xi32>
  %0 = comm.all_to_all %x on @dp split_dim 0 concat_dim 1 : tensor<8x4xi32> -> tensor<2x16xi32>
  // CHECK: comm.all_to_all %{{.*}} on @tp split_dim 1 concat_dim 1 : tensor<8x4xi32> -> tensor<8x4xi32>
  %1 = comm.all_to_all %x on @tp split_dim 1 concat_dim 1 : tensor<8x4xi32> -> tensor<8x4xi32>
  return
}

// CHECK-LABEL: func.func @point_to_point
func.func @point_to_point(%x: tensor<16xf32>) -> tensor<16xf32> {
  // CHECK: comm.send %{{.*}} to 1 on @tp tag 7 : tensor<16xf32>
  comm.send %x to 1 on @tp tag 7 : tensor<16xf32>
  // CHECK: comm.send %{{.*}} to 0 on @tp : tensor<16xf32>
  comm.send %x to 0 on @tp : tensor<16xf32>
  // CHECK: %{{.*}} = comm.recv from 0 on @tp tag 7 : tensor<16xf32>
  %0 = comm.recv from 0 on @tp tag 7 : tensor<16xf32>
  // CHECK: comm.permute %{{.*}} on @tp pairs {{\[}}[0, 1], [1, 0]] {comm.channel = 3 : i64} : tensor<16xf32>
  %p = comm.permute %x on @tp pairs [[0, 1], [1, 0]] {comm.channel = 3} : tensor<16xf32>
  // CHECK: comm.barrier on @world
  comm.barrier on @world
  // CHECK: comm.barrier on @dp algo <rd>
  comm.barrier on @dp algo <rd>
  return %0 : tensor<16xf32>
}

// CHECK-LABEL: func.func @async
func.func @async(%a: tensor<1024xf32>, %b: tensor<16xf32>, %c: tensor<4x8xf32>) -> (tensor<1024xf32>, tensor<16xf32>, tensor<16x8xf32>) {
  // CHECK: %[[T0:.*]] = comm.start {
  // CHECK-NEXT: %[[R:.*]]:2 = comm.all_reduce sum %{{.*}}, %{{.*}} on @dp : tensor<1024xf32>, tensor<16xf32>
  // CHECK-NEXT: comm.yield %[[R]]#0, %[[R]]#1 : tensor<1024xf32>, tensor<16xf32>
  // CHECK-NEXT: }
  %t0 = comm.start {
    %r:2 = comm.all_reduce sum %a, %b on @dp : tensor<1024xf32>, tensor<16xf32>
    comm.yield %r#0, %r#1 : tensor<1024xf32>, tensor<16xf32>
  }
  // CHECK: %[[T1:.*]] = comm.start {
  // CHECK: comm.all_gather
  %t1 = comm.start {
    %g = comm.all_gather %c on @dp dim 0 : tensor<4x8xf32> -> tensor<16x8xf32>
    comm.yield %g : tensor<16x8xf32>
  }
  // CHECK: %[[T2:.*]] = comm.start {
  // CHECK-NEXT: comm.barrier on @dp
  // CHECK-NEXT: comm.yield
  // CHECK-NEXT: }
  %t2 = comm.start {
    comm.barrier on @dp
    comm.yield
  }
  %x = arith.addf %b, %b : tensor<16xf32>
  // CHECK: comm.wait %[[T2]]{{$}}
  comm.wait %t2
  // CHECK: %{{.*}} = comm.wait %[[T1]] : tensor<16x8xf32>
  %g = comm.wait %t1 : tensor<16x8xf32>
  // CHECK: %{{.*}}:2 = comm.wait %[[T0]] : tensor<1024xf32>, tensor<16xf32>
  %r:2 = comm.wait %t0 : tensor<1024xf32>, tensor<16xf32>
  // GENERIC: "comm.start"() ({
  // GENERIC: }) : () -> !comm.token
  // GENERIC: "comm.wait"(%{{.*}}) : (!comm.token) -> (tensor<1024xf32>, tensor<16xf32>)
  return %r#0, %x, %g : tensor<1024xf32>, tensor<16xf32>, tensor<16x8xf32>
}

// CHECK-LABEL: func.func @attributes
// CHECK-SAME: t0 = #comm.topology<"910b-8">
// CHECK-SAME: t1 = #comm.topology<"910b-8x4">
// CHECK-SAME: t2 = #comm.topology<"host">
// CHECK-SAME: t3 = #comm.topology<"host-3">
// CHECK-SAME: t4 = #comm.topology<servers = 2, devices = 4, intra = ring #comm.link<pcie, bandwidth = 32, latency = 2.5, ports = 2>, inter = #comm.link<tcp, bandwidth = 1.25, latency = 50, ports = 1>, reduce = 20>
// CHECK-SAME: t5 = #comm.topology<servers = 1, devices = 2, intra = mesh #comm.link<shm, bandwidth = 0.5, latency = 0, ports = 1>, inter = #comm.link<roce, bandwidth = 12.5, latency = 3, ports = 4>, reduce = 1.0e+06>
// CHECK-SAME: t6 = #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>
// CHECK-SAME: t7 = #comm.reduction<prod>
// CHECK-SAME: t8 = #comm.algo<mesh, slices = 16>
// CHECK-SAME: u0 = #comm.topology<"910d-8x4-pod2">
// CHECK-SAME: u1 = #comm.topology<servers = 4, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 50, latency = 5, ports = 1>, reduce = 100, pods = 2 #comm.link<hccs, bandwidth = 90, latency = 2, ports = 7>, overhead = 3>
// CHECK-SAME: u2 = #comm.topology<"910d-8x4-pod48">
// CHECK-SAME: v0 = #comm.algo<hierarchical(mesh, ring), split = pod, slices = 2>
// CHECK-SAME: v1 = #comm.algo<hierarchical(mesh, ring)>
func.func @attributes() attributes {
    t0 = #comm.topology<"910b-8">, t1 = #comm.topology<"910b-8x4">,
    t2 = #comm.topology<"host">, t3 = #comm.topology<"host-3">,
    t4 = #comm.topology<servers = 2, devices = 4,
           intra = ring #comm.link<pcie, bandwidth = 32, latency = 2.5, ports = 2>,
           inter = #comm.link<tcp, bandwidth = 1.25, latency = 50.0, ports = 1>,
           reduce = 20>,
    t5 = #comm.topology<servers = 1, devices = 2,
           intra = mesh #comm.link<shm, bandwidth = 0.5, latency = 0, ports = 1>,
           inter = #comm.link<roce, bandwidth = 12.5, latency = 3, ports = 4>,
           reduce = 1.0e6>,
    t6 = #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>,
    t7 = #comm.reduction<prod>, t8 = #comm.algo<mesh, slices = 16>,
    u0 = #comm.topology<"910d-8x4-pod2">, u2 = #comm.topology<"910d-8x4-pod48">,
    v0 = #comm.algo<hierarchical(mesh, ring), split = pod, slices = 2>,
    v1 = #comm.algo<hierarchical(mesh, ring), split = server>,
    u1 = #comm.topology<servers = 4, devices = 8,
           intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>,
           inter = #comm.link<roce, bandwidth = 50, latency = 5, ports = 1>,
           reduce = 100, pods = 2 #comm.link<hccs, bandwidth = 90, latency = 2, ports = 7>,
           overhead = 3>} {
  return
}

// The full form of a preset's parameters prints as written (no preset name).
// CHECK-LABEL: func.func @compute
// CHECK: %{{.*}}:2 = comm.compute "layer1.backward"(%{{.*}}) {comm.cost_us = 1.200000e+01 : f64, flops = 1.000000e+09 : f64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<8xbf16>)
func.func @compute(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<8xbf16>) {
  %0:2 = comm.compute "layer1.backward"(%a) {comm.cost_us = 12.0 : f64, flops = 1.0e9 : f64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<8xbf16>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<8xbf16>
}

// CHECK-LABEL: func.func @cost_annotations
// CHECK: arith.addf {{.*}} {comm.cost_us = 1.250000e+01 : f64}
// CHECK: arith.mulf {{.*}} {comm.cost_us = 3 : i64}
func.func @cost_annotations(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a {comm.cost_us = 12.5 : f64} : tensor<4xf32>
  %1 = arith.mulf %0, %0 {comm.cost_us = 3} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

}
