comm.group @dp ranks = [0, 1, 2, 3]

comm.program @ring16 all_reduce sum algo <ring, slices = 2> ranks 4 count 16 attributes {note = "by hand"} : f32 {
^bb0(%rank: index, %p: index, %n: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  comm.buffers input %n output %n scratch %c0
  %block = comm.param "block" = 4
  %next0 = arith.addi %rank, %c1 : index
  %next = comm.emod %next0, %p
  %prev0 = arith.subi %rank, %c1 : index
  %prev = comm.emod %prev0, %p
  comm.phase "copy" steps 1 (%s) {
    comm.step.copy output[0] from input[0] count %n
  }
  comm.phase "reduce_scatter" steps 3 (%s) {
    %a = arith.subi %rank, %s : index
    %sendBlk = comm.emod %a, %p
    %sendOff = arith.muli %sendBlk, %block : index
    %b = arith.subi %a, %c1 : index
    %recvBlk = comm.emod %b, %p
    %recvOff = arith.muli %recvBlk, %block : index
    comm.step.send output[%sendOff] to %next count %block
    comm.step.recv_reduce output[%recvOff] from %prev with output[%recvOff] count %block
  }
  comm.phase "all_gather" steps 3 (%s) {
    %a = arith.subi %rank, %s : index
    %blk = comm.emod %a, %p
    %off = arith.muli %blk, %block : index
    %always = arith.cmpi sge, %rank, %c0 : index
    %w = arith.index_castui %always : i1 to index
    comm.step.send output[%off] to %next count 4
    comm.step.recv output[%off] from %prev count 4 when %w
  }
}

comm.program @mesh8 reduce max algo <mesh> ranks 4 count 8 root 2 rank 1 tables [[1, 2, 3], [4]] : f64 {
^bb0(%rank: index, %p: index, %n: index):
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  comm.buffers input %n output %n scratch %c6
  %k = arith.subi %p, %c1 : index
  comm.phase "gather" steps 1 (%s) {
    comm.repeat %k (%t) {
      %peer0 = arith.addi %rank, %t : index
      %peer1 = arith.addi %peer0, %c1 : index
      %peer = comm.emod %peer1, %p
      %off = arith.muli %t, %c1 : index
      comm.step.recv scratch[%off] from %peer count 2
    }
    comm.step.reduce output[0] from scratch[0] stride 2 n 3 count 2
  }
  comm.phase "tail" step 5 (%s) {
    %e = comm.table_at 0[%c1]
    comm.step.send input[%e] to 0 count 1 when 0
  }
}

func.func @schedules(%g: tensor<16xf32>, %a: tensor<8xf32>, %b: tensor<8xf32>, %h: tensor<8xf64>) {
  %0 = comm.schedule @ring16 all_reduce sum (%g) on @dp algo <ring, slices = 2> {comm.bucket = 0} : (tensor<16xf32>) -> tensor<16xf32>
  %1:2 = comm.schedule @ring16 all_reduce sum (%a, %b) on @dp algo <ring, slices = 2> : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %2 = comm.schedule @mesh8 reduce max (%h) on @dp algo <mesh> : (tensor<8xf64>) -> tensor<8xf64>
  return
}
