comm.group @dp ranks = [0, 1]
func.func @all_to_all_shape(%a: tensor<8x4xf32>) {
  %0 = comm.all_to_all %a on @dp split_dim 0 concat_dim 1 : tensor<8x4xf32> -> tensor<4x4xf32>
  return
}
