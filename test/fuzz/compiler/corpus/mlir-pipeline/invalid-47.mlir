comm.group @dp ranks = [0, 1]
func.func @negative_bucket(%a: tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = -1} : tensor<4xf32>
  return
}
