module @jit_down attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %c5 = stablehlo.constant dense<5> : tensor<i64>
    %0:2 = stablehlo.while(%i = %c5, %v = %x) : tensor<i64>, tensor<4xf32>
     cond {
      %z = stablehlo.constant dense<0> : tensor<i64>
      %p = stablehlo.compare  GT, %i, %z,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %g = "stablehlo.all_gather"(%v) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
      %h = stablehlo.slice %g [0:4] : (tensor<8xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %n = stablehlo.subtract %i, %one : tensor<i64>
      stablehlo.return %n, %h : tensor<i64>, tensor<4xf32>
    }
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.while(%i = %c0, %v = %y) : tensor<i32>, tensor<4xf32>
     cond {
      %c6 = stablehlo.constant dense<6> : tensor<i32>
      %p = stablehlo.compare  GT, %c6, %i,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %r = "stablehlo.reduce_scatter"(%v) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<2xf32>
      %w = stablehlo.concatenate %r, %r, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %n = stablehlo.add %two, %i : tensor<i32>
      stablehlo.return %n, %w : tensor<i32>, tensor<4xf32>
    }
    return %0#1, %1#1 : tensor<4xf32>, tensor<4xf32>
  }
}
