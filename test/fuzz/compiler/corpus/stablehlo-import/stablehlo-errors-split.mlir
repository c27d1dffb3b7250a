"func.func"() <{function_type = (tensor<8x4xf32>) -> tensor<4x8xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<8x4xf32>):
  %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
  "func.return"(%0) : (tensor<4x8xf32>) -> ()
}) : () -> ()
