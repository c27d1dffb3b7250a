// comm-bucket-sizing: preconditions and option values.
// RUN: hccl-opt %s -split-input-file -verify-diagnostics --comm-bucket-sizing=policy=optimal
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing=policy=fastest 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing=threshold-bytes=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing=threshold-bytes=12Q 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing=max-count=-2 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing="policy=optimal algo=level7:ring" 2>&1 | FileCheck %s --check-prefix=ALGO
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing="peak-tflops=0" 2>&1 | FileCheck %s --check-prefix=PEAK
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing=max-count=x 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing="policy=optimal max-in-flight=-1" 2>&1 | FileCheck %s --check-prefix=FLIGHT
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing="policy=optimal max-bytes-in-flight=3Q" 2>&1 | FileCheck %s --check-prefix=FBYTES
// RUN: not hccl-opt %s -split-input-file --comm-bucket-sizing="policy=optimal memory-cap=-1" 2>&1 | FileCheck %s --check-prefix=CAP

// POLICY: error: comm-bucket-sizing: option policy='fastest' is not valid: expected threshold, ddp or optimal
// ZERO: error: comm-bucket-sizing: option threshold-bytes='0' is not a valid size: expected a positive byte count with an optional K, M or G suffix
// SIZE: error: comm-bucket-sizing: option threshold-bytes='12Q' is not a valid size
// COUNT: error: comm-bucket-sizing: option max-count=-2 is not valid: expected 0 (no limit) or a positive count
// ALGO: error: comm-bucket-sizing: option algo='level7:ring' is not valid: HCCL_ALGO: unknown level 'level7'
// PEAK: error: comm-bucket-sizing: option peak-tflops must be a positive number, found 0
// PARSE: for the --max-count option: 'x' value invalid for long argument
// FLIGHT: error: comm-bucket-sizing: option max-in-flight=-1 is not valid: expected 0 (no limit) or a positive count
// FBYTES: error: comm-bucket-sizing: option max-bytes-in-flight='3Q' is not a valid size: expected a non-negative byte count
// CAP: error: comm-bucket-sizing: option memory-cap='-1' is not a valid size

// The optimal policy prices with the topology: there is none.
comm.group @dp ranks = [0, 1, 2, 3]
func.func @no_topology(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm-bucket-sizing with policy=optimal needs the cluster topology: add a 'comm.topology' attribute to the enclosing module, e.g. #comm.topology<"910b-8">}}
  %0 = comm.all_reduce sum %a on @dp : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Bucket sizes need static shapes.
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3]
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'comm.all_reduce' op has a dynamically shaped operand; comm-bucket-sizing needs static sizes}}
  %0 = comm.all_reduce sum %a on @dp : tensor<?xf32>
  return %0 : tensor<?xf32>
}
}

// -----

// A pinned algorithm that cannot serve an all-reduce cannot be priced.
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3]
func.func @bad_pinned(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op algorithm 'pairwise' cannot serve allreduce on group @dp (p = 4): algorithm 'pairwise' cannot serve allreduce}}
  %0 = comm.all_reduce sum %a on @dp algo <pairwise> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
}

// -----

// A hierarchical algorithm needs the group spread evenly over the servers:
// @odd has 3 ranks on server 0 and 1 on server 1.
module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @odd ranks = [0, 1, 2, 8]
func.func @uneven(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.all_reduce' op algorithm 'hierarchical(mesh, ring)' cannot serve allreduce on group @odd (p = 4): the group's ranks are not spread evenly over the servers}}
  %0 = comm.all_reduce sum %a on @odd algo <hierarchical(mesh, ring)> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
}
