comm.group @dp ranks = [0, 1]
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @wrong_type(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = comm.schedule @p all_reduce sum (%a) on @dp algo <ring> : (tensor<4xbf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}
