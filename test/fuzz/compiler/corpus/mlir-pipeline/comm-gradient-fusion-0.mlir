comm.group @dp ranks = [0, 1, 2, 3]
comm.group @tp ranks = [[0, 1], [2, 3]]

func.func @fused_bucket(%a: tensor<4xf32>, %b: tensor<8xf32>, %c: tensor<2x2xf32>)
    -> (tensor<4xf32>, tensor<8xf32>, tensor<2x2xf32>) {
  %ra = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %rb = comm.all_reduce sum %b on @dp {comm.bucket = 0} : tensor<8xf32>
  %rc = comm.all_reduce sum %c on @dp {comm.bucket = 0} : tensor<2x2xf32>
  return %ra, %rb, %rc : tensor<4xf32>, tensor<8xf32>, tensor<2x2xf32>
}

func.func @two_buckets(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %1 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %a on @dp {comm.bucket = 1} : tensor<4xf32>
  %3 = comm.all_reduce sum %a on @dp {comm.bucket = 1} : tensor<4xf32>
  %4 = comm.all_reduce sum %a on @dp : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

func.func @key_splits(%a: tensor<4xf32>, %h: tensor<4xbf16>)
    -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %1 = comm.all_reduce sum %h on @dp {comm.bucket = 0} : tensor<4xbf16>
  %2 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %3 = comm.all_reduce sum %h on @dp {comm.bucket = 0} : tensor<4xbf16>
  %4 = comm.all_reduce max %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %5 = comm.all_reduce sum %a on @tp {comm.bucket = 0} : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>
}

func.func @cycle_split(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %d = arith.addf %0, %0 : tensor<4xf32>
  %1 = comm.all_reduce sum %d on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %b on @dp {comm.bucket = 0} : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

func.func @direct_cycle_split(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %1 = comm.all_reduce sum %0 on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %b on @dp {comm.bucket = 0} : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

func.func @moved_user(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 3} : tensor<4xf32>
  %u = arith.addf %0, %0 : tensor<4xf32>
  %v = arith.negf %u : tensor<4xf32>
  %g = arith.mulf %b, %b : tensor<4xf32>
  %1 = comm.all_reduce sum %g on @dp {comm.bucket = 3} : tensor<4xf32>
  return %v, %1 : tensor<4xf32>, tensor<4xf32>
}

func.func private @sink(tensor<4xf32>)
func.func @side_effect_split(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  func.call @sink(%0) : (tensor<4xf32>) -> ()
  %1 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  %2 = comm.all_reduce sum %a on @dp {comm.bucket = 0} : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
