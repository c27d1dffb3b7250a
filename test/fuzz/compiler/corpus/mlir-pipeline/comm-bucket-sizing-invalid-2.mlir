module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3]
func.func @bad_pinned(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.all_reduce sum %a on @dp algo <pairwise> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
}
