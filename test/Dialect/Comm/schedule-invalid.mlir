// Verifiers of the step-schedule ops.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics

comm.group @dp ranks = [0, 1]
func.func @no_buffers(%g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body must hold exactly one comm.buffers, found 0}}
  %r = comm.schedule all_reduce sum (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @missing_kind(%g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a reducing collective needs a reduction kind}}
  %r = comm.schedule all_reduce (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @kind_on_gather(%g: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{only reducing collectives take a reduction kind}}
  %r = comm.schedule all_gather sum (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
  }
  return %r : tensor<8xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @bad_args(%g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body must take three index arguments (rank, group size, count), found 1}}
  %r = comm.schedule broadcast (%g) on @dp algo <tree> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index):
    comm.buffers input %rank output %rank scratch %rank
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @stray_op(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule broadcast (%g) on @dp algo <tree> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
    // expected-error @+1 {{is not allowed in a comm.schedule body}}
    comm.barrier on @dp
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @rank_out_of_group(%g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{rank 2 is outside the group: expected 0..1}}
  %r = comm.schedule broadcast (%g) on @dp algo <tree> count 4 rank 2 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @mixed_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  // expected-error @+1 {{all inputs and results must share one element type (the program's dtype), found 'f32' and 'f16'}}
  %r:2 = comm.schedule all_reduce sum (%a, %b) on @dp algo <ring> count 8 : (tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf16>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @writes_input(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule all_reduce sum (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
    comm.phase "x" steps 1 (%s) {
      // expected-error @+1 {{writes the input buffer: the user's send buffer is const}}
      comm.step.recv input[0] from 1 count 4
    }
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @negative_field(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule all_reduce sum (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
    comm.phase "x" steps 1 (%s) {
      // expected-error @+1 {{count -4 is negative}}
      comm.step.send input[0] to 1 count -4
    }
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @zero_sources(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule all_reduce sum (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
    comm.phase "x" steps 1 (%s) {
      // expected-error @+1 {{n must be >= 1, found 0}}
      comm.step.reduce output[0] from scratch[0] stride 4 n 0 count 4
    }
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @bad_buffer(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule all_reduce sum (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
    comm.phase "x" steps 1 (%s) {
      // expected-error @+1 {{unknown buffer 'temp'; expected input, output or scratch}}
      comm.step.send temp[0] to 1 count 4
    }
  }
  return %r : tensor<4xf32>
}

// -----

func.func @step_outside_phase() {
  // expected-error @+1 {{expects parent op to be one of 'comm.phase, comm.repeat'}}
  comm.step.send input[0] to 1 count 4
  return
}

// -----

comm.group @dp ranks = [0, 1]
func.func @missing_table(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule all_to_allv (%g) on @dp algo <pairwise> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
    // expected-error @+1 {{table 0 does not exist: the schedule has 0 table(s)}}
    %x = comm.table_at 0[%rank]
  }
  return %r : tensor<4xf32>
}

// -----

comm.group @dp ranks = [0, 1]
func.func @negative_steps(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = comm.schedule all_reduce sum (%g) on @dp algo <ring> count 4 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%rank: index, %p: index, %n: index):
    comm.buffers input %n output %n scratch %n
    // expected-error @+1 {{steps must be >= 0, found -1}}
    comm.phase "x" steps -1 (%s) {
    }
  }
  return %r : tensor<4xf32>
}
