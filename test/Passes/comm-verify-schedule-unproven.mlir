// A schedule whose contents are not simulated is not proven: the pass says
// so with a warning at it (it used to stay silent above 1024 ranks, where
// the checks were sampled). Proven schedules stay silent, or remark.
// RUN: hccl-opt %s --comm-lower-schedule --comm-verify-schedule=exhaustive-limit=16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: hccl-opt %s --comm-lower-schedule --comm-verify-schedule=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DONE

// LIMIT: warning: step schedule is not proven: allreduce ring p=64 n=6400 slices=1 (out-of-place, in-place), 126 steps, 16128 op instances: NOT PROVEN: contents not simulated (p > exhaustive-limit 16); pairing, bounds and hazards checked on all 64 ranks
// DONE-NOT: warning
// DONE: remark: allreduce ring p=64 n=6400 slices=1 (out-of-place, in-place), 126 steps, 16128 op instances: correct on all 64 ranks

module attributes {comm.topology = #comm.topology<"910b-8x8">} {
  comm.group @g ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]
  func.func @f(%a: tensor<6400xf32>) -> tensor<6400xf32> {
    %r = comm.all_reduce sum %a on @g algo <ring> : tensor<6400xf32>
    return %r : tensor<6400xf32>
  }
}
