"func.func"() <{function_type = (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>, sym_name = "main"}> ({
^bb0(%a: tensor<1x2xf32>, %k: tensor<2x1xf32>):
  %0 = "stablehlo.convolution"(%a, %k) <{dimension_numbers = #stablehlo.conv<[b, f]x[i, o]->[b, f]>, feature_group_count = 9223372036854775807 : i64}> : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  "func.return"(%0) : (tensor<1x1xf32>) -> ()
}) : () -> ()
