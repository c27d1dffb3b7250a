comm.program @p all_reduce algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
