comm.group @dp ranks = [0, 1]

func.func @already_async(%a: tensor<1024xf32>)
    -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %t1 = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<1024xf32>
    comm.yield %r : tensor<1024xf32>
  }
  %w1 = comm.wait %t1 : tensor<1024xf32>
  %x = arith.addf %a, %a : tensor<1024xf32>
  %t2 = comm.start {
    %r = comm.all_reduce sum %x on @dp : tensor<1024xf32>
    comm.yield %r : tensor<1024xf32>
  }
  %w2 = comm.wait %t2 : tensor<1024xf32>
  return %x, %w1, %w2 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
