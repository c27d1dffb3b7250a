func.func @unknown_group(%a: tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @nope : tensor<4xf32>
  return
}
