comm.program @p all_to_allv algo <pairwise> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  %x = comm.table_at 0[%rank]
}
