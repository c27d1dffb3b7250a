// comm-bucket-sizing policy=optimal under comm-overlap-schedule's limits.
// RUN: hccl-opt %s --comm-bucket-sizing=policy=optimal | FileCheck %s --check-prefix=FREE
// RUN: hccl-opt %s --comm-bucket-sizing="policy=optimal max-in-flight=1" | FileCheck %s --check-prefix=ONE
// RUN: hccl-opt %s --comm-bucket-sizing="policy=optimal max-bytes-in-flight=1M" | FileCheck %s --check-prefix=ONE
// The pipeline hands its limits to sizing too: the estimate shows why.
// RUN: hccl-opt %s --hccl-pipeline="lower=false max-in-flight=1" --comm-estimate -o /dev/null | FileCheck %s --check-prefix=EST
// RUN: hccl-opt %s --hccl-pipeline="lower=false policy=threshold threshold-bytes=1M max-in-flight=1" --comm-estimate -o /dev/null | FileCheck %s --check-prefix=EST-SPLIT

// Two 1 MiB gradients ready 10 us apart, then 1 ms of compute. Without a
// limit two buckets finish first (each about 17 us on 910b-8, the second
// queued behind the first: done at 44 us). With one in flight the second
// start waits for the first to end (27 us), and the overlap pass can issue
// it only between compute ops: after the 1 ms op, at 1020 us. One 2 MiB
// bucket (ready at 20 us, about 30 us) is then the better plan.
// FREE: comm.all_reduce sum %{{.*}} {comm.bucket = 0 : i64}
// FREE: comm.all_reduce sum %{{.*}} {comm.bucket = 1 : i64}
// ONE:  comm.all_reduce sum %{{.*}} {comm.bucket = 0 : i64}
// ONE:  comm.all_reduce sum %{{.*}} {comm.bucket = 0 : i64}
// EST:       timeline @held compute_us=1020.000 {{.*}} exposed_comm_us=0.000 iteration_us=1020.000
// EST-SPLIT: timeline @held compute_us=1020.000 {{.*}} exposed_comm_us=16.856 iteration_us=1036.856
module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @held(%x: tensor<262144xf32>) -> (tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>) {
  %g0 = arith.addf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r0 = comm.all_reduce sum %g0 on @dp : tensor<262144xf32>
  %g1 = arith.mulf %x, %x {comm.cost_us = 10.0} : tensor<262144xf32>
  %r1 = comm.all_reduce sum %g1 on @dp : tensor<262144xf32>
  %h = arith.subf %x, %x {comm.cost_us = 1000.0} : tensor<262144xf32>
  return %r0, %r1, %h : tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
}
}
