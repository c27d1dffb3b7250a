module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x16xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
