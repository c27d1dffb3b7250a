// comm-verify-schedule proves lowered schedules correct, and rejects broken
// ones with the rank, step, op and element range.
// RUN: hccl-opt %s -split-input-file --comm-verify-schedule=remarks=true -verify-diagnostics

comm.group @pair ranks = [0, 1]
// A two-rank one-shot all-reduce, written by hand: correct.
// expected-remark @+1 {{allreduce mesh_oneshot p=2 n=4 slices=1 (out-of-place, in-place), 2 steps, 8 op instances: correct on all 2 ranks}}
comm.program @exchange all_reduce sum algo <mesh_oneshot> ranks 2 count 4 : f32 {
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
      comm.step.reduce output[0] from scratch[0] stride %n n 2 count %n
    }
}

// -----

comm.group @pair ranks = [0, 1]
// Every rank sends to itself.
// expected-error @+1 {{step schedule is incorrect: rank 0, phase 0 'exchange' step 0, op 0 (send, t=0): peer 0 is the rank itself}}
comm.program @wrong_peer all_reduce sum algo <mesh_oneshot> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s2 = arith.muli %n, %p : index
    comm.buffers input %n output %n scratch %s2
    %peer = arith.subi %c1, %rank : index
    %po = arith.muli %peer, %n : index
    %ro = arith.muli %rank, %n : index
    comm.phase "exchange" steps 1 (%s) {
      comm.step.send input[0] to %rank count %n
      comm.step.recv scratch[%po] from %peer count %n
      comm.step.copy scratch[%ro] from input[0] count %n
    }
    comm.phase "reduce" steps 1 (%s) {
      comm.step.reduce output[0] from scratch[0] stride %n n 2 count %n
    }
}

// -----

comm.group @pair ranks = [0, 1]
// Sends 4 elements, receives 3.
// expected-error @+1 {{step schedule is incorrect: rank 1, phase 0 'exchange' step 0 (step 0), op 0 (send to 0): sends 4 elements to rank 0 but its op 1 (recv from 1) receives 3}}
comm.program @count_mismatch all_reduce sum algo <mesh_oneshot> ranks 2 count 4 : f32 {
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
      comm.step.recv scratch[%po] from %peer count 3
      comm.step.copy scratch[%ro] from input[0] count %n
    }
    comm.phase "reduce" steps 1 (%s) {
      comm.step.reduce output[0] from scratch[0] stride %n n 2 count %n
    }
}

// -----

comm.group @pair ranks = [0, 1]
// Never puts the rank's own data in its slot.
// expected-error @+1 {{step schedule is incorrect: rank 0, phase 1 'reduce' step 0 (step 1), op 0 (reduce): reduces nothing written with input element 0 of rank 1 at destination element 0}}
comm.program @missing_contribution all_reduce sum algo <mesh_oneshot> ranks 2 count 4 : f32 {
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

    }
    comm.phase "reduce" steps 1 (%s) {
      comm.step.reduce output[0] from scratch[0] stride %n n 2 count %n
    }
}

// -----

comm.group @pair ranks = [0, 1]
// Reduces past the end of the output buffer.
// expected-error @+1 {{op 0 (reduce, t=0): writes output[2, 6) beyond its size 4}}
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

// -----

comm.group @pair ranks = [0, 1]
// An op the verifier cannot read as a step-program expression.
comm.program @foreign_op all_reduce sum algo <rd> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
    %c0 = arith.constant 0 : index
    comm.buffers input %n output %n scratch %c0
    comm.phase "exchange" steps 1 (%s) {
      // expected-error @+1 {{is not a step-program operation}}
      %q = arith.ceildivsi %n, %p : index
      comm.step.send input[0] to 0 count %q
    }
}
