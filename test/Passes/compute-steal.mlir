// The topology's steal (communication taking compute's cores, us per MB a
// collective moves): a started collective delays the next compute op
// after its issue by steal x its bytes, unless the compute stream waits
// for it first; a blocking one steals nothing. It round-trips, the
// timeline charges it (steal_us, part of exposed_comm_us), and
// policy=optimal sizes with it. Out of range: collective-overhead-invalid.mlir.
// RUN: hccl-opt %s -split-input-file | FileCheck %s --check-prefix=RT
// RUN: hccl-opt %s -split-input-file --comm-estimate -o /dev/null | FileCheck %s --check-prefix=SYNC
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule --comm-estimate -o /dev/null | FileCheck %s --check-prefix=ASYNC
// RUN: hccl-opt %s -split-input-file --hccl-pipeline=lower=false | FileCheck %s --check-prefix=SIZE

// Each 1 MiB all-reduce takes 16.856 us and steals 5 x 1.048576 = 5.243 us.
// Started: g0 0-10; r0 issued at 10 runs 10-26.856; g1 is charged r0's
// steal, 10-25.243; r1 issued at 25.243 waits for the stream, 26.856-43.712;
// g2 is charged r1's, 25.243-60.486. Without the steal g2 would end at 50.
// RT: reduce = 100, steal = 5>}
// SYNC: timeline @overlap compute_us=50.000 comm_us=33.712 exposed_comm_us=33.712 iteration_us=83.712 steal_us=0.000
// ASYNC: timeline @overlap compute_us=50.000 comm_us=33.712 exposed_comm_us=10.486 iteration_us=60.486 steal_us=10.486
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, steal = 5>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @overlap(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 30.0} : tensor<262144xf32>
  return %r0, %r1, %g2 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}

// -----

// The compute after r0 needs its result: the stream waits for r0 first,
// so nothing ran beside it and nothing is charged (10 + 16.856 + 10).
// ASYNC: timeline @waited compute_us=20.000 comm_us=16.856 exposed_comm_us=16.856 iteration_us=36.856 steal_us=0.000
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, steal = 5>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @waited(%x: tensor<262144xf32>) -> tensor<262144xf32> {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %h = arith.mulf %r0, %r0 {comm.cost_us = 10.0} : tensor<262144xf32>
  return %h : tensor<262144xf32>
}
}

// -----

// Four 1 MiB gradients 20 us apart. At a steal of 8 us/MB each bucket
// delays the gradients after it by 8.389 us and four buckets still win
// (80 + 3 x 8.389 + 16.856 = 122.022 us against 138.425 for one); at 16
// us/MB one bucket at the end wins (80 + 58.425 against 147.2).
// SIZE-LABEL: func.func @four8
// SIZE: comm.bucket = 0
// SIZE: comm.bucket = 1
// SIZE: comm.bucket = 2
// SIZE: comm.bucket = 3
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, steal = 8>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @four8(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<262144xf32>
  %g3 = arith.divf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r3 = comm.all_reduce sum %g3 on @dp : tensor<262144xf32>
  return %r0, %r1, %r2, %r3 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}

// -----

// SIZE-LABEL: func.func @four16
// SIZE: comm.bucket = 0
// SIZE-NOT: comm.bucket = 1
// SIZE: return
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, steal = 16>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @four16(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<262144xf32>
  %g3 = arith.divf %x, %x {comm.cost_us = 20.0} : tensor<262144xf32>
  %r3 = comm.all_reduce sum %g3 on @dp : tensor<262144xf32>
  return %r0, %r1, %r2, %r3 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}
