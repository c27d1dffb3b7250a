module @m {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main() -> () {
    return
  ^bb1:
    sdy.manual_computation() in_shardings=[<@mesh, []>] out_shardings=[] manual_axes={"x"} () {
      %c = stablehlo.constant dense<1.0> : tensor<f32>
      %d = stablehlo.add %c, %c : tensor<f32>
      sdy.return
    } : () -> ()
    return
  }
}
