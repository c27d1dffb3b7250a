// The topology's caches' knee: a collective's byte terms hold for its first
// `cache` bytes per rank; each byte past them costs `past_cache` times as
// much, its latency terms unchanged. It round-trips, and comm-estimate
// prices with it: on 910b-8's links the 8-rank mesh all-reduce of 4 MiB is
// 58.425 us without a knee, of which 3.001 us is the price of one element
// (two steps of 1.5 us), so with 1 MiB at 1x and 3 MiB at 2x its byte terms
// cost (1 + 2 * 3) / 4 = 1.75x: 3.001 + 55.424 * 1.75 = 99.993 us. The
// 1 MiB all-reduce, not past the knee, keeps its 16.856 us.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=RT
// RUN: hccl-opt %s -split-input-file -verify-diagnostics --comm-select-algorithm --comm-estimate -o /dev/null | FileCheck %s --check-prefix=EST

// RT: reduce = 100, cache = 1048576, past_cache = 2>}
// EST: #0 all_reduce @dp p=8 bytes=4194304 algo=mesh time_us=99.993
// EST: #1 all_reduce @dp p=8 bytes=1048576 algo=mesh time_us=16.856
// EST: timeline @knee compute_us=0.000 comm_us=116.849
// RT-NOT: past_cache
// EST: #0 all_reduce @dp p=8 bytes=4194304 algo=mesh time_us=58.425
// EST: #1 all_reduce @dp p=8 bytes=1048576 algo=mesh time_us=16.856
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = 1048576, past_cache = 2>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @knee(%x: tensor<1048576xf32>, %y: tensor<262144xf32>) -> (tensor<1048576xf32>, tensor<262144xf32>) {
  %r0 = comm.all_reduce sum %x on @dp : tensor<1048576xf32>
  %r1 = comm.all_reduce sum %y on @dp : tensor<262144xf32>
  return %r0, %r1 : tensor<1048576xf32>, tensor<262144xf32>
}
}

// -----

// The same without a knee.
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @flat(%x: tensor<1048576xf32>, %y: tensor<262144xf32>) -> (tensor<1048576xf32>, tensor<262144xf32>) {
  %r0 = comm.all_reduce sum %x on @dp : tensor<1048576xf32>
  %r1 = comm.all_reduce sum %y on @dp : tensor<262144xf32>
  return %r0, %r1 : tensor<1048576xf32>, tensor<262144xf32>
}
}

// -----

// Knees as lists: a second at 2 MiB, x3 per in-cache byte past it: the 4
// MiB all-reduce's bytes cost 1M + 2 * 1M + 3 * 2M = 9M in-cache bytes,
// 2.25x: 3.001 + 55.424 * 2.25 = 127.705 us; the 1 MiB one keeps its
// price. The lists print as lists, before `steal`.
// RT: reduce = 100, cache = [1048576, 2097152], past_cache = [2, 3], steal = 5>}
// EST: #0 all_reduce @dp p=8 bytes=4194304 algo=mesh time_us=127.70{{[0-9]}}
// EST: #1 all_reduce @dp p=8 bytes=1048576 algo=mesh time_us=16.856
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = [1048576, 2097152], past_cache = [2, 3], steal = 5>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @knees(%x: tensor<1048576xf32>, %y: tensor<262144xf32>) -> (tensor<1048576xf32>, tensor<262144xf32>) {
  %r0 = comm.all_reduce sum %x on @dp : tensor<1048576xf32>
  %r1 = comm.all_reduce sum %y on @dp : tensor<262144xf32>
  return %r0, %r1 : tensor<1048576xf32>, tensor<262144xf32>
}
}

// -----

// expected-error @+1 {{topology past_cache must be in 1..1000, found 0.5}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = 1048576, past_cache = 0.5>} {}

// -----

// expected-error @+1 {{topology cache must be finite and >= 0 bytes, found -1}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = -1, past_cache = 2>} {}

// -----

// expected-error @+1 {{topology past_cache needs the cache bytes it applies past}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = 0, past_cache = 2>} {}

// -----

// A cache without its factor is a syntax error.
// expected-error @+1 {{expected ','}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = 1048576>} {}

// -----

// expected-error @+1 {{topology cache knees must ascend: 1048576 after 2097152}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = [2097152, 1048576], past_cache = [2, 3]>} {}

// -----

// expected-error @+1 {{topology past_cache must be in 1..1000, found 0.5}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = [1048576, 2097152], past_cache = [2, 0.5]>} {}

// -----

// expected-error @+1 {{topology cache and past_cache need one factor per knee: 2 knees, 1 factors}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = [1048576, 2097152], past_cache = 2>} {}

// -----

// expected-error @+1 {{topology cache knees: at most 8, found 9}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = [1, 2, 3, 4, 5, 6, 7, 8, 9], past_cache = [1, 1, 1, 1, 1, 1, 1, 1, 1]>} {}

// -----

// A list without its commas is a syntax error.
// expected-error @+1 {{expected ']'}}
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = [1048576 2097152], past_cache = [2, 3]>} {}
