comm.group @pair ranks = [0, 1]
comm.program @out_of_bounds all_reduce sum algo <mesh_oneshot> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s2 = arith.muli %n, %p : index
    comm.buffers input %n output %n scratch %s2
    %peer = arith.subi %c1, %rank : index
    %po = arith.muli %peer, %n : index
    %ro = arith.muli %rank, %n : index
    comm.phase "exchange" steps 1 (%s) {
      comm.step.send input[0] to %peer count %n
      comm.step.recv scratch[%po] from %peer count %n
      comm.step.copy scratch[%ro] from input[0] count %n
    }
    comm.phase "reduce" steps 1 (%s) {
      comm.step.reduce output[2] from scratch[0] stride %n n 2 count %n
    }
}
