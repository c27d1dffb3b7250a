// The per-collective overhead (launch, synchronisation, fusion copy) of the
// topology: it round-trips, a negative one is refused, and the sizing cost
// model charges it once per bucket, so optimal fuses what it left apart
// when collectives were nearly free.
// RUN: hccl-opt %s -split-input-file | FileCheck %s --check-prefix=RT
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing=policy=optimal | FileCheck %s --check-prefix=OPT
// A negative overhead: test/Passes/collective-overhead-invalid.mlir.

// Four 4 KiB gradients, 10 us of compute before each: without overhead
// each all-reduce (about 2.5 us) hides behind the next compute; the first
// three share a bucket at no cost (ties go to fewer buckets), the last is
// alone (a bucket with it would finish later).
// RT-LABEL: module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100>}
// OPT-LABEL: func.func @free
// OPT: comm.bucket = 0 :
// OPT: comm.bucket = 0 :
// OPT: comm.bucket = 0 :
// OPT: comm.bucket = 1 :
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @free(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<1024xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<1024xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<1024xf32>
  %g3 = arith.divf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r3 = comm.all_reduce sum %g3 on @dp : tensor<1024xf32>
  return %r0, %r1, %r2, %r3 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
}

// -----

// The same with 30 us per collective: each bucket now costs more than the
// compute between gradients, and one bucket for all four finishes first.
// RT-LABEL: module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, overhead = 30>}
// OPT-LABEL: func.func @costly
// OPT-COUNT-4: comm.bucket = 0 :
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, overhead = 30>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @costly(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<1024xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<1024xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<1024xf32>
  %g3 = arith.divf %x, %x {comm.cost_us = 10.0} : tensor<1024xf32>
  %r3 = comm.all_reduce sum %g3 on @dp : tensor<1024xf32>
  return %r0, %r1, %r2, %r3 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
}

