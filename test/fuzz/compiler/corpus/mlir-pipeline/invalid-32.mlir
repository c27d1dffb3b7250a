comm.group @dp ranks = [0, 1]
func.func @bad_reduction(%a: tensor<4xf32>) {
  %0 = comm.all_reduce avg %a on @dp : tensor<4xf32>
  return
}
