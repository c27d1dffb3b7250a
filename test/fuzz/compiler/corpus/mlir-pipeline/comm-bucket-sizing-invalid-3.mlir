module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @odd ranks = [0, 1, 2, 8]
func.func @uneven(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.all_reduce sum %a on @odd algo <hierarchical(mesh, ring)> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
}
