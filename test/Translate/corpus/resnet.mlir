module @IrToHlo.42 attributes {mhlo.cross_program_prefetches = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main(%arg0: tensor<2x8x8x3xf32>, %arg1: tensor<3x3x3x16xf32>, %arg2: tensor<3x3x3x16xf32>, %arg3: tensor<16xf32>) -> (tensor<2x4x4x16xf32>, tensor<3x3x3x16xf32>, tensor<16xf32>) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<2x8x8x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_0 = stablehlo.constant dense<7.812500e-03> : tensor<16xf32>
    %2 = stablehlo.multiply %1, %cst_0 : tensor<16xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [3] : (tensor<16xf32>) -> tensor<2x8x8x16xf32>
    %4 = stablehlo.subtract %0, %3 : tensor<2x8x8x16xf32>
    %5 = stablehlo.multiply %4, %4 : tensor<2x8x8x16xf32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x8x8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %7 = stablehlo.multiply %6, %cst_0 : tensor<16xf32>
    %cst_1 = stablehlo.constant dense<1.000000e-05> : tensor<16xf32>
    %8 = stablehlo.add %7, %cst_1 : tensor<16xf32>
    %9 = stablehlo.rsqrt %8 : tensor<16xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [3] : (tensor<16xf32>) -> tensor<2x8x8x16xf32>
    %11 = stablehlo.multiply %4, %10 : tensor<2x8x8x16xf32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x16xf32>
    %13 = stablehlo.maximum %11, %12 : tensor<2x8x8x16xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %14 = "stablehlo.reduce_window"(%13, %cst_2) <{padding = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<2x8x8x16xf32>, tensor<f32>) -> tensor<2x4x4x16xf32>
    %15:2 = "stablehlo.all_reduce"(%arg2, %arg3) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3x3x3x16xf32>, tensor<16xf32>) -> (tensor<3x3x3x16xf32>, tensor<16xf32>)
    return %14, %15#0, %15#1 : tensor<2x4x4x16xf32>, tensor<3x3x3x16xf32>, tensor<16xf32>
  }
}
