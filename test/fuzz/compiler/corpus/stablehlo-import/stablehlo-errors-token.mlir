"func.func"() <{function_type = (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token, sym_name = "main"}> ({
^bb0(%x: tensor<4xf32>, %t: !stablehlo.token):
  %0 = "stablehlo.collective_permute"(%t) <{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (!stablehlo.token) -> !stablehlo.token
  "func.return"(%0) : (!stablehlo.token) -> ()
}) : () -> ()
