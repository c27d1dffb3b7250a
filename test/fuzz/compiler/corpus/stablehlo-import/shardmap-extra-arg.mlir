module @m {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<16xf32>) -> tensor<16xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%a: tensor<16xf32>, %b: tensor<16xf32>) {
      %1 = stablehlo.add %a, %b : tensor<16xf32>
      sdy.return %1 : tensor<16xf32>
    } : (tensor<16xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
