comm.group @dp ranks = [0, 1, 2, 3]
func.func @float_id(%a: tensor<4xf32>) -> tensor<4xf32> {
  %ra = comm.all_reduce sum %a on @dp {comm.bucket = 1.0 : f64} : tensor<4xf32>
  return %ra : tensor<4xf32>
}
