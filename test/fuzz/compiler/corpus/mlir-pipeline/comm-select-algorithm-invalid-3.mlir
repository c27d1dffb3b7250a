module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @twelve ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
func.func @uneven(%a: tensor<12xf32>) -> tensor<12xf32> {
  %0 = comm.all_reduce sum %a on @twelve algo <hierarchical(mesh, ring)> : tensor<12xf32>
  return %0 : tensor<12xf32>
}
}
