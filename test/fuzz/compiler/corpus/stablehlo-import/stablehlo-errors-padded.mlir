"func.func"() <{function_type = (tensor<4xf32>) -> tensor<12xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<4xf32>):
  %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2], [3, 4, -1]]> : tensor<2x3xi64>}> : (tensor<4xf32>) -> tensor<12xf32>
  "func.return"(%0) : (tensor<12xf32>) -> ()
}) : () -> ()
