module @jit_accumulate attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%w: tensor<256x256xf32>, %x: tensor<256x256xf32>) -> tensor<256x256xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %zero = stablehlo.constant dense<0.0> : tensor<256x256xf32>
    %0:3 = stablehlo.while(%i = %c0, %acc = %zero, %a = %x) : tensor<i32>, tensor<256x256xf32>, tensor<256x256xf32>
     cond {
      %c4 = stablehlo.constant dense<4> : tensor<i32>
      %p = stablehlo.compare  LT, %i, %c4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %g = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
      %s = "stablehlo.all_reduce"(%g) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
      ^bb0(%l: tensor<f32>, %r: tensor<f32>):
        %t = stablehlo.add %l, %r : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<256x256xf32>) -> tensor<256x256xf32>
      %sum = stablehlo.add %acc, %s : tensor<256x256xf32>
      %na = stablehlo.tanh %g : tensor<256x256xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n, %sum, %na : tensor<i32>, tensor<256x256xf32>, tensor<256x256xf32>
    }
    return %0#1 : tensor<256x256xf32>
  }
}
