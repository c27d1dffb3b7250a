comm.group @quad ranks = [0, 1, 2, 3]
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @wrong_group_size(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule @p all_reduce sum (%a) on @quad algo <ring> : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
