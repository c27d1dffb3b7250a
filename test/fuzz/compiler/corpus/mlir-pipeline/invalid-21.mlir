comm.group @pp ranks = [0, 1]
func.func @send_peer(%a: tensor<4xf32>) {
  comm.send %a to 2 on @pp : tensor<4xf32>
  return
}
