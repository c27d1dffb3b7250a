"func.func"() <{function_type = (tensor<4xbf16>, tensor<4xi8>) -> (tensor<4xf32>, tensor<2xi32>), sym_name = "main"}> ({
^bb0(%x: tensor<4xbf16>, %y: tensor<4xi8>):
  %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) : (tensor<4xbf16>) -> tensor<4xf32>
  %1 = "stablehlo.reduce_scatter"(%y) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = "stablehlo.maximum"(%a, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%s) : (tensor<i32>) -> ()
  }) : (tensor<4xi8>) -> tensor<2xi32>
  "func.return"(%0, %1) : (tensor<4xf32>, tensor<2xi32>) -> ()
}) : () -> ()
