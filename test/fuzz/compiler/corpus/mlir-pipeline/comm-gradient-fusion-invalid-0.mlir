comm.group @dp ranks = [0, 1, 2, 3]
func.func @string_id(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ra = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %rb = comm.all_reduce sum %b on @dp {comm.bucket = "0"} : tensor<4xf32>
  return %ra, %rb : tensor<4xf32>, tensor<4xf32>
}
