module @jit_minstep attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i64>
    %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<4xf32>
     cond {
      %c = stablehlo.constant dense<4> : tensor<i64>
      %p = stablehlo.compare  LT, %i, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %s = "stablehlo.all_reduce"(%v) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
      %n = stablehlo.subtract %i, %one : tensor<i64>
      stablehlo.return %n, %s : tensor<i64>, tensor<4xf32>
    }
    return %0#1 : tensor<4xf32>
  }
}
