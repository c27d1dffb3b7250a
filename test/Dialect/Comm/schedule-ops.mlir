// Round trip of the lowered step-schedule ops (custom, generic, bytecode).
// RUN: hccl-opt %s | hccl-opt | FileCheck %s
// RUN: hccl-opt %s --mlir-print-op-generic | hccl-opt | FileCheck %s
// RUN: hccl-opt %s --emit-bytecode | hccl-opt | FileCheck %s

comm.group @dp ranks = [0, 1, 2, 3]

// A hand-written ring all-reduce on 4 ranks (n divisible by p).
// CHECK: comm.program @ring16 all_reduce sum algo <ring, slices = 2> ranks 4 count 16 attributes {note = "by hand"} : f32 {
// CHECK-NEXT: ^bb0(%[[R:.*]]: index, %[[P:.*]]: index, %[[N:.*]]: index):
// CHECK: comm.buffers input %[[N]] output %[[N]] scratch %{{.*}}
// CHECK: %[[B:.*]] = comm.param "block" = 4
// CHECK: comm.phase "copy" steps 1 (%{{.*}}) {
// CHECK-NEXT: comm.step.copy output[0] from input[0] count %[[N]]
// CHECK: comm.phase "reduce_scatter" steps 3 (%[[S:.*]]) {
// CHECK: comm.emod
// CHECK: comm.step.send output[%{{.*}}] to %{{.*}} count %[[B]]
// CHECK: comm.step.recv_reduce output[%{{.*}}] from %{{.*}} with output[%{{.*}}] count %[[B]]
// CHECK: comm.phase "all_gather" steps 3 (%{{.*}}) {
// CHECK: comm.step.recv output[%{{.*}}] from %{{.*}} count 4 when %{{.*}}
comm.program @ring16 all_reduce sum algo <ring, slices = 2> ranks 4 count 16 attributes {note = "by hand"} : f32 {
^bb0(%rank: index, %p: index, %n: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  comm.buffers input %n output %n scratch %c0
  %block = comm.param "block" = 4
  %next0 = arith.addi %rank, %c1 : index
  %next = comm.emod %next0, %p
  %prev0 = arith.subi %rank, %c1 : index
  %prev = comm.emod %prev0, %p
  comm.phase "copy" steps 1 (%s) {
    comm.step.copy output[0] from input[0] count %n
  }
  comm.phase "reduce_scatter" steps 3 (%s) {
    %a = arith.subi %rank, %s : index
    %sendBlk = comm.emod %a, %p
    %sendOff = arith.muli %sendBlk, %block : index
    %b = arith.subi %a, %c1 : index
    %recvBlk = comm.emod %b, %p
    %recvOff = arith.muli %recvBlk, %block : index
    comm.step.send output[%sendOff] to %next count %block
    comm.step.recv_reduce output[%recvOff] from %prev with output[%recvOff] count %block
  }
  comm.phase "all_gather" steps 3 (%s) {
    %a = arith.subi %rank, %s : index
    %blk = comm.emod %a, %p
    %off = arith.muli %blk, %block : index
    %always = arith.cmpi sge, %rank, %c0 : index
    %w = arith.index_castui %always : i1 to index
    comm.step.send output[%off] to %next count 4
    comm.step.recv output[%off] from %prev count 4 when %w
  }
}

// Mesh-style repeat, a local multi-source reduce, tables, root and rank.
// CHECK: comm.program @mesh8 reduce max algo <mesh> ranks 4 count 8 root 2 rank 1 tables {{\[}}[1, 2, 3], [4]] : f64 {
// CHECK: comm.repeat %{{.*}} (%[[T:.*]]) {
// CHECK: comm.step.recv scratch[%{{.*}}] from %{{.*}} count 2
// CHECK: comm.step.reduce output[0] from scratch[0] stride 2 n 3 count 2
// CHECK: comm.phase "tail" step 5 (%{{.*}}) {
// CHECK-NEXT: comm.table_at 0[%{{.*}}]
// CHECK-NEXT: comm.step.send input[%{{.*}}] to 0 count 1 when 0
comm.program @mesh8 reduce max algo <mesh> ranks 4 count 8 root 2 rank 1 tables [[1, 2, 3], [4]] : f64 {
^bb0(%rank: index, %p: index, %n: index):
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  comm.buffers input %n output %n scratch %c6
  %k = arith.subi %p, %c1 : index
  comm.phase "gather" steps 1 (%s) {
    comm.repeat %k (%t) {
      %peer0 = arith.addi %rank, %t : index
      %peer1 = arith.addi %peer0, %c1 : index
      %peer = comm.emod %peer1, %p
      %off = arith.muli %t, %c1 : index
      comm.step.recv scratch[%off] from %peer count 2
    }
    comm.step.reduce output[0] from scratch[0] stride 2 n 3 count 2
  }
  comm.phase "tail" step 5 (%s) {
    %e = comm.table_at 0[%c1]
    comm.step.send input[%e] to 0 count 1 when 0
  }
}

// Schedules run programs on groups; identical collectives share one.
// CHECK-LABEL: func.func @schedules
// CHECK: comm.schedule @ring16 all_reduce sum (%{{.*}}) on @dp algo <ring, slices = 2> {comm.bucket = 0 : i64} : (tensor<16xf32>) -> tensor<16xf32>
// CHECK: comm.schedule @ring16 all_reduce sum (%{{.*}}, %{{.*}}) on @dp algo <ring, slices = 2> : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
// CHECK: comm.schedule @mesh8 reduce max (%{{.*}}) on @dp algo <mesh> : (tensor<8xf64>) -> tensor<8xf64>
func.func @schedules(%g: tensor<16xf32>, %a: tensor<8xf32>, %b: tensor<8xf32>, %h: tensor<8xf64>) {
  %0 = comm.schedule @ring16 all_reduce sum (%g) on @dp algo <ring, slices = 2> {comm.bucket = 0} : (tensor<16xf32>) -> tensor<16xf32>
  %1:2 = comm.schedule @ring16 all_reduce sum (%a, %b) on @dp algo <ring, slices = 2> : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %2 = comm.schedule @mesh8 reduce max (%h) on @dp algo <mesh> : (tensor<8xf64>) -> tensor<8xf64>
  return
}
