// RUN: not hccl-opt %s --comm-lower-schedule --comm-specialize-rank 2>&1 | FileCheck %s --check-prefix=NORANK
// RUN: not hccl-opt %s --comm-lower-schedule --comm-specialize-rank=rank=4 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not hccl-opt %s --comm-lower-schedule --comm-specialize-rank=rank=1 --comm-specialize-rank=rank=1 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not hccl-opt %s --comm-lower-schedule --comm-specialize-rank=rank=1 --comm-verify-schedule 2>&1 | FileCheck %s --check-prefix=VERIFY

// NORANK: error: comm-specialize-rank needs rank=R with R >= 0, found -1
// RANGE: error: 'comm.program' op cannot specialise for rank 4: the program is for 4 ranks (0..3)
// TWICE: error: 'comm.program' op is already specialised for rank 1
// VERIFY: error: 'comm.program' op is specialised for rank 1; verify the rank-parametric program instead

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3]
  func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
    %r = comm.all_reduce sum %a on @g algo <ring> : tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
