// A module that never mentions arith: the pass must load the dialect it
// creates constants in (it dereferenced a null arith dialect before).
// RUN: hccl-opt %s --comm-specialize-rank=rank=0 | FileCheck %s
// RUN: printf '' | hccl-opt --comm-specialize-rank=rank=0 | FileCheck %s

// CHECK: module {
// CHECK-NEXT: }
module {
}
