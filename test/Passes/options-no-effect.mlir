// An option the chosen bucketing policy does not read is an error: the
// pipeline's default policy is optimal, and --hccl-pipeline="threshold-bytes=64M"
// used to run optimal sizing silently, ignoring the threshold.
// RUN: not hccl-opt %s "--hccl-pipeline=threshold-bytes=64M" 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: hccl-pipeline: option threshold-bytes='64M' has no effect with policy=optimal (the pipeline's default: the cost model sizes the buckets); give policy=threshold or policy=ddp to use it
// RUN: not hccl-opt %s "--hccl-pipeline=first-bucket-bytes=1M lower=false" 2>&1 | FileCheck %s --check-prefix=PIPE1
// PIPE1: error: hccl-pipeline: option first-bucket-bytes='1M' has no effect with policy=optimal
// With the policy that reads it, it works.
// RUN: hccl-opt %s "--hccl-pipeline=policy=threshold threshold-bytes=64M lower=false" | FileCheck %s --check-prefix=OK
// OK: func.func @f

// The pass alone: the same for threshold options under optimal, and for
// algo= (read only by optimal's cost model) under threshold.
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=optimal threshold-bytes=8K})" 2>&1 | FileCheck %s --check-prefix=PASS-T
// PASS-T: error: comm-bucket-sizing: option threshold-bytes='8K' has no effect with policy=optimal (the cost model sizes the buckets)
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=optimal first-bucket-bytes=1M})" 2>&1 | FileCheck %s --check-prefix=PASS-F
// PASS-F: error: comm-bucket-sizing: option first-bucket-bytes='1M' has no effect with policy=optimal
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{algo=level0:NA})" 2>&1 | FileCheck %s --check-prefix=PASS-A
// PASS-A: error: comm-bucket-sizing: option algo='level0:NA' has no effect with policy=threshold (only the cost model of policy=optimal reads it)
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=ddp algo=level0:NA})" 2>&1 | FileCheck %s --check-prefix=PASS-AD
// PASS-AD: error: comm-bucket-sizing: option algo='level0:NA' has no effect with policy=ddp
// Given is given, whatever the value: threshold-bytes=64M (threshold's
// default size) and first-bucket-bytes=0 under optimal are refused too.
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=optimal threshold-bytes=64M})" 2>&1 | FileCheck %s --check-prefix=PASS-64
// PASS-64: error: comm-bucket-sizing: option threshold-bytes='64M' has no effect with policy=optimal
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=optimal first-bucket-bytes=0})" 2>&1 | FileCheck %s --check-prefix=PASS-0
// PASS-0: error: comm-bucket-sizing: option first-bucket-bytes='0' has no effect with policy=optimal
// The overlap limits: only optimal sizes under them (0 means no limit and
// is accepted under any policy).
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=threshold max-in-flight=2})" 2>&1 | FileCheck %s --check-prefix=PASS-FLIGHT
// PASS-FLIGHT: error: comm-bucket-sizing: option max-in-flight has no effect with policy=threshold (only policy=optimal sizes under the overlap limits)
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=ddp memory-cap=1G})" 2>&1 | FileCheck %s --check-prefix=PASS-CAP
// PASS-CAP: error: comm-bucket-sizing: option memory-cap has no effect with policy=ddp
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{max-bytes-in-flight=8M})" 2>&1 | FileCheck %s --check-prefix=PASS-FB
// PASS-FB: error: comm-bucket-sizing: option max-bytes-in-flight has no effect with policy=threshold
// The pipeline gives its limits to sizing only under optimal.
// RUN: hccl-opt %s "--hccl-pipeline=policy=threshold max-in-flight=1 memory-cap=1G lower=false" | FileCheck %s --check-prefix=OK
// slack-margin: only optimal's cost model keeps slack; a margin outside
// 0..10 (or not a number) is refused under any policy.
// RUN: not hccl-opt %s "--hccl-pipeline=policy=ddp slack-margin=0.1 lower=false" 2>&1 | FileCheck %s --check-prefix=PIPE-SLACK
// PIPE-SLACK: error: hccl-pipeline: option slack-margin has no effect with policy=ddp (only the cost model of policy=optimal keeps slack)
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=threshold slack-margin=0.5})" 2>&1 | FileCheck %s --check-prefix=PASS-SLACK
// PASS-SLACK: error: comm-bucket-sizing: option slack-margin=0.50 has no effect with policy=threshold (only the cost model of policy=optimal keeps slack)
// 0 (off) and the default 1 leave threshold's buckets as they are: accepted.
// RUN: hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=threshold slack-margin=0})" | FileCheck %s --check-prefix=PASS-SLACK-OFF
// PASS-SLACK-OFF: func.func @f
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=optimal slack-margin=-1})" 2>&1 | FileCheck %s --check-prefix=PASS-SLACK-NEG
// PASS-SLACK-NEG: error: comm-bucket-sizing: option slack-margin=-1.00 is not valid: expected a fraction from 0 (off) to 10
// RUN: not hccl-opt %s --pass-pipeline="builtin.module(comm-bucket-sizing{policy=optimal slack-margin=nan})" 2>&1 | FileCheck %s --check-prefix=PASS-SLACK-NAN
// PASS-SLACK-NAN: error: comm-bucket-sizing: option slack-margin=nan is not valid
// ddp reads both sizes.
// RUN: hccl-opt %s "--hccl-pipeline=policy=ddp threshold-bytes=25M first-bucket-bytes=1M lower=false" | FileCheck %s --check-prefix=OK

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
