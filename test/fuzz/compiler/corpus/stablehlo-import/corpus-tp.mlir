module @jit_tp attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%h: tensor<6x8xf32>) -> (tensor<6x8xf32>, tensor<24x2xf32>) {
    %0 = "stablehlo.reduce_scatter"(%h) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<6x8xf32>) -> tensor<6x2xf32>
    %1 = stablehlo.tanh %0 : tensor<6x2xf32>
    %2 = "stablehlo.all_gather"(%1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<6x2xf32>) -> tensor<6x8xf32>
    %3 = "stablehlo.all_to_all"(%h) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 4 : i64}> : (tensor<6x8xf32>) -> tensor<24x2xf32>
    return %2, %3 : tensor<6x8xf32>, tensor<24x2xf32>
  }
}
