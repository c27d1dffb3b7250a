comm.group @dp ranks = [0, 1, 2, 3]
func.func @grads(%a: tensor<256xf32>, %b: tensor<64xf32>) -> (tensor<256xf32>, tensor<64xf32>) {
  %0 = comm.all_reduce sum %a on @dp {comm.bucket = 1} : tensor<256xf32>
  %1 = comm.all_reduce sum %b on @dp {comm.bucket = 1} : tensor<64xf32>
  %2 = ds.scale <sum> %1 : tensor<64xf32>
  return %0, %2 : tensor<256xf32>, tensor<64xf32>
}
