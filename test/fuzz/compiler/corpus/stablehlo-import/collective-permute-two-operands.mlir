"func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %0:2 = "stablehlo.collective_permute"(%x, %y) <{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %1 = "stablehlo.add"(%0#1, %0#1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%1) : (tensor<4xf32>) -> ()
}) : () -> ()
