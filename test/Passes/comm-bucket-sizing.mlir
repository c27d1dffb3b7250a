// comm-bucket-sizing: policies and options. Sizes: tensor<1024xf32> is 4 KiB,
// tensor<262144xf32> 1 MiB.
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing | FileCheck %s --check-prefixes=CHECK,DEF
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing=threshold-bytes=8K | FileCheck %s --check-prefixes=CHECK,T8K
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing="threshold-bytes=8K first-bucket-bytes=4K" | FileCheck %s --check-prefixes=CHECK,FIRST
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing=max-count=3 | FileCheck %s --check-prefixes=CHECK,COUNT3
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing=max-bucket-bytes=12K | FileCheck %s --check-prefixes=CHECK,COUNT3
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing=policy=optimal | FileCheck %s --check-prefixes=CHECK,OPT
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing="policy=optimal max-count=2" | FileCheck %s --check-prefixes=CHECK,OPT2
// The pipeline form works too (the pass is op-agnostic).
// RUN: hccl-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(comm-bucket-sizing{threshold-bytes=8K}))" | FileCheck %s --check-prefixes=CHECK,T8K

module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7]]

// Four 4 KiB gradients, 100 us of compute before each.
// CHECK-LABEL: func.func @four_small
// DEF-COUNT-4:  comm.bucket = 0 :
// T8K:    comm.bucket = 0 :
// T8K:    comm.bucket = 0 :
// T8K:    comm.bucket = 1 :
// T8K:    comm.bucket = 1 :
// FIRST:  comm.bucket = 0 :
// FIRST:  comm.bucket = 1 :
// FIRST:  comm.bucket = 1 :
// FIRST:  comm.bucket = 2 :
// COUNT3: comm.bucket = 0 :
// COUNT3: comm.bucket = 0 :
// COUNT3: comm.bucket = 0 :
// COUNT3: comm.bucket = 1 :
// A 4 KiB all-reduce takes ~2 us here, far less than the compute after it:
// every bucket is hidden, and a bigger last bucket would only finish later.
// Ties go to fewer buckets: the first three together still finish before
// the fourth is ready (at most two a bucket with max-count=2).
// OPT:    comm.bucket = 0 :
// OPT:    comm.bucket = 0 :
// OPT:    comm.bucket = 0 :
// OPT:    comm.bucket = 1 :
// OPT2:   comm.bucket = 0 :
// OPT2:   comm.bucket = 0 :
// OPT2:   comm.bucket = 1 :
// OPT2:   comm.bucket = 2 :
// CHECK:  return
func.func @four_small(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<1024xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<1024xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<1024xf32>
  %g3 = arith.divf %x, %x {comm.cost_us = 100.0} : tensor<1024xf32>
  %r3 = comm.all_reduce sum %g3 on @dp : tensor<1024xf32>
  return %r0, %r1, %r2, %r3 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

// Four 1 MiB gradients, all ready at once: communication-bound. One bucket
// saves three start-up latencies (its cost is concave in the size).
// CHECK-LABEL: func.func @comm_bound
// DEF-COUNT-4: comm.bucket = 1 :
// OPT-COUNT-4: comm.bucket = 2 :
// OPT2:   comm.bucket = 3 :
// OPT2:   comm.bucket = 3 :
// OPT2:   comm.bucket = 4 :
// OPT2:   comm.bucket = 4 :
// CHECK:  return
func.func @comm_bound(%a: tensor<262144xf32>, %b: tensor<262144xf32>, %c: tensor<262144xf32>, %d: tensor<262144xf32>)
    -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %r0 = comm.all_reduce sum %a on @dp : tensor<262144xf32>
  %r1 = comm.all_reduce sum %b on @dp : tensor<262144xf32>
  %r2 = comm.all_reduce sum %c on @dp : tensor<262144xf32>
  %r3 = comm.all_reduce sum %d on @dp : tensor<262144xf32>
  return %r0, %r1, %r2, %r3 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}

