comm.group @dp ranks = [0, 1]
func.func @all_gather_elt(%a: tensor<4xf32>) {
  %0 = comm.all_gather %a on @dp dim 0 : tensor<4xf32> -> tensor<8xf16>
  return
}
