// The plan the runtime executes: lowered collectives in issue order, the
// compute between them with its cost, start/wait items for overlap. The
// programs are read back from the IR and prove correct with hccl-plan.
// RUN: hccl-opt %s --comm-lower-schedule | hccl-translate --comm-to-plan -o %t.json
// RUN: FileCheck %s --input-file %t.json
// RUN: hccl-plan verify %t.json | FileCheck %s --check-prefix=VERIFY
// RUN: hccl-opt %s --comm-lower-schedule | hccl-translate --comm-to-plan --plan-form=expanded | FileCheck %s --check-prefix=EXPANDED
// RUN: not hccl-translate --comm-to-plan %s 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// RUN: hccl-opt %s --comm-lower-schedule | not hccl-translate --comm-to-plan --plan-form=wide 2>&1 | FileCheck %s --check-prefix=FORM

// CHECK: "format": "hccl-plan"
// CHECK: "version": 1
// CHECK: "topology": {
// CHECK: "name": "910b-8"
// CHECK: "programs": [
// CHECK: "id": "allreduce_ring_p4_n16_fp32_sum",
// CHECK-NEXT: "collective": "allreduce",
// CHECK-NEXT: "algorithm": "ring",
// CHECK-NEXT: "dtype": "fp32",
// CHECK: "ranks": 4,
// CHECK-NEXT: "count": 16,
// CHECK: "phases": [
// CHECK: "kind": "send",
// CHECK-NEXT: "peer": "(r + 1) % p",
// CHECK: "id": "allreduce_rhd_p4_n8_fp32_sum",
// CHECK-NEXT: "collective": "allreduce",
// CHECK-NEXT: "algorithm": "rhd",
// CHECK: "plan": {
// CHECK: "group": [
// CHECK: "items": [
// CHECK: "kind": "compute",
// CHECK-NEXT: "name": "layer1.backward",
// CHECK-NEXT: "cost_us": 20.0
// CHECK: "kind": "start",
// CHECK-NEXT: "id": 0,
// CHECK-NEXT: "program": "allreduce_ring_p4_n16_fp32_sum"
// CHECK: "kind": "compute",
// CHECK-NEXT: "name": "arith.mulf",
// CHECK-NEXT: "cost_us": 15.5
// CHECK: "kind": "wait",
// CHECK-NEXT: "id": 0
// CHECK: "kind": "start",
// CHECK-NEXT: "id": 1,
// CHECK-NEXT: "program": "allreduce_rhd_p4_n8_fp32_sum"
// CHECK: "kind": "wait",
// CHECK-NEXT: "id": 1

// VERIFY: OK allreduce_ring_p4_n16_fp32_sum: allreduce ring p=4 n=16
// VERIFY: OK allreduce_rhd_p4_n8_fp32_sum: allreduce rhd p=4 n=8

// EXPANDED: "expanded": [
// EXPANDED: "rank": 0,

// UNLOWERED: error: 'comm.start' op starts an unlowered 'comm.all_reduce': run comm-lower-schedule before exporting a plan
// FORM: error: --plan-form must be compact, expanded or both, found 'wide'

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @dp ranks = [0, 1, 2, 3]
  func.func @step(%a: tensor<16xf32>, %b: tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
    %g = arith.mulf %a, %a {comm.cost_us = 20.0, comm.name = "layer1.backward"} : tensor<16xf32>
    %t = comm.start {
      %r = comm.all_reduce sum %g on @dp algo <ring> : tensor<16xf32>
      comm.yield %r : tensor<16xf32>
    }
    %h = arith.mulf %b, %b {comm.cost_us = 15.5} : tensor<8xf32>
    %w = comm.wait %t : tensor<16xf32>
    %r2 = comm.all_reduce sum %h on @dp algo <rhd> : tensor<8xf32>
    return %w, %r2 : tensor<16xf32>, tensor<8xf32>
  }
}
