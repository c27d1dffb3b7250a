// The named pipeline: sizing -> fusion -> overlap -> selection -> lowering
// -> verification, with options forwarded to the passes.
// RUN: hccl-opt %s --hccl-pipeline | FileCheck %s --check-prefix=FULL
// RUN: hccl-opt %s "--hccl-pipeline=policy=threshold threshold-bytes=64M lower=false" | FileCheck %s --check-prefix=THRESH
// RUN: hccl-opt %s "--hccl-pipeline=slack-margin=0" | FileCheck %s --check-prefix=NOSLACK
// RUN: hccl-opt %s "--hccl-pipeline=slack-margin=0.25 lower=false" | FileCheck %s --check-prefix=SLACK
// RUN: hccl-opt %s "--hccl-pipeline=compress=bf16 lower=false" | FileCheck %s --check-prefix=BF16
// RUN: hccl-opt %s "--hccl-pipeline=algo=level0:ring lower=false" | FileCheck %s --check-prefix=ALGO
// RUN: not hccl-opt %s "--hccl-pipeline=policy=greedy" 2>&1 | FileCheck %s --check-prefix=BADOPT
// The same pipeline from upstream mlir-opt through the plugin.
// RUN: mlir-opt %s --load-dialect-plugin=%hccl_libs/libHcclCommPlugin.so --load-pass-plugin=%hccl_libs/libHcclCommPlugin.so --pass-pipeline="builtin.module(hccl-pipeline)" | FileCheck %s --check-prefix=FULL

// Eight 1 MiB gradients ready 100 us apart on a 910B server: each all-reduce
// (~17 us) hides behind the next layer's backward, so every partition that
// keeps the last gradient alone finishes at the same time.
//
// By default (slack-margin=1) the sizing first keeps the plans that still
// finish as early with every cost doubled, then among those prefers fewer,
// larger buckets: five, then l2 and l1 together, then l0 alone.
// FULL-COUNT-1: comm.program @allreduce_mesh_p8_n1310720_fp32_sum
// FULL-COUNT-1: comm.program @allreduce_mesh_p8_n524288_fp32_sum
// FULL-COUNT-1: comm.program @allreduce_mesh_p8_n262144_fp32_sum
// FULL-NOT: comm.program
// FULL-LABEL: func.func @backward
// FULL-NOT: comm.all_reduce
// FULL: comm.compute "l3.backward"
// FULL-NEXT: comm.start {
// FULL-NEXT: comm.schedule @allreduce_mesh_p8_n1310720_fp32_sum all_reduce sum (%{{.*}}) on @dp algo <mesh> {comm.bucket = 0 : i64}
// FULL: comm.compute "l1.backward"
// FULL-NEXT: comm.start {
// FULL-NEXT: comm.schedule @allreduce_mesh_p8_n524288_fp32_sum all_reduce sum (%{{.*}}) on @dp algo <mesh> {comm.bucket = 1 : i64}
// FULL: comm.compute "l0.backward"
// FULL-NEXT: comm.start {
// FULL-NEXT: comm.schedule @allreduce_mesh_p8_n262144_fp32_sum all_reduce sum (%{{.*}}) on @dp algo <mesh> {comm.bucket = 2 : i64}
// FULL-COUNT-3: comm.wait
// FULL: return

// With slack-margin=0 only the fewest-buckets rule breaks the tie: the
// first seven in one bucket (it ends just before l0's gradient is ready),
// the last alone.
// NOSLACK-COUNT-1: comm.program @allreduce_mesh_p8_n1835008_fp32_sum
// NOSLACK-COUNT-1: comm.program @allreduce_mesh_p8_n262144_fp32_sum
// NOSLACK-NOT: comm.program
// NOSLACK-LABEL: func.func @backward
// NOSLACK: comm.compute "l1.backward"
// NOSLACK-NEXT: comm.start {
// NOSLACK-NEXT: comm.schedule @allreduce_mesh_p8_n1835008_fp32_sum all_reduce sum (%{{.*}}) on @dp algo <mesh> {comm.bucket = 0 : i64}
// NOSLACK: comm.compute "l0.backward"
// NOSLACK-NEXT: comm.start {
// NOSLACK-NEXT: comm.schedule @allreduce_mesh_p8_n262144_fp32_sum all_reduce sum (%{{.*}}) on @dp algo <mesh> {comm.bucket = 1 : i64}
// NOSLACK-COUNT-2: comm.wait
// NOSLACK: return

// With slack-margin=0.25 the seven-gradient bucket, which ends less than
// a quarter of its cost before l0's gradient is ready, gives way to the
// plan that still finishes as early with every cost 1.25x: six, then l1
// and l0 alone.
// SLACK-LABEL: func.func @backward
// SLACK: comm.compute "l2.backward"
// SLACK-NEXT: comm.start {
// SLACK-NEXT: comm.all_reduce sum %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} on @dp algo <mesh> {comm.bucket = 0 : i64}
// SLACK: comm.compute "l1.backward"
// SLACK-NEXT: comm.start {
// SLACK-NEXT: comm.all_reduce sum %{{[0-9]+}} on @dp algo <mesh> {comm.bucket = 1 : i64}
// SLACK: comm.compute "l0.backward"
// SLACK-NEXT: comm.start {
// SLACK-NEXT: comm.all_reduce sum %{{[0-9]+}} on @dp algo <mesh> {comm.bucket = 2 : i64}

// A 64 MiB threshold (HCCL-style fixed fusion) puts all eight in one bucket.
// THRESH-LABEL: func.func @backward
// THRESH: comm.all_reduce sum %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} on @dp algo
// THRESH-NOT: comm.all_reduce

// Compression casts each gradient to bf16 around its all-reduce.
// BF16-LABEL: func.func @backward
// BF16: arith.truncf %{{.*}} : tensor<262144xf32> to tensor<262144xbf16>
// BF16: comm.all_reduce sum {{.*}} : {{.*}}tensor<262144xbf16>
// BF16: arith.extf

// ALGO: algo <ring>
// ALGO-NOT: algo <mesh

// BADOPT: policy

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
  func.func @backward(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
    %g0 = comm.compute "l7.backward"(%x) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
    %g1 = comm.compute "l6.backward"(%g0) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
    %g2 = comm.compute "l5.backward"(%g1) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r2 = comm.all_reduce sum %g2 on @dp : tensor<262144xf32>
    %g3 = comm.compute "l4.backward"(%g2) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r3 = comm.all_reduce sum %g3 on @dp : tensor<262144xf32>
    %g4 = comm.compute "l3.backward"(%g3) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r4 = comm.all_reduce sum %g4 on @dp : tensor<262144xf32>
    %g5 = comm.compute "l2.backward"(%g4) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r5 = comm.all_reduce sum %g5 on @dp : tensor<262144xf32>
    %g6 = comm.compute "l1.backward"(%g5) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r6 = comm.all_reduce sum %g6 on @dp : tensor<262144xf32>
    %g7 = comm.compute "l0.backward"(%g6) {comm.cost_us = 100.0} : (tensor<262144xf32>) -> tensor<262144xf32>
    %r7 = comm.all_reduce sum %g7 on @dp : tensor<262144xf32>
    return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
  }
}
