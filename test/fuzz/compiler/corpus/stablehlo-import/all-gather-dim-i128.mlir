"func.func"() <{function_type = (tensor<4x16xf32>) -> tensor<8x16xf32>, sym_name = "main"}> ({
^bb0(%h: tensor<4x16xf32>):
  %0 = "stablehlo.all_gather"(%h) <{all_gather_dim = 18446744073709551616 : i128, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4x16xf32>) -> tensor<8x16xf32>
  "func.return"(%0) : (tensor<8x16xf32>) -> ()
}) : () -> ()
