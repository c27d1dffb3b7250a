module {
  comm.program @steps all_reduce sum algo <ring> ranks 2 count 8 : f32 {
  ^bb0(%r: index, %p: index, %n: index):
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    comm.buffers input %n output %n scratch %c0
    %0 = arith.addi %r, %c1 : index
    %1 = comm.emod %0, %p
    comm.phase "spin" steps 16777216 (%s) {
      comm.step.send input[%c0] to %1 count %c0
      comm.step.recv output[%c0] from %1 count %c0
    }
  }
}
