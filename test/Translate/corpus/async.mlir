"builtin.module"() ({
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<8xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<4xf32>):
  %t = "mhlo.async_start"(%x) {called_computation = @ag, execution_thread = "main"} : (tensor<4xf32>) -> !mhlo.async_bundle<tensor<4xf32>, tensor<8xf32>>
  %r = "mhlo.async_done"(%t) {called_computation = @ag, execution_thread = "main"} : (!mhlo.async_bundle<tensor<4xf32>, tensor<8xf32>>) -> tensor<8xf32>
  "func.return"(%r) : (tensor<8xf32>) -> ()
}) : () -> ()
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<8xf32>, sym_name = "ag", sym_visibility = "private"}> ({
^bb0(%y: tensor<4xf32>):
  %0 = "stablehlo.all_gather"(%y) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
  "func.return"(%0) : (tensor<8xf32>) -> ()
}) : () -> ()
}) : () -> ()
