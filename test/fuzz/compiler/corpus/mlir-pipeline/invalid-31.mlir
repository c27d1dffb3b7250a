comm.group @dp ranks = [0, 1]
func.func @start_bad_yield(%a: tensor<4xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %a : tensor<4xf32>
  }
  %0 = comm.wait %t : tensor<4xf32>
  return
}
