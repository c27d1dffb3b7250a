func.func @negative_cost(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a {comm.cost_us = -2.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
