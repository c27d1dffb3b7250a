// comm-bucket-sizing table=: an algorithm table's simulated times price the
// buckets of the group sizes it covers. Four 4 KiB gradients, 100 us of
// compute before each: the closed forms price a 4 KiB all-reduce at ~2 us,
// so optimal starts a bucket before the last gradient (MODEL); a table
// whose simulation says every all-reduce on these 8 ranks takes 1 ms makes
// a second bucket cost a whole extra millisecond, so all four go in one
// (TABLE). A table without sim_us for every entry of the group prices
// nothing (the model decides). The table's topology must be the module's.
// RUN: hccl-opt %s --comm-bucket-sizing=policy=optimal | FileCheck %s --check-prefix=MODEL
// RUN: hccl-opt %s --comm-bucket-sizing="policy=optimal table=%S/Inputs/algo-table-910b-8-flat.json" | FileCheck %s --check-prefix=TABLE
// RUN: hccl-opt %s --comm-bucket-sizing="policy=optimal table=%S/Inputs/algo-table-910b-8-nosim.json" | FileCheck %s --check-prefix=MODEL
// RUN: hccl-opt %s --hccl-pipeline="algo-table=%S/Inputs/algo-table-910b-8-flat.json lower=false" | FileCheck %s --check-prefix=PIPE
// RUN: not hccl-opt %s --comm-bucket-sizing="policy=threshold table=%S/Inputs/algo-table-910b-8-flat.json" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not hccl-opt %s --comm-bucket-sizing="policy=optimal table=%S/Inputs/algo-table-910b-8x2.json" 2>&1 | FileCheck %s --check-prefix=TOPO
// RUN: not hccl-opt %s --comm-bucket-sizing="policy=optimal table=%t.none.json" 2>&1 | FileCheck %s --check-prefix=MISSING

// MODEL:  comm.bucket = 0 :
// MODEL:  comm.bucket = 0 :
// MODEL:  comm.bucket = 0 :
// MODEL:  comm.bucket = 1 :

// TABLE-COUNT-4: comm.bucket = 0 :
// TABLE-NOT: comm.bucket = 1

// The pipeline fuses the one bucket into one all-reduce, algorithm from
// the table.
// PIPE-COUNT-1: comm.all_reduce sum {{.*}} algo <mesh>
// PIPE-NOT: comm.all_reduce

// POLICY: error: comm-bucket-sizing: option table='{{.*}}' has no effect with policy=threshold (only the cost model of policy=optimal reads it)
// TOPO: error: comm-bucket-sizing: option table='{{.*}}algo-table-910b-8x2.json': made for topology '910b-8x2', the module's is '910b-8'
// MISSING: error: comm-bucket-sizing: option table='{{.*}}none.json': cannot read: No such file or directory

module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]
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
}
