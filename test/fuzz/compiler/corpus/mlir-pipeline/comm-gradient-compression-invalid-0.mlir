comm.group @dp ranks = [0, 1, 2, 3]
func.func @started(%a: tensor<4xf32>) -> tensor<4xf32> {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<4xf32>
    comm.yield %r : tensor<4xf32>
  }
  %r = comm.wait %t : tensor<4xf32>
  return %r : tensor<4xf32>
}
