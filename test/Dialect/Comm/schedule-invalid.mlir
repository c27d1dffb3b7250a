// Verifiers of the step-schedule ops.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{body must hold exactly one comm.buffers, found 0}}
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
}
// -----
// expected-error @+1 {{a reducing collective needs a reduction kind}}
comm.program @p all_reduce algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
// -----
// expected-error @+1 {{only reducing collectives take a reduction kind}}
comm.program @p all_gather sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
// -----
// expected-error @+1 {{body must take three index arguments (rank, group size, count), found 1}}
comm.program @p broadcast algo <tree> ranks 2 count 4 : f32 {
^bb0(%rank: index):
  comm.buffers input %rank output %rank scratch %rank
}
// -----
comm.group @dp ranks = [0, 1]
comm.program @p broadcast algo <tree> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  // expected-error @+1 {{is not allowed in a comm.program body}}
  comm.barrier on @dp
}
// -----
// expected-error @+1 {{rank 2 is outside the group: expected 0..1}}
comm.program @p broadcast algo <tree> ranks 2 count 4 rank 2 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
// -----
// expected-error @+1 {{root 3 is outside the group: expected 0..1}}
comm.program @p broadcast algo <tree> ranks 2 count 4 root 3 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
// -----
// expected-error @+1 {{element type 'f8E4M3FN' is not one the runtime moves}}
comm.program @p broadcast algo <tree> ranks 2 count 4 : f8E4M3FN {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
// -----
comm.group @dp ranks = [0, 1]
comm.program @p all_reduce sum algo <ring> ranks 2 count 8 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @mixed_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  // expected-error @+1 {{all inputs and results must share one element type (the program's dtype), found 'f32' and 'f16'}}
  %r:2 = comm.schedule @p all_reduce sum (%a, %b) on @dp algo <ring> : (tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf16>
}
// -----
comm.group @dp ranks = [0, 1]
func.func @unknown_program(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{references unknown program @nope}}
  %r = comm.schedule @nope all_reduce sum (%a) on @dp algo <ring> : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// -----
comm.group @quad ranks = [0, 1, 2, 3]
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @wrong_group_size(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{program @p is for 2 ranks but group @quad has 4}}
  %r = comm.schedule @p all_reduce sum (%a) on @quad algo <ring> : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// -----
comm.group @dp ranks = [0, 1]
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @wrong_count(%a: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{moves 6 elements but program @p counts 4}}
  %r = comm.schedule @p all_reduce sum (%a) on @dp algo <ring> : (tensor<6xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}
// -----
comm.group @dp ranks = [0, 1]
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @wrong_type(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{element type 'bf16' differs from program @p's 'f32'}}
  %r = comm.schedule @p all_reduce sum (%a) on @dp algo <ring> : (tensor<4xbf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}
// -----
comm.group @dp ranks = [0, 1]
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
}
func.func @wrong_algo(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{collective, reduction and algorithm must be those of program @p}}
  %r = comm.schedule @p all_reduce sum (%a) on @dp algo <rhd> : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
// -----
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  comm.phase "x" steps 1 (%s) {
    // expected-error @+1 {{writes the input buffer: the user's send buffer is const}}
    comm.step.recv input[0] from 1 count 4
  }
}
// -----
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  comm.phase "x" steps 1 (%s) {
    // expected-error @+1 {{count -4 is negative}}
    comm.step.send input[0] to 1 count -4
  }
}
// -----
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  comm.phase "x" steps 1 (%s) {
    // expected-error @+1 {{n must be >= 1, found 0}}
    comm.step.reduce output[0] from scratch[0] stride 4 n 0 count 4
  }
}
// -----
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  comm.phase "x" steps 1 (%s) {
    // expected-error @+1 {{unknown buffer 'temp'; expected input, output or scratch}}
    comm.step.send temp[0] to 1 count 4
  }
}
// -----
func.func @step_outside_phase() {
  // expected-error @+1 {{expects parent op to be one of 'comm.phase, comm.repeat'}}
  comm.step.send input[0] to 1 count 4
  return
}
// -----
comm.program @p all_to_allv algo <pairwise> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  // expected-error @+1 {{table 0 does not exist: the program has 0 table(s)}}
  %x = comm.table_at 0[%rank]
}
// -----
comm.program @p all_reduce sum algo <ring> ranks 2 count 4 : f32 {
^bb0(%rank: index, %p: index, %n: index):
  comm.buffers input %n output %n scratch %n
  // expected-error @+1 {{steps must be >= 0, found -1}}
  comm.phase "x" steps -1 (%s) {
  }
}
