module @jit_fori attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c4 = stablehlo.constant dense<4> : tensor<i32>
    %0:3 = stablehlo.while(%i = %c0, %ub = %c4, %v = %x) : tensor<i32>, tensor<i32>, tensor<8xf32>
     cond {
      %p = stablehlo.compare  LT, %i, %ub,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %g = stablehlo.tanh %v : tensor<8xf32>
      %s = "stablehlo.all_reduce"(%g) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<8xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n, %ub, %s : tensor<i32>, tensor<i32>, tensor<8xf32>
    }
    return %0#2 : tensor<8xf32>
  }
}
