"func.func"() <{function_type = (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<2x3xf32>, %s: tensor<f32>):
  %3 = "stablehlo.reduce_window"(%x, %s) <{window_dimensions = dense<[1, 1]> : tensor<2xi8>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  "func.return"(%3) : (tensor<2x3xf32>) -> ()
}) : () -> ()
