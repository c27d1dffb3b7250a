comm.group @dp ranks = [0, 1, 2, 3]
func.func @no_topology(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.all_reduce sum %a on @dp : tensor<4xf32>
  return %0 : tensor<4xf32>
}
