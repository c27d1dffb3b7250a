comm.program @p all_reduce sum algo <ring> ranks 2 count 4611686018427387904 : f32 {
^bb0(%r: index, %p: index, %n: index):
  %c0 = arith.constant 0 : index
  comm.buffers input %n output %n scratch %c0
}
