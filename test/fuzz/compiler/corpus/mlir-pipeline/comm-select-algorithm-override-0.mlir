module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @twelve ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
comm.group @even ranks = [0, 1, 8, 9]
func.func @uneven(%a: tensor<12xf32>) -> (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) {
  %0 = comm.all_reduce sum %a on @twelve : tensor<12xf32>
  %1 = comm.all_reduce sum %a on @even : tensor<12xf32>
  %2 = comm.all_to_all %a on @even split_dim 0 concat_dim 0 : tensor<12xf32> -> tensor<12xf32>
  return %0, %1, %2 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
}
}
