"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<4xf32>):
  %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 0]]> : tensor<1x2xi8>}> : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()
