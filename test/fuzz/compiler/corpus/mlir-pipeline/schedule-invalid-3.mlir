comm.program @p broadcast algo <tree> ranks 2 count 4 : f32 {
^bb0(%rank: index):
  comm.buffers input %rank output %rank scratch %rank
}
