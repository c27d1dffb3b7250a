// comm-estimate: the per-collective report and the predicted timeline.
// RUN: hccl-opt %s --comm-estimate -o /dev/null | FileCheck %s --check-prefixes=CHECK,DEF
// RUN: hccl-opt %s --comm-estimate="peak-tflops=1 memory-gbps=1" -o /dev/null | FileCheck %s --check-prefixes=CHECK,SLOW
// RUN: hccl-opt %s --comm-estimate="output=%t.txt trace=%t.json" -o /dev/null | count 0
// RUN: FileCheck %s --check-prefixes=CHECK,DEF < %t.txt
// RUN: FileCheck %s --check-prefix=TRACE < %t.json
// RUN: %python %S/Inputs/check_trace.py %t.json | FileCheck %s --check-prefix=SHAPE
// The IR is not changed.
// RUN: hccl-opt %s --comm-estimate=output=%t.txt | FileCheck %s --check-prefix=IR

// Round figures so the numbers can be checked by hand: 4 ranks, every link
// 1 GB/s (beta = 1 ns/B) with 10 us latency, reduction at 1 GB/s.
// A ring all-reduce of n = 4e6 bytes (docs/design.md, reference formulas):
//   2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma
//   = 60 us + 6000 us + 3000 us = 9060 us,
// busbw = n / 9060 us * 2(p-1)/p = 0.662 GB/s.
module attributes {comm.topology = #comm.topology<servers = 1, devices = 4, intra = mesh #comm.link<hccs, bandwidth = 1, latency = 10, ports = 1>, inter = #comm.link<roce, bandwidth = 1, latency = 10, ports = 1>, reduce = 1>} {
comm.group @dp ranks = [0, 1, 2, 3]
comm.group @tp ranks = [[0, 1], [2, 3]]

// Synchronous: the collective blocks compute.
// 1000 us compute, 9060 us all-reduce, 2000 us compute.
// CHECK-LABEL: comm-estimate @sync topology=1x4
// CHECK-NEXT:  #0 all_reduce @dp p=4 bytes=4000000 algo=ring time_us=9060.000 busbw_GBps=0.662
// CHECK-NEXT:  timeline @sync compute_us=3000.000 comm_us=9060.000 exposed_comm_us=9060.000 iteration_us=12060.000
func.func @sync(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %g = arith.addf %x, %x {comm.cost_us = 1000.0} : tensor<1000000xf32>
  %r = comm.all_reduce sum %g on @dp algo <ring> : tensor<1000000xf32>
  %u = arith.mulf %r, %r {comm.cost_us = 2000.0} : tensor<1000000xf32>
  return %u : tensor<1000000xf32>
}

// Asynchronous: the 2000 us of independent compute hides part of it; the
// wait at 3000 us stalls until 1000 + 9060 us. Exposed = 10060 - 3000.
// CHECK-LABEL: comm-estimate @async topology=1x4
// CHECK-NEXT:  #0 all_reduce @dp p=4 bytes=4000000 algo=ring time_us=9060.000 busbw_GBps=0.662
// CHECK-NEXT:  timeline @async compute_us=3000.000 comm_us=9060.000 exposed_comm_us=7060.000 iteration_us=10060.000
func.func @async(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %g = arith.addf %x, %x {comm.cost_us = 1000.0} : tensor<1000000xf32>
  %t = comm.start {
    %r = comm.all_reduce sum %g on @dp algo <ring> : tensor<1000000xf32>
    comm.yield %r : tensor<1000000xf32>
  }
  %c = arith.mulf %x, %x {comm.cost_us = 2000.0} : tensor<1000000xf32>
  %r = comm.wait %t : tensor<1000000xf32>
  %u = arith.addf %r, %c {comm.cost_us = 0} : tensor<1000000xf32>
  return %u : tensor<1000000xf32>
}

// One stream per group: two @dp collectives run one after the other, the
// @tp one beside them, on the same devices' links (docs/passes.md,
// contention). p = 2 ring of 4e6 B: 2 alpha + n beta + n/2 gamma
// = 20 + 4000 + 2000 us; p = 4: 60 + 9000. Both first collectives move at
// half rate until @tp's 6000 us of bandwidth part are done (12000 us; it
// ends at 12020), @dp's first has 3000 us left alone (ends 15060), its
// second runs alone: 24120 us, less what one element's latency part
// (priced on 4 bytes) takes off. Without sharing it was 2 x 9060.
// CHECK-LABEL: comm-estimate @streams topology=1x4
// CHECK-NEXT:  #0 all_reduce @dp p=4 bytes=4000000 algo=ring time_us=9060.000
// CHECK-NEXT:  #1 all_reduce @tp p=2 bytes=4000000 algo=ring time_us=6020.000 busbw_GBps=0.664
// CHECK-NEXT:  #2 all_reduce @dp p=4 bytes=4000000 algo=ring time_us=9060.000
// CHECK-NEXT:  timeline @streams compute_us=0.000 comm_us=24140.000 exposed_comm_us=24119.994 iteration_us=24119.994
func.func @streams(%x: tensor<1000000xf32>) -> (tensor<1000000xf32>, tensor<1000000xf32>, tensor<1000000xf32>) {
  %t0 = comm.start {
    %r = comm.all_reduce sum %x on @dp algo <ring> : tensor<1000000xf32>
    comm.yield %r : tensor<1000000xf32>
  }
  %t1 = comm.start {
    %r = comm.all_reduce sum %x on @tp algo <ring> : tensor<1000000xf32>
    comm.yield %r : tensor<1000000xf32>
  }
  %t2 = comm.start {
    %r = comm.all_reduce sum %x on @dp algo <ring> : tensor<1000000xf32>
    comm.yield %r : tensor<1000000xf32>
  }
  %r0 = comm.wait %t0 : tensor<1000000xf32>
  %r1 = comm.wait %t1 : tensor<1000000xf32>
  %r2 = comm.wait %t2 : tensor<1000000xf32>
  return %r0, %r1, %r2 : tensor<1000000xf32>, tensor<1000000xf32>, tensor<1000000xf32>
}

// Unannotated compute: a roofline of FLOPs at peak-tflops and bytes at
// memory-gbps. The matmul does 2 * 1024^3 FLOPs and moves 4 x 4 MiB; the
// addf moves 3 x 4e6 bytes. Defaults (320 TFLOPS, 1600 GB/s):
//   matmul max(6.711 us, 10.486 us), addf 7.5 us; constants and
//   tensor.empty cost nothing.
// With 1 TFLOPS and 1 GB/s: matmul max(2147.484 us, 16777.216 us), addf
//   12000 us. Collectives without `algo` are priced with the selection's
//   choice, marked "(selected)".
// CHECK-LABEL: comm-estimate @roofline topology=1x4
// CHECK-NEXT:  #0 all_reduce @tp p=2 bytes=4096 algo={{[a-z_]+}} (selected)
// DEF-NEXT:    timeline @roofline compute_us=17.986 comm_us=
// SLOW-NEXT:   timeline @roofline compute_us=28777.216 comm_us=
func.func @roofline(%a: tensor<1024x1024xf32>, %x: tensor<1000000xf32>) -> (tensor<1024x1024xf32>, tensor<1000000xf32>, tensor<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %m = linalg.matmul ins(%a, %a : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %s = arith.addf %x, %x : tensor<1000000xf32>
  %v = tensor.empty() : tensor<1024xf32>
  %r = comm.all_reduce sum %v on @tp : tensor<1024xf32>
  return %m, %s, %r : tensor<1024x1024xf32>, tensor<1000000xf32>, tensor<1024xf32>
}

// A function without collectives needs no topology and reports compute.
// CHECK-LABEL: comm-estimate @compute_only topology=1x4
// CHECK-NEXT:  timeline @compute_only compute_us=5.000 comm_us=0.000 exposed_comm_us=0.000 iteration_us=5.000
func.func @compute_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x {comm.cost_us = 5} : tensor<4xf32>
  return %y : tensor<4xf32>
}
}

// TRACE: "displayTimeUnit": "ns"
// TRACE: "traceEvents": [
// TRACE-DAG: "name": "process_name"
// TRACE-DAG: "name": "compute"
// TRACE-DAG: "name": "comm 1"
// TRACE-DAG: "name": "comm 2"
// TRACE-DAG: "dur": 9060
// TRACE-DAG: "name": "all_reduce @tp"
// TRACE-DAG: "cat": "compute"

// SHAPE: @sync comm_events=1 lanes=[1]
// SHAPE: @async comm_events=1 lanes=[1]
// SHAPE: @streams comm_events=3 lanes=[1, 2, 3]
// SHAPE: @roofline comm_events=1 lanes=[1]
// SHAPE: @compute_only comm_events=0 lanes=[]

// IR: func.func @sync
// IR: comm.all_reduce sum
