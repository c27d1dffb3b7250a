module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7]]

func.func @four_small(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<1024xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<1024xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<1024xf32>
  %g3 = arith.divf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r3 = comm.all_reduce sum %g3 on @dp : tensor<1024xf32>
  return %r0, %r1, %r2, %r3 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

func.func @comm_bound(%a: tensor<262144xf32>, %b: tensor<262144xf32>, %c: tensor<262144xf32>, %d: tensor<262144xf32>)
    -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %r0 = comm.all_reduce sum %a on @dp : tensor<262144xf32>
  %r1 = comm.all_reduce sum %b on @dp : tensor<262144xf32>
  %r2 = comm.all_reduce sum %c on @dp : tensor<262144xf32>
  %r3 = comm.all_reduce sum %d on @dp : tensor<262144xf32>
  return %r0, %r1, %r2, %r3 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}

func.func @two_phases(%a: tensor<262144xf32>, %b: tensor<262144xf32>)
    -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %r0 = comm.all_reduce sum %a on @dp : tensor<262144xf32>
  %r1 = comm.all_reduce sum %b on @dp : tensor<262144xf32>
  %c = arith.addf %a, %b {comm.cost_us = 1000.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %c on @dp : tensor<262144xf32>
  %r3 = comm.all_reduce sum %c on @dp : tensor<262144xf32>
  return %r0, %r1, %r2, %r3 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}
