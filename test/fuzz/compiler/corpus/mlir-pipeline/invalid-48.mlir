comm.group @dp ranks = [0, 1]
func.func @unsupported_element(%a: tensor<4xf8E4M3FN>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<4xf8E4M3FN>
  return
}
