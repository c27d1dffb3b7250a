//===- Passes.h - comm dialect passes ---------------------------*- C++ -*-===//
#ifndef HCCL_MLIR_PASSES_PASSES_H
#define HCCL_MLIR_PASSES_PASSES_H

#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::comm {

#define GEN_PASS_DECL
#include "hccl-mlir/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hccl-mlir/Passes/Passes.h.inc"

/// Options of the end-to-end pipeline (--hccl-pipeline), forwarded to its
/// passes; names and defaults are those of the passes' own options.
struct HcclPipelineOptions : public PassPipelineOptions<HcclPipelineOptions> {
  Option<std::string> compress{
      *this, "compress",
      llvm::cl::desc("Gradient compression before sizing: '' (off), bf16 "
                     "or fp16"),
      llvm::cl::init("")};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("comm-bucket-sizing policy: threshold, ddp or optimal"),
      llvm::cl::init("optimal")};
  Option<std::string> thresholdBytes{
      *this, "threshold-bytes",
      llvm::cl::desc("comm-bucket-sizing threshold-bytes (K/M/G suffixes; "
                     "'' = the policy's default)"),
      llvm::cl::init("")};
  Option<std::string> firstBucketBytes{
      *this, "first-bucket-bytes",
      llvm::cl::desc("comm-bucket-sizing first-bucket-bytes ('' = the "
                     "policy's default)"),
      llvm::cl::init("")};
  Option<int64_t> maxCount{
      *this, "max-count",
      llvm::cl::desc("comm-bucket-sizing max collectives per bucket (0 = "
                     "no cap)"),
      llvm::cl::init(0)};
  Option<std::string> maxBucketBytes{
      *this, "max-bucket-bytes",
      llvm::cl::desc("comm-bucket-sizing memory cap per bucket ('' = none)"),
      llvm::cl::init("")};
  Option<std::string> algo{
      *this, "algo",
      llvm::cl::desc("HCCL_ALGO-style override for sizing and selection"),
      llvm::cl::init("")};
  Option<std::string> algoTable{
      *this, "algo-table",
      llvm::cl::desc("comm-select-algorithm table= (algorithm table JSON)"),
      llvm::cl::init("")};
  Option<int64_t> maxInFlight{
      *this, "max-in-flight",
      llvm::cl::desc("comm-overlap-schedule collectives in flight (0 = no "
                     "limit)"),
      llvm::cl::init(0)};
  Option<std::string> maxBytesInFlight{
      *this, "max-bytes-in-flight",
      llvm::cl::desc("comm-overlap-schedule bytes in flight ('' = no limit)"),
      llvm::cl::init("")};
  Option<std::string> memoryCap{
      *this, "memory-cap",
      llvm::cl::desc("comm-overlap-schedule memory cap ('' = no cap)"),
      llvm::cl::init("")};
  Option<double> slackMargin{
      *this, "slack-margin",
      llvm::cl::desc("comm-bucket-sizing slack-margin (optimal only; "
                     "default 1, 0 = off)"),
      llvm::cl::init(1.0)};
  Option<int64_t> slices{*this, "slices",
                         llvm::cl::desc("comm-select-algorithm slices per op"),
                         llvm::cl::init(1)};
  Option<double> peakTflops{
      *this, "peak-tflops",
      llvm::cl::desc("Device peak for compute estimates (TFLOPS)"),
      llvm::cl::init(320.0)};
  Option<double> memoryGbps{
      *this, "memory-gbps",
      llvm::cl::desc("Device memory bandwidth for compute estimates (GB/s)"),
      llvm::cl::init(1600.0)};
  Option<bool> lower{*this, "lower", llvm::cl::desc("Lower to step schedules"),
                     llvm::cl::init(true)};
  Option<bool> verify{*this, "verify",
                      llvm::cl::desc("Verify the lowered schedules"),
                      llvm::cl::init(true)};
};

/// Sizing -> fusion -> overlap -> selection -> lowering -> verification
/// (with optional compression first), as one pipeline on any op.
void buildHcclPipeline(OpPassManager &pm, const HcclPipelineOptions &opts);
/// "" when the options fit together, else why not: an option the chosen
/// bucketing policy ignores (threshold-bytes or first-bucket-bytes given
/// with policy=optimal, slack-margin with another policy).
std::string checkHcclPipelineOptions(const HcclPipelineOptions &opts);

/// Registers every comm pass and the named pipelines.
void registerCommPasses();

} // namespace mlir::comm

#endif // HCCL_MLIR_PASSES_PASSES_H
