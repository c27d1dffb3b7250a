comm.group @dp ranks = [0, 1, 2, 3]

func.func @backward(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 1.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %u0 = arith.negf %r0 : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 2.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %u1 = arith.negf %r1 : tensor<262144xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 3.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<262144xf32>
  %u2 = arith.negf %r2 : tensor<262144xf32>
  return %u0, %u1, %u2 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
