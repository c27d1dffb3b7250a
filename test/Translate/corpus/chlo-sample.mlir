module @jit_sample attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%u: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xi32>) {
    %0 = chlo.erf_inv %u : tensor<4x8xf32> -> tensor<4x8xf32>
    %1 = chlo.broadcast_add %0, %b {broadcast_dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %2 = chlo.lgamma %1 : tensor<4x8xf32> -> tensor<4x8xf32>
    %3 = chlo.next_after %2, %1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %v, %i = chlo.top_k(%3, k = 2) : tensor<4x8xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)
    %4 = "stablehlo.all_reduce"(%3) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %s = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %4, %v, %i : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xi32>
  }
}
