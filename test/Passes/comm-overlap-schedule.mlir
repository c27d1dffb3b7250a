// comm-overlap-schedule: start/wait pairs, early starts, late waits,
// compute moved in between, and the in-flight and memory limits.
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule | FileCheck %s --check-prefixes=CHECK,FREE,NEST
// Idempotent: scheduling the result again changes nothing.
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule | hccl-opt -split-input-file --comm-overlap-schedule | FileCheck %s --check-prefixes=CHECK,FREE,NEST
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule=max-in-flight=1 | FileCheck %s --check-prefixes=CHECK,ONE,COUNT1,PRED
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule=max-bytes-in-flight=1M | FileCheck %s --check-prefixes=CHECK,ONE,NEST,PRED
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule=memory-cap=3M 2>/dev/null | FileCheck %s --check-prefixes=CHECK,CAP3,NEST
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule=memory-cap=2M 2>/dev/null | FileCheck %s --check-prefixes=CHECK,CAP2,NEST
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule=memory-cap=3M -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN3
// RUN: hccl-opt %s -split-input-file --comm-overlap-schedule=memory-cap=2M -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN2

comm.group @dp ranks = [0, 1, 2, 3]

// Each gradient is reduced while the next one is computed; the updates
// that need the reduced values run last, each after its own wait.
// CHECK-LABEL: func.func @backward
// FREE-NEXT:  %[[G0:.*]] = arith.addf %{{.*}} {comm.cost_us = 1.0
// FREE-NEXT:  %[[T0:.*]] = comm.start {
// FREE-NEXT:    comm.all_reduce sum %[[G0]] on @dp
// FREE-NEXT:    comm.yield
// FREE-NEXT:  }
// FREE-NEXT:  %[[G1:.*]] = arith.mulf %{{.*}} {comm.cost_us = 2.0
// FREE-NEXT:  %[[T1:.*]] = comm.start {
// FREE-NEXT:    comm.all_reduce sum %[[G1]] on @dp
// FREE-NEXT:    comm.yield
// FREE-NEXT:  }
// FREE-NEXT:  %[[G2:.*]] = arith.subf %{{.*}} {comm.cost_us = 3.0
// FREE-NEXT:  %[[T2:.*]] = comm.start {
// FREE-NEXT:    comm.all_reduce sum %[[G2]] on @dp
// FREE-NEXT:    comm.yield
// FREE-NEXT:  }
// FREE-NEXT:  %[[R0:.*]] = comm.wait %[[T0]] : tensor<262144xf32>
// FREE-NEXT:  arith.negf %[[R0]]
// FREE-NEXT:  %[[R1:.*]] = comm.wait %[[T1]] : tensor<262144xf32>
// FREE-NEXT:  arith.negf %[[R1]]
// FREE-NEXT:  %[[R2:.*]] = comm.wait %[[T2]] : tensor<262144xf32>
// FREE-NEXT:  arith.negf %[[R2]]
// One collective in flight (or 1 MiB): each start first waits for the one
// before; without a topology the model cannot tell whether it is done, so
// the wait comes as soon as the next start is ready. An update whose wait
// is done runs in its original place.
// ONE:       arith.addf
// ONE-NEXT:  %[[T0:.*]] = comm.start
// ONE:       arith.mulf
// ONE-NEXT:  %[[R0:.*]] = comm.wait %[[T0]]
// ONE-NEXT:  %[[T1:.*]] = comm.start
// ONE:       }
// ONE-NEXT:  arith.negf %[[R0]]
// ONE-NEXT:  arith.subf
// ONE-NEXT:  %[[R1:.*]] = comm.wait %[[T1]]
// ONE-NEXT:  %[[T2:.*]] = comm.start
// ONE:       }
// ONE-NEXT:  arith.negf %[[R1]]
// ONE-NEXT:  %[[R2:.*]] = comm.wait %[[T2]]
// ONE-NEXT:  arith.negf %[[R2]]
// Keeping the three 1 MiB updates (returned) live, even the original order
// needs 4 MiB at the last start.
// WARN3:     offset :[[# @LINE + 4]]:1: warning: comm-overlap-schedule: memory-cap=3M cannot be met in this block: the original order was kept where no op fitted
// WARN3-NOT: warning
// WARN2:     offset :[[# @LINE + 2]]:1: warning: comm-overlap-schedule: memory-cap=2M cannot be met in this block
// CHECK:     return
func.func @backward(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 1.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %u0 = arith.negf %r0 : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 2.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %u1 = arith.negf %r1 : tensor<262144xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 3.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<262144xf32>
  %u2 = arith.negf %r2 : tensor<262144xf32>
  return %u0, %u1, %u2 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}

// -----

