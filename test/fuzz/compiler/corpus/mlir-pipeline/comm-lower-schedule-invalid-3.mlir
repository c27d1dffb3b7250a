comm.group @dp ranks = [0, 1, 2, 3]
func.func @wrong_algorithm(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = comm.all_reduce sum %a on @dp algo <pairwise> : tensor<8xf32>
  return %r : tensor<8xf32>
}
