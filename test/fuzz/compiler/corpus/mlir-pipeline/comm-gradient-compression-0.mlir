module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]

func.func @bucket(%a: tensor<1024xf32>, %b: tensor<4x4xf32>) -> (tensor<1024xf32>, tensor<4x4xf32>) {
  %r:2 = comm.all_reduce sum %a, %b on @dp algo <ring> {comm.bucket = 3} : tensor<1024xf32>, tensor<4x4xf32>
  %s = arith.addf %r#0, %a : tensor<1024xf32>
  return %s, %r#1 : tensor<1024xf32>, tensor<4x4xf32>
}

func.func @untouched(%a: tensor<8xf32>, %i: tensor<8xi32>, %h: tensor<8xbf16>)
    -> (tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<64xf32>) {
  %0 = comm.all_reduce max %a on @dp : tensor<8xf32>
  %1 = comm.all_reduce sum %i on @dp : tensor<8xi32>
  %2 = comm.all_reduce sum %h on @dp : tensor<8xbf16>
  %3 = comm.all_gather %a on @dp dim 0 : tensor<8xf32> -> tensor<64xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xi32>, tensor<8xbf16>, tensor<64xf32>
}
}
