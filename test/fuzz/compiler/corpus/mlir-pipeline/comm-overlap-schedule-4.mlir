module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @predicted(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<262144xf32>
  return %r0, %r1, %r2 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}
