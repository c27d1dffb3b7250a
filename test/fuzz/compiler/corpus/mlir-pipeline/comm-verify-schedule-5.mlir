comm.group @pair ranks = [0, 1]
comm.program @foreign_op all_reduce sum algo <rd> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
    %c0 = arith.constant 0 : index
    comm.buffers input %n output %n scratch %c0
    comm.phase "exchange" steps 1 (%s) {
      %q = arith.ceildivsi %n, %p : index
      comm.step.send input[0] to 0 count %q
    }
}
