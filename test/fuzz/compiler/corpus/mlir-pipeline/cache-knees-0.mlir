module attributes {comm.topology = #comm.topology<servers = 1, devices = 8, intra = mesh #comm.link<hccs, bandwidth = 56, latency = 1.5, ports = 7>, inter = #comm.link<roce, bandwidth = 25, latency = 5, ports = 1>, reduce = 100, overhead = 2, wakeup = 10, cache = [1048576, 33554432, 67108864], past_cache = [1.75, 5.5, 2.9], steal = 5>} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]

func.func @knees(%x: tensor<16777216xf32>, %y: tensor<262144xf32>) -> (tensor<16777216xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 100.0} : tensor<16777216xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<16777216xf32>
  %g1 = arith.mulf %y, %y {comm.cost_us = 100.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  return %r0, %r1 : tensor<16777216xf32>, tensor<262144xf32>
}
}
