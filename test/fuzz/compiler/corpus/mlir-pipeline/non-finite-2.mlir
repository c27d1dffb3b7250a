func.func @flops_inf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.compute "mm"(%a) {flops = 0x7FF0000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
