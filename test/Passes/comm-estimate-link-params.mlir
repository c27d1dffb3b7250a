// comm-estimate link-params=FILE: the schedule as compiled, priced with
// another file's link figures; the fields the file lacks keep the module's.
// RUN: hccl-opt %s --comm-estimate -o /dev/null | FileCheck %s --check-prefix=MODULE
// RUN: hccl-opt %s --comm-estimate=link-params=%S/Inputs/link-params-fast-intra.json -o /dev/null | FileCheck %s --check-prefix=INTRA
// RUN: hccl-opt %s --comm-estimate=link-params=%S/Inputs/link-params-fast-reduce.json -o /dev/null | FileCheck %s --check-prefix=REDUCE
// The IR (its topology included) is not changed.
// RUN: hccl-opt %s --comm-estimate="link-params=%S/Inputs/link-params-fast-intra.json output=%t.txt" | FileCheck %s --check-prefix=IR

// 4 ranks, links at 1 GB/s with 10 us latency, reduction at 1 GB/s. A ring
// all-reduce of n = 4e6 bytes: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma
//   module's figures:           60 + 6000 + 3000 = 9060 us
//   links at 2 GB/s (INTRA):    60 + 3000 + 3000 = 6060 us
//   reduction at 2 GB/s:        60 + 6000 + 1500 = 7560 us
// and the timeline around it: 1000 us of compute before, 2000 after.
module attributes {comm.topology = #comm.topology<servers = 1, devices = 4, intra = mesh #comm.link<hccs, bandwidth = 1, latency = 10, ports = 1>, inter = #comm.link<roce, bandwidth = 1, latency = 10, ports = 1>, reduce = 1>} {
comm.group @dp ranks = [0, 1, 2, 3]

// MODULE: #0 all_reduce @dp p=4 bytes=4000000 algo=ring time_us=9060.000
// MODULE: timeline @sync compute_us=3000.000 comm_us=9060.000 exposed_comm_us=9060.000 iteration_us=12060.000
// INTRA: #0 all_reduce @dp p=4 bytes=4000000 algo=ring time_us=6060.000
// INTRA: timeline @sync compute_us=3000.000 comm_us=6060.000 exposed_comm_us=6060.000 iteration_us=9060.000
// REDUCE: #0 all_reduce @dp p=4 bytes=4000000 algo=ring time_us=7560.000
// REDUCE: timeline @sync compute_us=3000.000 comm_us=7560.000 exposed_comm_us=7560.000 iteration_us=10560.000
// IR: comm.topology = #comm.topology<servers = 1, devices = 4, intra = mesh #comm.link<hccs, bandwidth = 1, latency = 10, ports = 1>
func.func @sync(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %g = arith.addf %x, %x {comm.cost_us = 1000.0} : tensor<1000000xf32>
  %r = comm.all_reduce sum %g on @dp algo <ring> : tensor<1000000xf32>
  %u = arith.mulf %r, %r {comm.cost_us = 2000.0} : tensor<1000000xf32>
  return %u : tensor<1000000xf32>
}
}
