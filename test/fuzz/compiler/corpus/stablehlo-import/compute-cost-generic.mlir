"builtin.module"() <{sym_name = "cost"}> ({
  "func.func"() <{function_type = (tensor<4x8x16xf32>, tensor<4x16x32xf32>, tensor<2x8x8x8xf32>, tensor<6x3x3x4xf32>, tensor<4x5x5x3xf32>, tensor<3x3x3x4xf32>, tensor<16x16xbf16>, tensor<?x16xf32>, tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<4xf32>, tensor<32x32xf32>, tensor<2x4x4x6xf32>, tensor<2x3x3x4xf32>, tensor<16x16xbf16>, tensor<?x16xf32>, tensor<4x8x32xf32>, tensor<8xf32>, tensor<8xi32>), sym_name = "main"}> ({
  ^bb0(%x: tensor<4x8x16xf32>, %w: tensor<4x16x32xf32>, %img: tensor<2x8x8x8xf32>, %k: tensor<6x3x3x4xf32>, %act: tensor<4x5x5x3xf32>, %dy: tensor<3x3x3x4xf32>, %h: tensor<16x16xbf16>, %d: tensor<?x16xf32>, %v: tensor<8x16xf32>, %i: tensor<8x16xi32>):
    %0 = "stablehlo.dot_general"(%x, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
    %cst = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%0, %cst) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) {dimensions = dense<[1, 2]> : tensor<2xi64>} : (tensor<4x8x32xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = "stablehlo.reshape"(%0) : (tensor<4x8x32xf32>) -> tensor<32x32xf32>
    %3 = "stablehlo.convolution"(%img, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 3, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [1, 2], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 2 : i64, padding = dense<1> : tensor<2x2xi64>} : (tensor<2x8x8x8xf32>, tensor<6x3x3x4xf32>) -> tensor<2x8x8x6xf32>
    %ninf = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %4 = "stablehlo.reduce_window"(%3, %ninf) <{window_dimensions = dense<[1, 2, 2, 1]> : tensor<4xi64>, window_strides = dense<[1, 2, 2, 1]> : tensor<4xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) : (tensor<2x8x8x6xf32>, tensor<f32>) -> tensor<2x4x4x6xf32>
    %5 = "stablehlo.convolution"(%act, %dy) <{batch_group_count = 2 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64}> : (tensor<4x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x3x3x4xf32>
    %6 = "stablehlo.exponential"(%h) : (tensor<16x16xbf16>) -> tensor<16x16xbf16>
    %7 = "stablehlo.add"(%d, %d) : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
    %8 = "stablehlo.dot_general"(%x, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [1]>}> : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %9:2 = "stablehlo.reduce"(%v, %i, %ninf, %c0) <{dimensions = array<i64: 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %e: tensor<i32>):
      %gt = "stablehlo.compare"(%a, %c) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mv = "stablehlo.select"(%gt, %a, %c) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %mi = "stablehlo.select"(%gt, %b, %e) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%mv, %mi) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<8x16xf32>, tensor<8x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
    "func.return"(%1, %2, %4, %5, %6, %7, %8, %9#0, %9#1) : (tensor<4xf32>, tensor<32x32xf32>, tensor<2x4x4x6xf32>, tensor<2x3x3x4xf32>, tensor<16x16xbf16>, tensor<?x16xf32>, tensor<4x8x32xf32>, tensor<8xf32>, tensor<8xi32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} : () -> ()
