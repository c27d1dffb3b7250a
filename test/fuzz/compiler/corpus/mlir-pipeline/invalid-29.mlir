comm.group @dp ranks = [0, 1]
func.func @start_two_ops(%a: tensor<4xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    %s = comm.all_reduce sum %r on @dp : tensor<4xf32>
    comm.yield %s : tensor<4xf32>
  }
  %0 = comm.wait %t : tensor<4xf32>
  return
}
