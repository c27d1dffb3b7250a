comm.group @dp ranks = [0, 1]
func.func @complex_element(%a: tensor<4xcomplex<f32>>) {
  %0 = comm.broadcast %a on @dp root 0 : tensor<4xcomplex<f32>>
  return
}
