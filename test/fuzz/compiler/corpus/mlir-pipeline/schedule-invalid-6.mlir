comm.program @p broadcast algo <tree> ranks 2 count 4 root 3 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
