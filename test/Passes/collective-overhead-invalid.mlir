// RUN: not hccl-opt %s -split-input-file 2>&1 | FileCheck %s
// CHECK: error: topology collective overhead must be finite and >= 0 us, found -1
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, overhead = -1>} {
}

// -----

// CHECK: error: topology collective wake-up must be finite and >= 0 us, found -2
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, overhead = 3, wakeup = -2>} {
}

// -----

// CHECK: error: topology wakeup_idle must be finite and >= 0 us, found -5
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, wakeup = 20, wakeup_idle = -5>} {
}

// -----

// A share of no wake-up: the option would do nothing.
// CHECK: error: topology wakeup_idle needs a wake-up (wakeup > 0) to scale
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, wakeup_idle = 1000>} {
}

// -----

// CHECK: error: topology steal must be in 0..1e6 us per MB, found -1
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, steal = -1>} {
}

// -----

// CHECK: error: topology steal must be in 0..1e6 us per MB, found 2.0e+06
module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, cache = 1048576, past_cache = 2, steal = 2000000>} {
}
