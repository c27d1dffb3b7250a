// A start that the memory cap holds back takes the wait of a collective
// the model says is done, before any compute runs: that wait frees the
// collective's input. Running the compute first (what the pass did before)
// delayed the start by that compute's time, and so made a looser cap
// schedule worse than a tighter one (bert-large, threshold 64M: 24.79 ms
// at memory-cap=2G against 24.12 ms at 1500M and without a cap).
// RUN: hccl-opt %s --comm-overlap-schedule=memory-cap=3M 2>&1 | FileCheck %s --check-prefixes=CHECK,CAP
// RUN: hccl-opt %s --comm-overlap-schedule | FileCheck %s --check-prefixes=CHECK,FREE

// Every tensor is 1 MiB. After g0, its collective and g1, 3 MiB are live:
// the second start needs a fourth. The first all-reduce (1 MiB on 910b-8,
// about 17 us) ended at 27 us, before g1 ends at 40 us, so its wait is free.
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
// CAP-NOT:   warning
// CHECK-LABEL: func.func @held_by_cap
// CAP:       arith.addf %{{.*}} : tensor<262144xf32>
// CAP-NEXT:  %[[T0:.*]] = comm.start
// CAP:       arith.mulf
// CAP-NEXT:  %[[R0:.*]] = comm.wait %[[T0]]
// CAP-NEXT:  %[[T1:.*]] = comm.start
// CAP:       arith.addf %{{.*}} : f32
// CAP-NEXT:  comm.wait %[[T1]]
// FREE:      arith.addf %{{.*}} : tensor<262144xf32>
// FREE-NEXT: comm.start
// FREE:      arith.mulf
// FREE-NEXT: comm.start
// FREE:      arith.addf %{{.*}} : f32
// FREE-NEXT: comm.wait
// FREE-NEXT: comm.wait
// CHECK:     return
func.func @held_by_cap(%x: tensor<262144xf32>, %a: f32) -> (tensor<262144xf32>, tensor<262144xf32>, f32) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 30.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %s = arith.addf %a, %a {comm.cost_us = 30.0} : f32
  return %r0, %r1, %s : tensor<262144xf32>, tensor<262144xf32>, f32
}
}
