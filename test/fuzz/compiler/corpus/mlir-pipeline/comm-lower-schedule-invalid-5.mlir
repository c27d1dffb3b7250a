comm.group @dp ranks = [0, 1, 2, 3]
func.func @hierarchical_without_topology(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = comm.all_reduce sum %a on @dp algo <hierarchical(ring, ring)> : tensor<8xf32>
  return %r : tensor<8xf32>
}
