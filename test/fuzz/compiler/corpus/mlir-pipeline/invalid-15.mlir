comm.group @dp ranks = [0, 1, 2, 3]
func.func @reduce_scatter_size(%a: tensor<32xf32>) {
  %0 = comm.reduce_scatter sum %a on @dp dim 0 : tensor<32xf32> -> tensor<4xf32>
  return
}
