comm.group @solo ranks = [[0], [1], [2], [3]]
comm.group @dp ranks = [0, 1, 2, 3]

func.func @singleton_identity(%a: tensor<8xf32>, %b: tensor<4xi32>)
    -> (tensor<8xf32>, tensor<4xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r:2 = comm.all_reduce sum %a, %b on @solo : tensor<8xf32>, tensor<4xi32>
  %g = comm.all_gather %a on @solo dim 0 : tensor<8xf32> -> tensor<8xf32>
  %s = comm.reduce_scatter max %a on @solo dim 0 : tensor<8xf32> -> tensor<8xf32>
  %bc = comm.broadcast %a on @solo root 0 : tensor<8xf32>
  %rd = comm.reduce min %a on @solo root 0 : tensor<8xf32>
  %aa = comm.all_to_all %a on @solo split_dim 0 concat_dim 0 : tensor<8xf32> -> tensor<8xf32>
  comm.barrier on @solo
  return %r#0, %r#1, %g, %s, %bc, %rd, %aa : tensor<8xf32>, tensor<4xi32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

func.func @real_group_kept(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = comm.all_reduce sum %a on @dp : tensor<8xf32>
  %g = comm.all_gather %a on @dp dim 0 : tensor<8xf32> -> tensor<32xf32>
  comm.barrier on @dp
  return %a : tensor<8xf32>
}

func.func @no_cse(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<8xf32>
  %1 = comm.all_reduce sum %a on @dp : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

func.func @adjacent_start_wait(%a: tensor<8xf32>, %b: tensor<2xf16>) -> (tensor<8xf32>, tensor<2xf16>) {
  %t = comm.start {
    %r:2 = comm.all_reduce sum %a, %b on @dp algo <ring> : tensor<8xf32>, tensor<2xf16>
    comm.yield %r#0, %r#1 : tensor<8xf32>, tensor<2xf16>
  }
  %w:2 = comm.wait %t : tensor<8xf32>, tensor<2xf16>
  return %w#0, %w#1 : tensor<8xf32>, tensor<2xf16>
}

func.func @overlapped_start_wait(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<8xf32>
    comm.yield %r : tensor<8xf32>
  }
  %m = arith.mulf %a, %a : tensor<8xf32>
  %w = comm.wait %t : tensor<8xf32>
  return %w, %m : tensor<8xf32>, tensor<8xf32>
}

func.func @singleton_start(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = comm.start {
    %r = comm.all_reduce sum %a on @solo : tensor<8xf32>
    comm.yield %r : tensor<8xf32>
  }
  %m = arith.mulf %a, %a : tensor<8xf32>
  %w = comm.wait %t : tensor<8xf32>
  return %w, %m : tensor<8xf32>, tensor<8xf32>
}

func.func @barrier_start_wait() {
  %t = comm.start {
    comm.barrier on @dp
    comm.yield
  }
  comm.wait %t
  return
}
