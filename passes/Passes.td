//===- Passes.td - comm dialect passes ---------------------*- tablegen -*-===//
#ifndef HCCL_COMM_PASSES
#define HCCL_COMM_PASSES

include "mlir/Pass/PassBase.td"

def GradientFusion : Pass<"comm-gradient-fusion"> {
  let summary = "Fuse the collectives of each bucket into one variadic op";
  let description = [{
    Materialises the buckets chosen by `comm-bucket-sizing`: the
    `comm.all_reduce` ops of one function that carry the same `comm.bucket`
    index and the same key (group, reduction, element type, algorithm) become
    one variadic `comm.all_reduce`, placed where the bucket's last gradient is
    ready. Uses of the earlier members' results that sat before that point are
    moved after it.

    Fusion never creates a cycle: a member whose inputs depend on the results
    of an earlier member of the bucket (checked by forward reachability) starts
    a new bucket instead, as does a side-effecting user that would have to
    move. The order of collectives is a pure function of the input IR, so
    every rank issues the same sequence.
  }];
  let statistics = [
    Statistic<"numFused", "fused-collectives",
              "Collectives merged into a bucket">,
    Statistic<"numBuckets", "buckets", "Fused collectives created">,
    Statistic<"numSplits", "bucket-splits",
              "Buckets split to avoid a cycle or a side-effecting move">,
  ];
}

#endif // HCCL_COMM_PASSES
