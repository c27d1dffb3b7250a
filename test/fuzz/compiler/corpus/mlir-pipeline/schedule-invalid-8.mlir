comm.group @dp ranks = [0, 1]
comm.program @p all_reduce sum algo <ring> ranks 2 count 8 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @mixed_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  %r:2 = comm.schedule @p all_reduce sum (%a, %b) on @dp algo <ring> : (tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf16>
}
