comm.group @dp ranks = [0, 1, 2, 3]
func.func @liveness(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %u0 = arith.negf %r0 : tensor<262144xf32>
  %g1 = arith.mulf %x, %x : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %u1 = arith.negf %r1 : tensor<262144xf32>
  return %u0, %u1 : tensor<262144xf32>, tensor<262144xf32>
}
