//===- Options.h - hccl-test's command line ---------------------*- C++ -*-===//
//
// Huawei hccl_test's flags (-b -e -i -f -n -w -o -r -d -c -p) plus ours
// (--csv, --algo, --sync, --malloc). Parsing never exits: it returns the
// options or a one-line error for the caller to print (exit status 2).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_HCCL_TEST_OPTIONS_H
#define HCCL_TOOLS_HCCL_TEST_OPTIONS_H

#include "hccl/hccl_types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hccltest {

enum class Op {
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
  AllToAllV,
};

const char *opName(Op op);
const char *dataTypeName(HcclDataType t);
const char *reduceOpName(HcclReduceOp op);
/// Element size of the data types hccl-test supports (0 otherwise).
size_t dataTypeSize(HcclDataType t);

struct Options {
  Op op = Op::AllReduce;
  uint64_t minBytes = 64ull << 20; ///< -b
  uint64_t maxBytes = 64ull << 20; ///< -e
  uint64_t stepBytes = 1ull << 20; ///< -i (used when -f is 1)
  uint64_t stepFactor = 1;         ///< -f (> 1: multiply instead of add)
  int iters = 20;                  ///< -n
  int warmupIters = 5;             ///< -w
  HcclReduceOp reduceOp = HCCL_REDUCE_SUM; ///< -o
  uint32_t root = 0;                       ///< -r
  HcclDataType dataType = HCCL_DATA_TYPE_FP32; ///< -d
  bool check = true;                           ///< -c
  int npus = 8;                                ///< -p
  bool npusGiven = false;
  std::string csvPath;  ///< --csv FILE
  std::string algo;     ///< --algo VALUE (exported as HCCL_ALGO)
  bool sync = false;    ///< --sync: NULL stream (blocking calls)
  bool useMalloc = false; ///< --malloc: plain heap buffers, not HcclMemAlloc
  bool help = false;

  /// The sizes to run, in order: minBytes, then +stepBytes or *stepFactor,
  /// up to maxBytes.
  std::vector<uint64_t> sizes() const;
};

/// argv[0] is the program; argv[1] the collective. Error: "hccl-test: ...".
struct ParseResult {
  std::optional<Options> options;
  std::string error;
};
ParseResult parseOptions(int argc, const char *const *argv);

std::string usage();

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_OPTIONS_H
