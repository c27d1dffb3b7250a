module @jit_pipeline attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 4 : i32} {
  func.func public @main(%h: tensor<4x6xf32>) -> (tensor<4x6xf32>) {
    %0 = "stablehlo.collective_permute"(%h) <{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %1 = stablehlo.tanh %0 : tensor<4x6xf32>
    %2 = "stablehlo.collective_permute"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<4x6xf32>) -> tensor<4x6xf32>
    return %2 : tensor<4x6xf32>
  }
}
