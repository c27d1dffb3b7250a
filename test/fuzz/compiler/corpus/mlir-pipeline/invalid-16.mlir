comm.group @dp ranks = [0, 1, 2, 3]
func.func @broadcast_root(%a: tensor<4xf32>) {
  %0 = comm.broadcast %a on @dp root 4 : tensor<4xf32>
  return
}
