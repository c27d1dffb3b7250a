// comm-overlap-schedule: option values, and the memory cap it cannot meet.
// RUN: hccl-opt %s -verify-diagnostics --comm-overlap-schedule=memory-cap=1K -o /dev/null
// RUN: not hccl-opt %s --comm-overlap-schedule=max-in-flight=-1 2>&1 | FileCheck %s --check-prefix=FLIGHT
// RUN: not hccl-opt %s --comm-overlap-schedule=max-bytes-in-flight=lots 2>&1 | FileCheck %s --check-prefix=BYTES
// RUN: not hccl-opt %s --comm-overlap-schedule=memory-cap=-5 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: not hccl-opt %s --comm-overlap-schedule=memory-gbps=0 2>&1 | FileCheck %s --check-prefix=GBPS

// FLIGHT: error: comm-overlap-schedule: option max-in-flight=-1 is not valid: expected 0 (no limit) or a positive count
// BYTES: error: comm-overlap-schedule: option max-bytes-in-flight='lots' is not a valid size: expected a non-negative byte count with an optional K, M or G suffix
// CAP: error: comm-overlap-schedule: option memory-cap='-5' is not a valid size
// GBPS: error: comm-overlap-schedule: option memory-gbps must be a positive number, found 0

comm.group @dp ranks = [0, 1, 2, 3]
// Two live 4 KiB tensors already exceed a 1 KiB cap.
// expected-warning @+1 {{comm-overlap-schedule: memory-cap=1K cannot be met in this block: the original order was kept where no op fitted}}
func.func @tight(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %g = arith.addf %x, %x : tensor<1024xf32>
  %r = comm.all_reduce sum %g on @dp : tensor<1024xf32>
  return %r : tensor<1024xf32>
}
