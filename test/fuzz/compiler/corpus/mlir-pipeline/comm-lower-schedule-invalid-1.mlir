comm.group @dp ranks = [0, 1, 2, 3]
func.func @inner_dim(%a: tensor<4x8xf32>) -> tensor<4x32xf32> {
  %r = comm.all_gather %a on @dp dim 1 algo <ring> : tensor<4x8xf32> -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}
