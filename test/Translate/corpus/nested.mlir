module @jit_nested attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
     cond {
      %c2 = stablehlo.constant dense<2> : tensor<i32>
      %p = stablehlo.compare  LT, %i, %c2,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %1:2 = stablehlo.while(%j = %z, %w = %v) : tensor<i32>, tensor<4xf32>
       cond {
        %c3 = stablehlo.constant dense<3> : tensor<i32>
        %p = stablehlo.compare  LT, %j, %c3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        %m = "stablehlo.all_reduce"(%w) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %t = stablehlo.maximum %a, %b : tensor<f32>
          stablehlo.return %t : tensor<f32>
        }) : (tensor<4xf32>) -> tensor<4xf32>
        %one = stablehlo.constant dense<1> : tensor<i32>
        %n = stablehlo.add %j, %one : tensor<i32>
        stablehlo.return %n, %m : tensor<i32>, tensor<4xf32>
      }
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n, %1#1 : tensor<i32>, tensor<4xf32>
    }
    %2:2 = stablehlo.while(%i = %c0, %v = %0#1) : tensor<i32>, tensor<4xf32>
     cond {
      %c9 = stablehlo.constant dense<9> : tensor<i32>
      %p = stablehlo.compare  LT, %i, %c9,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %e = stablehlo.exponential %v : tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n, %e : tensor<i32>, tensor<4xf32>
    }
    return %2#1 : tensor<4xf32>
  }
}
