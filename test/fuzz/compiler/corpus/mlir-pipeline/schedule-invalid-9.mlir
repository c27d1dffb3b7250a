comm.group @dp ranks = [0, 1]
func.func @unknown_program(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule @nope all_reduce sum (%a) on @dp algo <ring> : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
