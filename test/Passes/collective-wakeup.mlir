// The topology's wake-up: a collective issued on an idle stream begins no
// earlier than `wakeup` us after its issue (the runtime's threads wake, the
// ranks meet); one queued behind another on its stream begins when that
// ends and pays nothing more. It round-trips, and comm-estimate's timeline
// charges it so (each all-reduce of 4 KiB takes 1.86 us on 910b-8's links).
// A negative wake-up or wake-up idle: test/Passes/collective-overhead-invalid.mlir.
// RUN: hccl-opt %s -split-input-file | FileCheck %s --check-prefix=RT
// RUN: hccl-opt %s -split-input-file --comm-estimate -o /dev/null | FileCheck %s --check-prefix=SYNC
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule --comm-estimate -o /dev/null | FileCheck %s --check-prefix=ASYNC

// Blocking: 10 + (100 + 1.86) + 10 + (100 + 1.86).
// Started: r0 issued at 10 begins at 110; r1 issued at 20 begins at 120.
// RT: reduce = 100, wakeup = 100>}
// SYNC: timeline @idle compute_us=20.000 comm_us=3.720 exposed_comm_us=203.720 iteration_us=223.720
// ASYNC: timeline @idle compute_us=20.000 comm_us=3.720 exposed_comm_us=101.860 iteration_us=121.860
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, wakeup = 100>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @idle(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<1024xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<1024xf32>
  return %r0, %r1 : tensor<1024xf32>, tensor<1024xf32>
}
}

// -----

// Queued: r0 (64 MiB, 889.796 us) issued at 10 begins at 110 and ends at
// 999.796; r1, issued at 20 while r0 runs, begins then: 1001.656 (with a
// second wake-up it would be 1101.656). With the overhead as well, both
// collectives pay it: 2 x 30 us more.
// RT: reduce = 100, overhead = 30, wakeup = 100>}
// ASYNC: timeline @queued compute_us=20.000 comm_us=951.656 exposed_comm_us=1041.656 iteration_us=1061.656
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, overhead = 30, wakeup = 100>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @queued(%x: tensor<16777216xf32>, %y: tensor<1024xf32>) -> (tensor<16777216xf32>, tensor<1024xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<16777216xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<16777216xf32>
  %g1 = arith.mulf %y, %y {comm.cost_us = 10.0} : tensor<1024xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<1024xf32>
  return %r0, %r1 : tensor<16777216xf32>, tensor<1024xf32>
}
}

// -----

// With wakeup_idle = 1000: all of the wake-up after 1000 us of idle, that
// share of it after less. Blocking: r0, its stream's first collective,
// pays all of it (110 - 111.86); r1 is issued at 121.86 after 10 us of
// idle and pays 1 us: 122.86 - 124.72. Started: r1, issued at 20 while r0
// waits out its wake-up, is queued and begins when r0 ends (111.86 -
// 113.72; the plain wake-up gave 120 - 121.86 above).
// RT: reduce = 100, wakeup = 100, wakeup_idle = 1000>}
// SYNC: timeline @short_idle compute_us=20.000 comm_us=3.720 exposed_comm_us=104.720 iteration_us=124.720
// ASYNC: timeline @short_idle compute_us=20.000 comm_us=3.720 exposed_comm_us=93.720 iteration_us=113.720
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, wakeup = 100, wakeup_idle = 1000>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @short_idle(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<1024xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<1024xf32>
  return %r0, %r1 : tensor<1024xf32>, tensor<1024xf32>
}
}
