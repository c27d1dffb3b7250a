module attributes {comm.topology = #comm.topology<servers = 1, devices = 4, intra = mesh #comm.link<hccs, bandwidth = 1, latency = 10, ports = 1>, inter = #comm.link<roce, bandwidth = 1, latency = 10, ports = 1>, reduce = 1>} {
comm.group @dp ranks = [0, 1, 2, 3]
comm.group @tp ranks = [[0, 1], [2, 3]]

func.func @sync(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %g = arith.addf %x, %x {comm.cost_us = 1000.0} : tensor<1000000xf32>
  %r = comm.all_reduce sum %g on @dp algo <ring> : tensor<1000000xf32>
  %u = arith.mulf %r, %r {comm.cost_us = 2000.0} : tensor<1000000xf32>
  return %u : tensor<1000000xf32>
}

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

func.func @roofline(%a: tensor<1024x1024xf32>, %x: tensor<1000000xf32>) -> (tensor<1024x1024xf32>, tensor<1000000xf32>, tensor<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %m = linalg.matmul ins(%a, %a : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %s = arith.addf %x, %x : tensor<1000000xf32>
  %v = tensor.empty() : tensor<1024xf32>
  %r = comm.all_reduce sum %v on @tp : tensor<1024xf32>
  return %m, %s, %r : tensor<1024x1024xf32>, tensor<1000000xf32>, tensor<1024xf32>
}

func.func @compute_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x {comm.cost_us = 5} : tensor<4xf32>
  return %y : tensor<4xf32>
}
}
