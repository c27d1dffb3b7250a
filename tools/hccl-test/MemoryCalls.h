//===- MemoryCalls.h - Timing calls from memory ----------------*- C++ -*-===//
//
// hccl-test --flush-mib / --evict-buffers with --issue ahead, and hccl-run's
// --phase-probe, which must time a call exactly as the calibration timed it
// (calibrate_host.py runs hccl-test so): one implementation for both.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_HCCL_TEST_MEMORYCALLS_H
#define HCCL_TOOLS_HCCL_TEST_MEMORYCALLS_H

#include "hccl/hccl.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace hccltest {

/// What a rank does before each call so that the call's data comes from
/// memory.
struct CallMemory {
  const void *send = nullptr, *recv = nullptr;
  size_t sendBytes = 0, recvBytes = 0;
  std::vector<unsigned char> *flush = nullptr; ///< --flush-mib, else null

  /// Flushes (writing `pattern` over the flush buffer) or evicts the
  /// call's buffers.
  void evict(size_t pattern) const;
};

/// The steady clock in seconds (every rank under one kernel reads the same).
double nowSeconds();

/// Queues `iters` calls on `stream` as a step queues its collectives: each
/// behind a stream task that evicts (or flushes) and a barrier on the
/// stream, then a barrier after it, so no host thread parks and wakes
/// between calls, no rank starts a call before every rank has evicted, and
/// no rank evicts for the next call while another still ends this one.
/// `launch` queues one call (named `callName`) on the stream. Waits for the
/// stream. On return `marks` holds each call's start and end on this rank
/// (2 * iters, nowSeconds()); on failure `failed` is "NAME failed: ERROR"
/// for the first step that failed, its error text taken at once (a later
/// failure, e.g. the synchronisation, would overwrite the thread's).
HcclResult queueCallsFromMemory(HcclComm comm, aclrtStream stream,
                                const CallMemory &memory, int iters,
                                const char *callName,
                                const std::function<HcclResult()> &launch,
                                std::vector<double> &marks,
                                std::string *failed);

/// Whether every rank of `comm` reads one steady clock: processes under one
/// kernel read one CLOCK_MONOTONIC, and equal boot ids say so (a time
/// namespace could still offset it; none of the launchers here makes one).
/// Collective: every rank calls it.
HcclResult sharedSteadyClock(HcclComm comm, bool *shared);

/// `seconds` becomes the calls' total from `marks` (each call's start and
/// end on this rank). With `shared`, `marks` become the job's (the latest
/// over ranks) first, so each call counts from the last rank's start to the
/// last rank's end; otherwise this rank's own. Collective when `shared`.
HcclResult lastStartToLastEnd(HcclComm comm, bool shared,
                              std::vector<double> &marks, double *seconds);

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_MEMORYCALLS_H
