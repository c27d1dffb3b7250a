module @jit_wide attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = stablehlo.constant dense<1267650600228229401496703205376> : tensor<i128>
    %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i128>, tensor<4xf32>
     cond {
      %c = stablehlo.constant dense<1267650600228229401496703205380> : tensor<i128>
      %p = stablehlo.compare  LT, %i, %c,  SIGNED : (tensor<i128>, tensor<i128>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %s = "stablehlo.all_reduce"(%v) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i128>
      %n = stablehlo.add %i, %one : tensor<i128>
      stablehlo.return %n, %s : tensor<i128>, tensor<4xf32>
    }
    return %0#1 : tensor<4xf32>
  }
}
