//===- Options.h - hccl-test's command line ---------------------*- C++ -*-===//
//
// Huawei hccl_test's flags with its semantics (-b -e -i -f -n -w -o -r -d -c
// -p -z: sizes in bytes with K/M/G and hex or octal as strtol reads them, a
// fractional -f, -i and -n 0 accepted, -f winning over -i with a warning,
// hccl_test's defaults) plus ours (--csv, --algo, --sync, --malloc). The
// collective comes from the program's name (all_reduce_test ...) or the
// first argument. Parsing never exits: it returns the options or a one-line
// error for the caller to print (exit status 2).
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
  Scatter,
  AllGatherV,
  ReduceScatterV,
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
  uint64_t stepBytes = 0; ///< -i (hccl_test: (max-min)/10 if not given)
  bool stepBytesGiven = false;
  double stepFactor = 1.0; ///< -f (> 1: multiply instead of add)
  int iters = 20;          ///< -n
  int warmupIters = 10;    ///< -w
  HcclReduceOp reduceOp = HCCL_REDUCE_SUM; ///< -o
  bool reduceOpGiven = false;
  uint32_t root = 0;                           ///< -r
  HcclDataType dataType = HCCL_DATA_TYPE_FP32; ///< -d
  bool check = true;                           ///< -c
  int npus = 8;                                ///< -p
  bool npusGiven = false;
  bool zeroCopy = false;  ///< -z: buffers in an HcclCommSetMemoryRange range
  std::string csvPath;    ///< --csv FILE
  std::string algo;       ///< --algo VALUE (exported as HCCL_ALGO)
  bool sync = false;      ///< --sync: NULL stream (blocking calls)
  bool useMalloc = false; ///< --malloc: plain heap buffers, not HcclMemAlloc
  int gapUs = 0; ///< --gap-us: idle time before each iteration (cold calls)
  /// --issue ahead: with --gap-us, each cold call is queued at once behind
  /// a gate on the stream that idles the gap (as hccl-run --issue ahead
  /// holds its starts); host (default): the calling thread idles, then
  /// launches and synchronizes. With --flush-mib or --evict-buffers, each
  /// call is queued at once behind a stream task that flushes or evicts and
  /// a barrier on the stream, and followed by another barrier there, so no
  /// host thread parks between calls: a step's queue of collectives between
  /// which compute evicts the buffers, where the host's meetings park ranks
  /// that share cores (4 ranks on 2 cores, a 1 KB ring all-reduce from
  /// memory: 198-537 us alone, 96-262 queued; docs/performance.md, "Calls
  /// from memory queued on the stream").
  bool issueAhead = false;
  /// --flush-mib: before each timed call every rank writes this many MiB of
  /// memory of its own, then the ranks meet, and the call is timed alone:
  /// its buffers come from memory, not the caches, as in a training step
  /// whose compute streams far more than the caches hold between two
  /// collectives. 0 = off (calls back to back, their buffers warm). With
  /// every rank under one kernel a call is timed from the last rank's start
  /// to the last rank's end (the ranks' skew leaving the meeting is not the
  /// call's); otherwise on each rank's own clock.
  int flushMiB = 0;
  /// --evict-buffers: as --flush-mib (the meeting, the timing), but before
  /// each timed call every rank evicts only its own send and receive
  /// buffers from the caches. The data comes from memory, as in a training
  /// step; the runtime's code and control state stay warm, as they do when
  /// a step's collectives follow each other, where a flush would make every
  /// call also pay for them (docs/performance.md, "Buffers evicted, not the
  /// caches flushed").
  bool evictBuffers = false;
  /// Each timed call alone, its data from memory (--flush-mib or
  /// --evict-buffers).
  bool fromMemory() const { return flushMiB > 0 || evictBuffers; }
  bool help = false;
  /// hccl_test's warnings for accepted combinations (printed by the root).
  std::vector<std::string> warnings;

  /// The sizes hccl_test runs for `nRanks` ranks, in order: from minBytes,
  /// + stepBytes (or * stepFactor) up to maxBytes; collectives that split
  /// data over ranks align every size to the rank count (to 512 * ranks
  /// above 1 MiB), as hccl_test does. A step that does not grow the size
  /// ends the list (hccl_test would loop on it).
  std::vector<uint64_t> sizes(uint32_t nRanks = 1) const;
  /// The bounds after that alignment (hccl_test prints them).
  uint64_t alignedMin(uint32_t nRanks) const;
  uint64_t alignedMax(uint32_t nRanks) const;
};

/// True for the collectives whose sizes hccl_test aligns to the rank count.
bool alignsToRanks(Op op);
/// hccl_test's binary name for a collective ("all_reduce_test").
const char *binaryName(Op op);

/// argv[0] is the program: one of hccl_test's binary names (then argv[1..]
/// are flags), or hccl-test (then argv[1] is the collective). Errors read
/// "hccl-test: ...".
struct ParseResult {
  std::optional<Options> options;
  std::string error;
};
ParseResult parseOptions(int argc, const char *const *argv);

std::string usage();

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_OPTIONS_H
