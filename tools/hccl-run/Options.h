//===- Options.h - hccl-run's command line ----------------------*- C++ -*-===//
#ifndef HCCL_TOOLS_HCCL_RUN_OPTIONS_H
#define HCCL_TOOLS_HCCL_RUN_OPTIONS_H

#include <optional>
#include <string>

namespace hcclrun {

struct Options {
  std::string plan;       ///< the scheduled plan
  std::string baseline;   ///< --compare: the unscheduled plan
  std::string trace;      ///< --trace FILE: Chrome trace of what ran
  int ranks = 0;          ///< -p: local ranks to launch (0 = the plan's)
  int iters = 5;          ///< -n
  int warmup = 1;         ///< -w
  double timeScale = 1.0; ///< --time-scale: compute cost multiplier
  bool check = true;      ///< -c 0|1
  int streams = 1;        ///< --streams: communication streams
  /// --streams group: one stream per communicator (a program's groups), as
  /// the compiler's timeline assumes; `streams` is then unused.
  bool streamPerGroup = false;
  int spinUs = 100; ///< --spin-us: yield instead of sleeping for the last N us
  /// --host-slice-us: the scheduler slice of the thread that issues the
  /// starts (the streams' with --issue ahead; 0: the kernel's)
  int hostSliceUs = 0;
  unsigned long long maxBufferMiB = 1024; ///< --max-buffer-mib
  /// --buffer-span-mib: with shared buffers, the pair spans this many MiB
  /// and each launch takes the next stretch of it, so that a collective's
  /// data was last touched about that much traffic ago (out of the caches,
  /// as in a training step) rather than by the collective before it. 0 =
  /// every collective at the pair's start.
  unsigned long long bufferSpanMiB = 0;
  /// --issue ahead (default): starts queued at once behind gates on their
  /// streams (DeviceClock.h); host: the host thread issues each when due.
  bool issueAhead = true;
  /// --phase-probe BYTES: an all-reduce of BYTES timed from memory before
  /// the first timed iteration and after each (PhaseProbe.h); 0 = none.
  unsigned long long phaseProbeBytes = 0;
  int phaseProbeCalls = 5; ///< --phase-probe-calls: calls per probe
  bool help = false;
};

struct ParseResult {
  std::optional<Options> options;
  std::string error; ///< "hccl-run: ..." when options is empty
};
ParseResult parseOptions(int argc, const char *const *argv);
std::string usage();

} // namespace hcclrun

#endif
