"builtin.module"() ({
"func.func"() <{function_type = (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<2x2xi64>, tensor<2x4xi64>, tensor<2x2xi64>, tensor<2x4xi64>), sym_name = "main"}> ({
^bb0(%a: tensor<2x2xi64>, %b: tensor<2x2xi64>, %c: tensor<2x4xi64>, %d: tensor<2x4xi64>):
  %g:2 = "stablehlo.all_gather"(%a, %b) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
  %t:2 = "stablehlo.all_to_all"(%c, %d) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
  %s:2 = "stablehlo.collective_broadcast"(%a, %c) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2x2xi64>, tensor<2x4xi64>) -> (tensor<2x2xi64>, tensor<2x4xi64>)
  %r:2 = "stablehlo.all_reduce"(%a, %c) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %z = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%z) : (tensor<i64>) -> ()
  }) : (tensor<2x2xi64>, tensor<2x4xi64>) -> (tensor<2x2xi64>, tensor<2x4xi64>)
  "func.return"(%g#0, %g#1, %t#0, %t#1, %s#0, %s#1, %r#0, %r#1) : (tensor<2x4xi64>, tensor<2x4xi64>, tensor<4x2xi64>, tensor<4x2xi64>, tensor<2x2xi64>, tensor<2x4xi64>, tensor<2x2xi64>, tensor<2x4xi64>) -> ()
}) : () -> ()
}) {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32, comm.topology = #comm.topology<"910b-8">} : () -> ()
