module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1]
  comm.program @allreduce_ring_p2_n2_fp32_sum all_reduce sum algo <ring> ranks 2 count 2 : f32 {
  ^bb0(%r: index, %p: index, %n: index):
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    comm.buffers input %n output %n scratch %c0
    %0 = arith.addi %r, %c1 : index
    %1 = comm.emod %0, %p
    %2 = arith.subi %r, %c1 : index
    %3 = comm.emod %2, %p
    %4 = arith.floordivsi %n, %p : index
    %5 = arith.muli %3, %4 : index
    %6 = comm.emod %n, %p
    %7 = arith.minsi %3, %6 : index
    %8 = arith.addi %5, %7 : index
    %9 = arith.cmpi slt, %3, %6 : index
    %10 = arith.index_castui %9 : i1 to index
    %11 = arith.addi %4, %10 : index
    %12 = arith.subi %r, %c2 : index
    %13 = comm.emod %12, %p
    %14 = arith.muli %13, %4 : index
    %15 = arith.minsi %13, %6 : index
    %16 = arith.addi %14, %15 : index
    %17 = arith.cmpi slt, %13, %6 : index
    %18 = arith.index_castui %17 : i1 to index
    %19 = arith.addi %4, %18 : index
    comm.phase "rs" steps 1 (%s) {
      comm.step.send input[%8] to %1 count %11
      comm.step.recv_reduce output[%16] from %3 with input[%16] count %19
    }
    %20 = arith.muli %r, %4 : index
    %21 = arith.minsi %r, %6 : index
    %22 = arith.addi %20, %21 : index
    %23 = arith.cmpi slt, %r, %6 : index
    %24 = arith.index_castui %23 : i1 to index
    %25 = arith.addi %4, %24 : index
    comm.phase "ag" steps 1 (%s) {
      comm.step.send output[%22] to %1 count %25
      comm.step.recv output[%8] from %3 count %11
    }
  }
  func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = arith.addf %arg0, %arg0 {comm.cost_us = 0x7FF0000000000000 : f64} : tensor<2xf32>
    %1 = comm.schedule @allreduce_ring_p2_n2_fp32_sum all_reduce sum (%0) on @g algo <ring> : (tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
