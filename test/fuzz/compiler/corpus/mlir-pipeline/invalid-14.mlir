comm.group @dp ranks = [0, 1]
func.func @all_gather_other_dim(%a: tensor<4x8xf32>) {
  %0 = comm.all_gather %a on @dp dim 0 : tensor<4x8xf32> -> tensor<8x9xf32>
  return
}
