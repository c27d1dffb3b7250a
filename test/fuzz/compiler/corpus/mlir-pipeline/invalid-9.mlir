comm.group @dp ranks = [0, 1]
func.func @variadic_type_mismatch(%a: tensor<4xf32>, %b: tensor<8xf16>) {
  %0:2 = "comm.all_reduce"(%a, %b) <{group = @dp, kind = #comm.reduction<sum>}> : (tensor<4xf32>, tensor<8xf16>) -> (tensor<4xf32>, tensor<8xf32>)
  return
}