// Two gradients ready at 0, two after 1000 us of compute. A 1 MiB mesh
// all-reduce takes 3 + 13.9 us and a 2 MiB one 3 + 27.7 us, so each pair is
// cheaper fused; no bucket can span the compute gap to advantage.
// CHECK-LABEL: func.func @two_phases
// OPT:    comm.bucket = 3 :
// OPT:    comm.bucket = 3 :
// OPT:    arith.addf
// OPT:    comm.bucket = 4 :
// OPT:    comm.bucket = 4 :
// CHECK:  return
func.func @two_phases(%a: tensor<262144xf32>, %b: tensor<262144xf32>)
    -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %r0 = comm.all_reduce sum %a on @dp : tensor<262144xf32>
  %r1 = comm.all_reduce sum %b on @dp : tensor<262144xf32>
  %c = arith.addf %a, %b {comm.cost_us = 1000.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %c on @dp : tensor<262144xf32>
  %r3 = comm.all_reduce sum %c on @dp : tensor<262144xf32>
  return %r0, %r1, %r2, %r3 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}

// -----
// Buckets only hold consecutive all-reduces of one group with one key, and
// never a member that needs an earlier member's result.
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing | FileCheck %s --check-prefix=STREAM
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing=policy=optimal | FileCheck %s --check-prefix=STREAM

module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
comm.group @tp ranks = [[0, 1], [2, 3], [4, 5], [6, 7]]

// The element type changes the key: f32, f32 | bf16 | f32.
// STREAM-LABEL: func.func @keys
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<1024xf32>
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 0 : i64} : tensor<1024xf32>
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 1 : i64} : tensor<1024xbf16>
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 2 : i64} : tensor<1024xf32>
func.func @keys(%a: tensor<1024xf32>, %h: tensor<1024xbf16>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xbf16>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %2 = comm.all_reduce sum %h on @dp : tensor<1024xbf16>
  %3 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2, %3 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xbf16>, tensor<1024xf32>
}

// Each group is its own stream: @dp's two all-reduces share a bucket across
// the @tp one; buckets are numbered stream by stream.
// STREAM-LABEL: func.func @groups
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 3 : i64}
// STREAM: comm.all_reduce sum %{{.*}} on @tp {comm.bucket = 4 : i64}
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 3 : i64}
func.func @groups(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @tp : tensor<1024xf32>
  %2 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

// Another collective on the stream ends the run; it gets no bucket.
// STREAM-LABEL: func.func @other_collective
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 5 : i64}
// STREAM: comm.all_gather %{{.*}} on @dp dim 0 : tensor<1024xf32> -> tensor<8192xf32>
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 6 : i64}
func.func @other_collective(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<8192xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_gather %a on @dp dim 0 : tensor<1024xf32> -> tensor<8192xf32>
  %2 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2 : tensor<1024xf32>, tensor<8192xf32>, tensor<1024xf32>
}

// The third all-reduce reduces a value computed from the first one's
// result (through a @tp collective): it must start a new bucket.
// STREAM-LABEL: func.func @dependence
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 7 : i64}
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 7 : i64}
// STREAM: comm.all_reduce sum %{{.*}} on @tp {comm.bucket = 9 : i64}
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 8 : i64}
func.func @dependence(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  %t = comm.all_reduce sum %0 on @tp : tensor<1024xf32>
  %d = arith.addf %t, %1 : tensor<1024xf32>
  %2 = comm.all_reduce sum %d on @dp : tensor<1024xf32>
  return %1, %2 : tensor<1024xf32>, tensor<1024xf32>
}

// A pinned algorithm is part of the key.
// STREAM-LABEL: func.func @pinned
// STREAM: comm.all_reduce sum %{{.*}} on @dp algo <ring> {comm.bucket = 10 : i64}
// STREAM: comm.all_reduce sum %{{.*}} on @dp algo <ring> {comm.bucket = 10 : i64}
// STREAM: comm.all_reduce sum %{{.*}} on @dp {comm.bucket = 11 : i64}
func.func @pinned(%a: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a on @dp algo <ring> : tensor<1024xf32>
  %1 = comm.all_reduce sum %a on @dp algo <ring> : tensor<1024xf32>
  %2 = comm.all_reduce sum %a on @dp : tensor<1024xf32>
  return %0, %1, %2 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
}
