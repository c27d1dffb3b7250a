"builtin.module"() ({
"func.func"() <{function_type = (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token, sym_name = "main"}> ({
^bb0(%x: tensor<4xf32>, %t: !stablehlo.token):
  %0 = "stablehlo.send"(%x, %t) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  "func.return"(%0) : (!stablehlo.token) -> ()
}) : () -> ()
}) {mhlo.num_replicas = 2 : i32} : () -> ()
