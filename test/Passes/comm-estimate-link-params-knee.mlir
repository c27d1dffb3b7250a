// comm-estimate link-params=FILE and the caches' knee (cache-knee.mlir's
// figures): a file without cache_bytes keeps the module's knee, and one
// with "cache_bytes": 0 prices without it. The 4 MiB all-reduce is 99.993 us
// with the knee (1 MiB at 1x, 3 MiB at 2x) and 58.425 without.
// RUN: hccl-opt %s --comm-estimate=link-params=%S/Inputs/link-params-reduce-100.json -o /dev/null | FileCheck %s --check-prefix=KEPT
// RUN: hccl-opt %s --comm-estimate=link-params=%S/Inputs/link-params-no-knee.json -o /dev/null | FileCheck %s --check-prefix=NONE
// KEPT: #0 all_reduce @dp p=8 bytes=4194304 algo=mesh time_us=99.993
// NONE: #0 all_reduce @dp p=8 bytes=4194304 algo=mesh time_us=58.425
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = 1048576, past_cache = 2>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @knee(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %r0 = comm.all_reduce sum %x on @dp algo <mesh> : tensor<1048576xf32>
  return %r0 : tensor<1048576xf32>
}
}
