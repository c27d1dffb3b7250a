// RUN: hccl-opt %s --comm-overlap-schedule=memory-cap=1 2>/dev/null | FileCheck %s --check-prefixes=CHECK,CAP
// RUN: hccl-opt %s --comm-overlap-schedule | FileCheck %s --check-prefixes=CHECK,FREE

// Input that is already asynchronous: each comm.wait must stay after its own
// comm.start. Under a cap that nothing fits, the scheduler falls back to
// ready waits; the second wait used to count as ready before its start
// (a comm.start's token gave no dependence edge), which put it first and
// broke dominance. Without a cap the first wait sinks below the second
// start, as for collectives the pass splits itself.

comm.group @dp ranks = [0, 1]

// CHECK-LABEL: func.func @already_async
// CHECK:       %[[T1:.*]] = comm.start {
// CAP:         comm.wait %[[T1]]
// CHECK:       %[[X:.*]] = arith.addf
// CHECK:       %[[T2:.*]] = comm.start {
// CHECK-NEXT:    comm.all_reduce sum %[[X]] on @dp
// FREE:        comm.wait %[[T1]]
// CHECK:       comm.wait %[[T2]]
// CHECK:       return
func.func @already_async(%a: tensor<1024xf32>)
    -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %t1 = comm.start {
    %r = comm.all_reduce sum %a on @dp : tensor<1024xf32>
    comm.yield %r : tensor<1024xf32>
  }
  %w1 = comm.wait %t1 : tensor<1024xf32>
  %x = arith.addf %a, %a : tensor<1024xf32>
  %t2 = comm.start {
    %r = comm.all_reduce sum %x on @dp : tensor<1024xf32>
    comm.yield %r : tensor<1024xf32>
  }
  %w2 = comm.wait %t2 : tensor<1024xf32>
  return %x, %w1, %w2 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
