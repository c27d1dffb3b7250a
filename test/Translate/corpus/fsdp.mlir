module @jit_fsdp_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x16xbf16>, %arg1: tensor<4x16xbf16>) -> tensor<2x16xf32> {
    %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<2x16xbf16>) -> tensor<16x16xbf16>
    %1 = stablehlo.dot_general %arg1, %0, contracting_dims = [1] x [1] : (tensor<4x16xbf16>, tensor<16x16xbf16>) -> tensor<4x16xbf16>
    %2 = stablehlo.convert %1 : (tensor<4x16xbf16>) -> tensor<4x16xf32>
    %3 = stablehlo.convert %arg1 : (tensor<4x16xbf16>) -> tensor<4x16xf32>
    %4 = stablehlo.dot_general %2, %3, contracting_dims = [0] x [0] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
    %5 = "stablehlo.reduce_scatter"(%4) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<16x16xf32>) -> tensor<2x16xf32>
    return %5 : tensor<2x16xf32>
  }
}
