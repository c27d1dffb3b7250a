//===- Pipeline.cpp - The hccl-pipeline
//------------------------------------===//
//
// The passes in the order their preconditions need: compression changes
// sizes, sizing decides buckets, fusion makes them ops, overlap schedules
// the (fused) collectives, selection picks algorithms for the final sizes,
// lowering expands them, verification proves the result.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Passes/Passes.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::comm;

std::string mlir::comm::checkHcclPipelineOptions(const HcclPipelineOptions &o) {
  if (o.policy == "optimal")
    for (const auto *opt : {&o.thresholdBytes, &o.firstBucketBytes})
      if (opt->hasValue())
        return "option " + opt->ArgStr.str() + "='" + opt->getValue() +
               "' has no effect with policy=optimal (the pipeline's default: "
               "the cost model sizes the buckets); give policy=threshold or "
               "policy=ddp to use it";
  if (o.policy != "optimal" && o.slackMargin.hasValue())
    return "option slack-margin has no effect with policy=" + o.policy +
           " (only the cost model of policy=optimal keeps slack)";
  return "";
}

void mlir::comm::buildHcclPipeline(OpPassManager &pm,
                                   const HcclPipelineOptions &o) {
  if (!o.compress.empty()) {
    GradientCompressionOptions c;
    c.dtype = o.compress;
    pm.addPass(createGradientCompression(c));
  }
  BucketSizingOptions sizing;
  sizing.policy = o.policy;
  if (!o.thresholdBytes.empty())
    sizing.thresholdBytes = o.thresholdBytes;
  if (!o.firstBucketBytes.empty())
    sizing.firstBucketBytes = o.firstBucketBytes;
  sizing.maxCount = o.maxCount;
  if (!o.maxBucketBytes.empty())
    sizing.maxBucketBytes = o.maxBucketBytes;
  sizing.peakTflops = o.peakTflops;
  sizing.memoryGbps = o.memoryGbps;
  // Only the cost model of optimal reads algorithms, tables and the limits
  // overlap enforces; the other policies refuse them.
  if (o.policy == "optimal") {
    sizing.algo = o.algo;
    sizing.table = o.algoTable;
    sizing.slackMargin = o.slackMargin;
    sizing.maxInFlight = o.maxInFlight;
    if (!o.maxBytesInFlight.empty())
      sizing.maxBytesInFlight = o.maxBytesInFlight;
    if (!o.memoryCap.empty())
      sizing.memoryCap = o.memoryCap;
  }
  pm.addPass(createBucketSizing(sizing));
  pm.addPass(createGradientFusion());
  OverlapScheduleOptions overlap;
  overlap.maxInFlight = o.maxInFlight;
  if (!o.maxBytesInFlight.empty())
    overlap.maxBytesInFlight = o.maxBytesInFlight;
  if (!o.memoryCap.empty())
    overlap.memoryCap = o.memoryCap;
  overlap.peakTflops = o.peakTflops;
  overlap.memoryGbps = o.memoryGbps;
  pm.addPass(createOverlapSchedule(overlap));
  SelectAlgorithmOptions select;
  select.algo = o.algo;
  select.table = o.algoTable;
  select.slices = o.slices;
  pm.addPass(createSelectAlgorithm(select));
  if (o.lower) {
    pm.addPass(createLowerSchedule());
    if (o.verify)
      pm.addPass(createVerifySchedule());
  }
}
