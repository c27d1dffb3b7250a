comm.group @pp ranks = [0, 1]
func.func @recv_tag() -> tensor<4xf32> {
  %0 = comm.recv from 0 on @pp tag -3 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
