// Numbers that inf or nan would slip past: a `>= 0` check accepts inf, and
// the plan exporter wrote `"cost_us": null` for it
// (test/Translate/comm-to-plan-non-finite.test).
// RUN: hccl-opt %s -split-input-file -verify-diagnostics

func.func @cost_inf(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.cost_us' must be a finite number of microseconds, found}}
  %0 = arith.addf %a, %a {comm.cost_us = 0x7FF0000000000000 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cost_nan(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.cost_us' must be a finite number of microseconds, found}}
  %0 = arith.addf %a, %a {comm.cost_us = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @flops_inf(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{flops must be a finite number >= 0, found}}
  %0 = comm.compute "mm"(%a) {flops = 0x7FF0000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{link bandwidth and latency must be finite, found inf GB/s and 1.5 us}}
module attributes {x.link = #comm.link<hccs, bandwidth = 1.0e309, latency = 1.5, ports = 7>} {
}

// -----

// expected-error @+1 {{link bandwidth and latency must be finite, found 56 GB/s and inf us}}
module attributes {x.link = #comm.link<hccs, bandwidth = 56, latency = 1.0e309, ports = 7>} {
}

// -----

// expected-error @+1 {{topology reduction bandwidth must be finite, found inf}}
module attributes {x.t = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 1.0e309>} {
}