// Liveness: every tensor is 1 MiB. Overlapping the two collectives keeps
// g0 (read until its wait), both in-flight buffers and g1 live at once: 4 MiB.
// Under a 3 MiB cap the second start waits for the first collective; under
// 2 MiB even the original order does not fit (it needs 3 MiB), so the pass
// keeps that order where nothing fits and warns.
comm.group @dp ranks = [0, 1, 2, 3]
// WARN2:     warning: comm-overlap-schedule: memory-cap=2M cannot be met in this block
// CHECK-LABEL: func.func @liveness
// FREE:      %[[G0:.*]] = arith.addf
// FREE-NEXT: %[[T0:.*]] = comm.start
// FREE:      %[[G1:.*]] = arith.mulf
// FREE-NEXT: %[[T1:.*]] = comm.start
// FREE:      comm.wait %[[T0]]
// FREE-NEXT: arith.negf
// FREE-NEXT: comm.wait %[[T1]]
// FREE-NEXT: arith.negf
// CAP3:      %[[G0:.*]] = arith.addf
// CAP3-NEXT: %[[T0:.*]] = comm.start
// CAP3:      %[[G1:.*]] = arith.mulf
// CAP3-NEXT: %[[R0:.*]] = comm.wait %[[T0]]
// CAP3-NEXT: %[[T1:.*]] = comm.start
// CAP3:      %[[R1:.*]] = comm.wait %[[T1]]
// CAP3-NEXT: arith.negf %[[R0]]
// CAP3-NEXT: arith.negf %[[R1]]
// CAP2:      %[[G0:.*]] = arith.addf
// CAP2-NEXT: %[[T0:.*]] = comm.start
// CAP2:      %[[R0:.*]] = comm.wait %[[T0]]
// CAP2-NEXT: arith.negf %[[R0]]
// CAP2-NEXT: %[[G1:.*]] = arith.mulf
// CAP2-NEXT: %[[T1:.*]] = comm.start
// CAP2:      %[[R1:.*]] = comm.wait %[[T1]]
// CAP2-NEXT: arith.negf %[[R1]]
// CHECK:     return
func.func @liveness(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %u0 = arith.negf %r0 : tensor<262144xf32>
  %g1 = arith.mulf %x, %x : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %u1 = arith.negf %r1 : tensor<262144xf32>
  return %u0, %u1 : tensor<262144xf32>, tensor<262144xf32>
}

// -----

// Ops with unknown effects (a call) are barriers: the collectives before
// it start and finish before it, those after it start after it.
comm.group @dp ranks = [0, 1, 2, 3]
func.func private @opaque(tensor<4xf32>)
// CHECK-LABEL: func.func @barrier
// CHECK:      %[[T0:.*]] = comm.start
// CHECK:      arith.negf
// CHECK-NEXT: %[[R0:.*]] = comm.wait %[[T0]]
// CHECK-NEXT: call @opaque(%{{.*}})
// CHECK-NEXT: %[[T1:.*]] = comm.start
// CHECK:      comm.wait %[[T1]]
// CHECK-NEXT: arith.addf %[[R0]]
func.func @barrier(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r0 = comm.all_reduce sum %x on @dp : tensor<4xf32>
  %n = arith.negf %x : tensor<4xf32>
  func.call @opaque(%n) : (tensor<4xf32>) -> ()
  %r1 = comm.all_reduce sum %x on @dp : tensor<4xf32>
  %s = arith.addf %r0, %r1 : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Collectives in nested blocks are scheduled in their block; every kind of
// communication op gets a start/wait pair, in the original order. The
// barrier moves no bytes, so only the count limit holds it back.
comm.group @dp ranks = [0, 1, 2, 3]
// CHECK-LABEL: func.func @nested
// CHECK:      scf.for
// CHECK:        %[[T:.*]] = comm.start {
// CHECK-NEXT:     comm.all_gather
// NEST:         %[[B:.*]] = comm.start {
// NEST-NEXT:      comm.barrier on @dp
// NEST-NEXT:      comm.yield
// NEST-NEXT:    }
// NEST-NEXT:    %[[G:.*]] = comm.wait %[[T]]
// NEST-NEXT:    arith.addf %{{.*}}, %[[G]]
// NEST-NEXT:    comm.wait %[[B]]
// COUNT1:          %[[G:.*]] = comm.wait %[[T]]
// COUNT1-NEXT:     %[[B:.*]] = comm.start {
// COUNT1-NEXT:       comm.barrier on @dp
// COUNT1:          arith.addf %{{.*}}, %[[G]]
// COUNT1-NEXT:     comm.wait %[[B]]
// CHECK:        scf.yield
func.func @nested(%x: tensor<4xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %e) -> tensor<16xf32> {
    %g = comm.all_gather %x on @dp dim 0 : tensor<4xf32> -> tensor<16xf32>
    comm.barrier on @dp
    %s = arith.addf %acc, %g : tensor<16xf32>
    scf.yield %s : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

// With a topology the pass predicts when collectives end. A 1 MiB
// all-reduce on 910b-8 takes about 17 us, longer than the 10 us of compute
// after it: with one collective in flight, the second start is held, the
// compute that does not depend on it runs, and the wait comes once the
// first collective is predicted done (10 + 17 us < 30 us). A 1 MiB limit
// on bytes in flight does the same.
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
// The three returned 1 MiB results and a gradient keep 4 MiB live at the
// last start in any order:
// WARN3: warning: comm-overlap-schedule: memory-cap=3M cannot be met
// WARN3-NOT: warning
// WARN2: warning: comm-overlap-schedule: memory-cap=2M cannot be met
// WARN2-NOT: warning
// CHECK-LABEL: func.func @predicted
// PRED:      arith.addf
// PRED-NEXT: %[[T0:.*]] = comm.start
// PRED:      arith.mulf
// PRED-NEXT: arith.subf
// PRED-NEXT: comm.wait %[[T0]]
// PRED-NEXT: %[[T1:.*]] = comm.start
// PRED:      comm.wait %[[T1]]
// PRED-NEXT: %[[T2:.*]] = comm.start
// PRED:      comm.wait %[[T2]]
// PRED-NEXT: return
// FREE:      arith.addf
// FREE-NEXT: comm.start
// FREE:      arith.mulf
// FREE-NEXT: comm.start
// FREE:      arith.subf
// FREE-NEXT: comm.start
// FREE:      comm.wait
// FREE-NEXT: comm.wait
// FREE-NEXT: comm.wait
// FREE-NEXT: return
func.func @predicted(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %g2 = arith.subf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r2 = comm.all_reduce sum %g2 on @dp : tensor<262144xf32>
  return %r0, %r1, %r2 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}
