"func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "main"}> ({
^bb0(%x: tensor<4xi32>):
  %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = "stablehlo.and"(%a, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%s) : (tensor<i32>) -> ()
  }) : (tensor<4xi32>) -> tensor<4xi32>
  "func.return"(%0) : (tensor<4xi32>) -> ()
}) : () -> ()
