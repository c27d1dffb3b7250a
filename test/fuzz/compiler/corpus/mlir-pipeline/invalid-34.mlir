comm.group @dp ranks = [0, 1]
func.func @nested_hierarchical(%a: tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp algo <hierarchical(ring, hierarchical)> : tensor<4xf32>
  return
}
