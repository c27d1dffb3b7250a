comm.group @pp ranks = [0, 1, 2]
func.func @permute_outside(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.permute %a on @pp pairs [[0, 3]] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
