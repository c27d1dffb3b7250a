comm.group @dp ranks = [0, 1]
func.func @all_gather_dim(%a: tensor<4x8xf32>) {
  %0 = comm.all_gather %a on @dp dim 2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}
