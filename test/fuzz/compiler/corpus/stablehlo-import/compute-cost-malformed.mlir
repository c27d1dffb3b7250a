module attributes {mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<2x3xf32>, %t: !stablehlo.token, %z: tensor<0x3xf32>, %s: tensor<f32>, %i: tensor<2xi32>) -> (tensor<2x3xf32>, !stablehlo.token, tensor<0x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = "stablehlo.convolution"(%x, %x) <{dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 7, input_feature_dimension = -1, kernel_output_feature_dimension = 0>, feature_group_count = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.add"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
    %2 = "stablehlo.convolution"(%z, %z) <{dimension_numbers = #stablehlo.conv<[b, f]x[i, o]->[b, f]>}> : (tensor<0x3xf32>, tensor<0x3xf32>) -> tensor<0x3xf32>
    %3 = "stablehlo.reduce_window"(%x, %s) <{window_dimensions = array<i64: -4, 2>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      "stablehlo.return"(%a) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %4 = "stablehlo.sort"(%x) <{dimension = 99 : i64}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "stablehlo.select_and_scatter"(%x, %x, %s) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%c) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %6 = "stablehlo.dot"(%s, %s) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %7 = "stablehlo.scatter"(%x, %i) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      "stablehlo.return"(%b) : (tensor<f32>) -> ()
    }) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
    %8 = "stablehlo.dynamic_update_slice"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %9 = "stablehlo.dot_general"(%x, %x) <{dot_dimension_numbers = 5 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xf32>, !stablehlo.token, tensor<0x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
}
