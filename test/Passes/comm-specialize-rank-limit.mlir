// Unrolling is bounded by lib/schedule's kMaxExpandedSize (IR ops created):
// a phase of 2^24 steps or a repeat of 2^24 instances is refused at once
// (it used to unroll for minutes and gigabytes).
// RUN: not hccl-opt %s -split-input-file --comm-specialize-rank=rank=1 2>&1 | FileCheck %s

// CHECK: error: 'comm.program' op cannot specialise for rank 1: unrolling its phases expands to more than 1048576 IR ops (kMaxExpandedSize
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

// -----

// CHECK: error: 'comm.program' op cannot specialise for rank 1: unrolling its repeats expands to more than 1048576 IR ops (kMaxExpandedSize
module {
  comm.program @repeats all_reduce sum algo <ring> ranks 2 count 8 : f32 {
  ^bb0(%r: index, %p: index, %n: index):
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %big = arith.constant 16777216 : index
    comm.buffers input %n output %n scratch %c0
    %0 = arith.addi %r, %c1 : index
    %1 = comm.emod %0, %p
    comm.phase "spin" steps 1 (%s) {
      comm.repeat %big (%t) {
        comm.step.send input[%c0] to %1 count %c0
      }
    }
  }
}
