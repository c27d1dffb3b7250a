func.func @cost_nan(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a {comm.cost_us = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
