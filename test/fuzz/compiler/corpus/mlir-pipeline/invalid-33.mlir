comm.group @dp ranks = [0, 1]
func.func @bad_algorithm(%a: tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp algo <butterfly> : tensor<4xf32>
  return
}
