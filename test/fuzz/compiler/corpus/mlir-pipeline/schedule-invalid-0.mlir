comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
}
