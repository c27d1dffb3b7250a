comm.group @dp ranks = [0, 1, 2, 3]
func.func @transposing_all_to_all(%a: tensor<8x4xf32>) -> tensor<2x16xf32> {
  %r = comm.all_to_all %a on @dp split_dim 0 concat_dim 1 algo <pairwise> : tensor<8x4xf32> -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}
