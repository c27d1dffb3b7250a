comm.group @dp ranks = [0, 1, 2, 3]
func.func @all_gather_size(%a: tensor<4x8xf32>) {
  %0 = comm.all_gather %a on @dp dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}
