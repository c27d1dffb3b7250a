"builtin.module"() <{sym_name = "jit_train_step"}> ({
  "func.func"() <{function_type = (tensor<8x16xf32>, tensor<16xf32>, tensor<4x16xbf16>, tensor<8x4xi32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xbf16>, tensor<2x16xf32>, tensor<4x8xi32>, tensor<16xf32>, tensor<16xf32>), sym_name = "main"}> ({
  ^bb0(%w: tensor<8x16xf32>, %b: tensor<16xf32>, %h: tensor<4x16xbf16>, %e: tensor<8x4xi32>):
    %0 = "stablehlo.multiply"(%w, %w) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %1:2 = "stablehlo.all_reduce"(%0, %b) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>)
    %2 = "stablehlo.all_gather"(%h) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> : (tensor<4x16xbf16>) -> tensor<8x16xbf16>
    %3 = "stablehlo.reduce_scatter"(%1#0) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 0 : i64}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = "stablehlo.maximum"(%y, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) : (tensor<8x16xf32>) -> tensor<2x16xf32>
    %4 = "stablehlo.all_to_all"(%e) <{concat_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<8x4xi32>) -> tensor<4x8xi32>
    %5 = "stablehlo.collective_permute"(%1#1) <{source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<16xf32>) -> tensor<16xf32>
    %6 = "stablehlo.collective_broadcast"(%5) <{replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>}> : (tensor<16xf32>) -> tensor<16xf32>
    "func.return"(%1#0, %1#1, %2, %3, %4, %5, %6) : (tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xbf16>, tensor<2x16xf32>, tensor<4x8xi32>, tensor<16xf32>, tensor<16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
