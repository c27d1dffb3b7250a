// comm-bucket-sizing policy=ddp: PyTorch DDP's Reducer. A bucket closes once
// its bytes reach the limit (the crossing gradient joins it); each element
// type has its own open bucket and its own first bucket. Sizes:
// tensor<768xf32> is 3 KiB, tensor<1024xbf16> 2 KiB. The differential test
// against torch itself is test/differential/ddp_buckets_vs_torch.py.
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing="policy=ddp first-bucket-bytes=4K threshold-bytes=8K" | FileCheck %s --check-prefixes=CHECK,DDP
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing="policy=threshold first-bucket-bytes=4K threshold-bytes=8K" | FileCheck %s --check-prefixes=CHECK,THR
// Interleaved buckets fuse, one all-reduce per bucket and element type.
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing="policy=ddp first-bucket-bytes=4K threshold-bytes=8K" --comm-gradient-fusion | FileCheck %s --check-prefix=FUSED
// Defaults: 1 MiB first, then 25 MiB; all five small gradients in one bucket.
// RUN: hccl-opt %s -split-input-file --comm-bucket-sizing=policy=ddp | FileCheck %s --check-prefix=DEF

module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]

// Five 3 KiB gradients. ddp: 3 + 3 = 6 reaches 4 (first); then 3 + 3 + 3 = 9
// reaches 8. threshold: 3 alone (6 > 4), then 3 + 3
// (9 > 8), then 3 + 3.
// CHECK-LABEL: func.func @crossing
// DDP: comm.bucket = 0 :
// DDP: comm.bucket = 0 :
// DDP: comm.bucket = 1 :
// DDP: comm.bucket = 1 :
// DDP: comm.bucket = 1 :
// THR: comm.bucket = 0 :
// THR: comm.bucket = 1 :
// THR: comm.bucket = 1 :
// THR: comm.bucket = 2 :
// THR: comm.bucket = 2 :
// DEF-COUNT-5: comm.bucket = 0 :
// CHECK: return
func.func @crossing(%x: tensor<768xf32>) -> (tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>) {
  %r0 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  %r1 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  %r2 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  %r3 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  %r4 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>
}
}

// -----

module attributes {comm.topology = #comm.topology<"910b-8">} {
comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]

// f32 (3 KiB) and bf16 (2 KiB) alternate. ddp: f32 0 + 2 reaches 4 (its
// first bucket), bf16 1 + 3 reaches 4 (its own first bucket), f32 4 and
// bf16 5 stay open. threshold: runs of one type only, so every one alone.
// CHECK-LABEL: func.func @interleaved
// DDP: comm.bucket = 0 : {{.*}} : tensor<768xf32>
// DDP: comm.bucket = 1 : {{.*}} : tensor<1024xbf16>
// DDP: comm.bucket = 0 : {{.*}} : tensor<768xf32>
// DDP: comm.bucket = 1 : {{.*}} : tensor<1024xbf16>
// DDP: comm.bucket = 2 : {{.*}} : tensor<768xf32>
// DDP: comm.bucket = 3 : {{.*}} : tensor<1024xbf16>
// THR: comm.bucket = 0 :
// THR: comm.bucket = 1 :
// THR: comm.bucket = 2 :
// THR: comm.bucket = 3 :
// THR: comm.bucket = 4 :
// THR: comm.bucket = 5 :
// FUSED-LABEL: func.func @interleaved
// FUSED: comm.all_reduce sum %{{.*}}, %{{.*}} on @dp {{.*}} : tensor<768xf32>, tensor<768xf32>
// FUSED: comm.all_reduce sum %{{.*}}, %{{.*}} on @dp {{.*}} : tensor<1024xbf16>, tensor<1024xbf16>
// FUSED: comm.all_reduce sum %{{.*}} on @dp {{.*}} : tensor<768xf32>
// FUSED: comm.all_reduce sum %{{.*}} on @dp {{.*}} : tensor<1024xbf16>
// FUSED-NOT: comm.all_reduce
// CHECK: return
func.func @interleaved(%x: tensor<768xf32>, %y: tensor<1024xbf16>) -> (tensor<768xf32>, tensor<1024xbf16>, tensor<768xf32>, tensor<1024xbf16>, tensor<768xf32>, tensor<1024xbf16>) {
  %r0 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  %r1 = comm.all_reduce sum %y on @dp : tensor<1024xbf16>
  %r2 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  %r3 = comm.all_reduce sum %y on @dp : tensor<1024xbf16>
  %r4 = comm.all_reduce sum %x on @dp : tensor<768xf32>
  %r5 = comm.all_reduce sum %y on @dp : tensor<1024xbf16>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<768xf32>, tensor<1024xbf16>, tensor<768xf32>, tensor<1024xbf16>, tensor<768xf32>, tensor<1024xbf16>
}
}
