"func.func"() <{function_type = (tensor<i32>, tensor<4xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
^bb0(%k: tensor<i32>, %x: tensor<4xf32>):
  %r = "stablehlo.case"(%k) ({
    %c = "stablehlo.concatenate"(%x, %x) <{dimension = 0 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    "stablehlo.return"(%c) : (tensor<8xf32>) -> ()
  }, {
    %g = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    "stablehlo.return"(%g) : (tensor<8xf32>) -> ()
  }) : (tensor<i32>) -> tensor<8xf32>
  "func.return"(%r) : (tensor<8xf32>) -> ()
}) : () -> ()
