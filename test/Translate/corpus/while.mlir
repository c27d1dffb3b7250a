"func.func"() <{function_type = (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
^bb0(%n: tensor<i64>, %x: tensor<4xf32>):
  %r:2 = "stablehlo.while"(%n, %x) ({
  ^bb0(%i: tensor<i64>, %v: tensor<4xf32>):
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %c = "stablehlo.compare"(%i, %z) <{comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i64>, %v: tensor<4xf32>):
    %one = "stablehlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    %s = "stablehlo.all_reduce"(%v) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %j = "stablehlo.subtract"(%i, %one) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%j, %s) : (tensor<i64>, tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>)
  "func.return"(%r#1) : (tensor<4xf32>) -> ()
}) : () -> ()
