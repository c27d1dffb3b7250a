module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @one_server(%s: tensor<1024xf32>, %l: tensor<262144xf32>)
    -> (tensor<1024xf32>, tensor<262144xf32>, tensor<8192xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %s on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %l on @dp : tensor<262144xf32>
  %2 = comm.all_gather %s on @dp dim 0 : tensor<1024xf32> -> tensor<8192xf32>
  %3 = comm.broadcast %s on @dp root 0 : tensor<1024xf32>
  %4 = comm.all_reduce sum %s on @dp algo <rhd> : tensor<1024xf32>
  return %0, %1, %2, %3, %4 : tensor<1024xf32>, tensor<262144xf32>, tensor<8192xf32>, tensor<1024xf32>, tensor<1024xf32>
}

func.func @started(%s: tensor<1024xf32>) -> tensor<1024xf32> {
  %t = comm.start {
    %r = comm.all_reduce sum %s on @dp : tensor<1024xf32>
    comm.yield %r : tensor<1024xf32>
  }
  %r = comm.wait %t : tensor<1024xf32>
  return %r : tensor<1024xf32>
}
}
