module @m {
  sdy.mesh @mesh = <["x"=4294967296, "y"=4294967296]>
  func.func public @main(%arg0: tensor<16xf32>) -> tensor<16xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x", "y"} (%arg2: tensor<16xf32>) {
      sdy.return %arg2 : tensor<16xf32>
    } : (tensor<16xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
