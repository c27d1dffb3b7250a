comm.group @dp ranks = [0, 1]
func.func @wait_types(%a: tensor<4xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  %0 = comm.wait %t : tensor<8xf32>
  return
}
