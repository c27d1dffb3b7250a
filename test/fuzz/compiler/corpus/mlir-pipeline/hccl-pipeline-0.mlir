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
