// comm-select-algorithm table=: an algorithm table (made by
// tools/tune/sim_table.py; here by hand) decides the collectives it covers
// by size band: the entry with the largest bytes not above the op's, the
// smallest entry below the first. Collectives it does not cover (another
// collective, another group size) keep the model's choice; so does one the
// algo= override speaks for. The model alone chooses differently for every
// covered op (MODEL), so the table is what decided.
// RUN: hccl-opt %s --comm-select-algorithm=table=%S/Inputs/algo-table-910b-8x2.json | FileCheck %s
// RUN: hccl-opt %s --comm-select-algorithm | FileCheck %s --check-prefix=MODEL
// RUN: hccl-opt %s --comm-select-algorithm="table=%S/Inputs/algo-table-910b-8x2.json algo=allreduce=level0:mesh;level1:ring" | FileCheck %s --check-prefix=ALGO
// RUN: hccl-opt %s --hccl-pipeline="algo-table=%S/Inputs/algo-table-910b-8x2.json lower=false policy=threshold threshold-bytes=1" | FileCheck %s --check-prefix=PIPE
// RUN: not hccl-opt %s --comm-select-algorithm=table=%t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not hccl-opt %s --comm-select-algorithm=table=%S/Inputs/algo-table-bad-algorithm.json 2>&1 | FileCheck %s --check-prefix=BADALGO
// RUN: not hccl-opt %s --comm-select-algorithm=table=%S/Inputs/algo-table-cannot-serve.json 2>&1 | FileCheck %s --check-prefix=SERVE
// RUN: sed 's/"910b-8x2"/"910b-8x4"/' %S/Inputs/algo-table-910b-8x2.json > %t.other.json
// RUN: not hccl-opt %s --comm-select-algorithm=table=%t.other.json 2>&1 | FileCheck %s --check-prefix=TOPO

// CHECK: comm.all_reduce sum %arg0 on @all algo <ring> : tensor<1024xf32>
// CHECK: comm.all_reduce sum %arg1 on @all algo <hierarchical(ring, ring)> : tensor<262144xf32>
// CHECK: comm.all_reduce sum %arg2 on @all algo <rhd> : tensor<8388608xf32>
// CHECK: comm.all_reduce sum %arg1 on @one algo <mesh> : tensor<262144xf32>
// CHECK: comm.all_gather %arg0 on @all dim 0 algo <hierarchical(mesh, ring)>

// MODEL: comm.all_reduce sum %arg0 on @all algo <hierarchical(mesh, mesh_oneshot)> : tensor<1024xf32>
// MODEL: comm.all_reduce sum %arg1 on @all algo <hierarchical(mesh, mesh_oneshot)> : tensor<262144xf32>
// MODEL: comm.all_reduce sum %arg2 on @all algo <hierarchical(mesh, ring)> : tensor<8388608xf32>

// ALGO: comm.all_reduce sum %arg0 on @all algo <hierarchical(mesh, ring)> : tensor<1024xf32>
// ALGO: comm.all_reduce sum %arg2 on @all algo <hierarchical(mesh, ring)> : tensor<8388608xf32>

// PIPE: algo <rhd>

// MISSING: error: comm-select-algorithm: option table='{{.*}}missing.json': cannot read: No such file or directory
// BADALGO: error: comm-select-algorithm: option table='{{.*}}algo-table-bad-algorithm.json': entries[0].algorithm: unknown algorithm 'warp' (expected
// SERVE: error: 'comm.all_reduce' op algorithm 'pairwise' cannot serve allreduce on group @all (p = 16)
// TOPO: error: comm-select-algorithm: option table='{{.*}}other.json': made for topology '910b-8x4', the module's is '910b-8x2'

module attributes {comm.topology = #comm.topology<"910b-8x2">} {
comm.group @all ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
comm.group @one ranks = [0, 1, 2, 3, 4, 5, 6, 7]
func.func @f(%s: tensor<1024xf32>, %m: tensor<262144xf32>, %l: tensor<8388608xf32>) -> (tensor<1024xf32>, tensor<262144xf32>, tensor<8388608xf32>, tensor<262144xf32>, tensor<16384xf32>) {
  %0 = comm.all_reduce sum %s on @all : tensor<1024xf32>
  %1 = comm.all_reduce sum %m on @all : tensor<262144xf32>
  %2 = comm.all_reduce sum %l on @all : tensor<8388608xf32>
  %3 = comm.all_reduce sum %m on @one : tensor<262144xf32>
  %4 = comm.all_gather %s on @all dim 0 : tensor<1024xf32> -> tensor<16384xf32>
  return %0, %1, %2, %3, %4 : tensor<1024xf32>, tensor<262144xf32>, tensor<8388608xf32>, tensor<262144xf32>, tensor<16384xf32>
}
}
