comm.group @tp ranks = [[0, 1], [2, 3]]
func.func @reduce_root(%a: tensor<4xf32>) {
  %0 = comm.reduce max %a on @tp root 2 : tensor<4xf32>
  return
}
