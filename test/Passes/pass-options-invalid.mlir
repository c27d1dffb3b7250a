// Out-of-range integer options are diagnosed once, at the pass, with the
// number as given (an int64_t option used to print as a raw byte).
// RUN: not hccl-opt %s --comm-lower-schedule=slices=-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not hccl-opt %s --comm-lower-schedule=slices=5000 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: hccl-opt %s --comm-lower-schedule=slices=4096 | FileCheck %s --check-prefix=MAX
// RUN: not hccl-opt %s --comm-verify-schedule=exhaustive-limit=-1 2>&1 | FileCheck %s --check-prefix=LIMIT

// NEG: error: comm-lower-schedule: option slices=-1 is not valid: expected 0 (keep the op's) or 1..4096
// NEG-NOT: error
// BIG: error: comm-lower-schedule: option slices=5000 is not valid: expected 0 (keep the op's) or 1..4096
// MAX: comm.schedule {{.*}} algo <ring, slices = 4096>
// LIMIT: error: comm-verify-schedule: exhaustive-limit must be >= 1, found -1

module attributes {comm.topology = #comm.topology<"910b-8">} {
  comm.group @g ranks = [0, 1, 2, 3]
  func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
    %r = comm.all_reduce sum %a on @g algo <ring> : tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
