comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  comm.phase "x" steps 1 (%s) {
    comm.step.send temp[0] to 1 count 4
  }
}
