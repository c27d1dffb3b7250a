module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    return %arg0 : tensor<8x16xf32>
  }
}
