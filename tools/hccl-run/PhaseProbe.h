//===- PhaseProbe.h - The host's memory phase between iterations *- C++ -*-===//
//
// hccl-run --phase-probe BYTES: an all-reduce of BYTES (fp32 sum, ring, on
// buffers from HcclMemAlloc) timed from memory exactly as
// calibrate_host.py times its sizes with --evict-buffers (hccl-test
// --evict-buffers --issue ahead: the same code, MemoryCalls.h), before the
// first timed iteration and after each. A VM's memory runs in phases up to
// 1.6x apart that last seconds to a minute (docs/performance.md, "The
// host's memory phases"); a probe between two runs cannot tell a phase
// that came and went inside a run. bench/model/validate_model.py
// --phase-inside sets each probe against the calibrated model's price of
// that call and prices each iteration at the phase of the probes around
// it.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_HCCL_RUN_PHASEPROBE_H
#define HCCL_TOOLS_HCCL_RUN_PHASEPROBE_H

#include "hccl/hccl.h"

#include <cstdint>
#include <string>

namespace hcclrun {

class PhaseProbe {
public:
  PhaseProbe(HcclComm world, uint32_t rank, uint32_t size, uint64_t bytes,
             int calls)
      : world_(world), rank_(rank), size_(size), bytes_(bytes), calls_(calls) {}
  ~PhaseProbe();
  PhaseProbe(const PhaseProbe &) = delete;
  PhaseProbe &operator=(const PhaseProbe &) = delete;

  /// A ring communicator over every rank, the buffers (filled, then two
  /// warm-up calls as hccl-test makes) and a stream. Collective. Returns ""
  /// or what failed.
  std::string setup();
  /// Times the calls; `us` is the mean per call, of the job (from the last
  /// rank's start under one kernel, else the slowest rank's own time).
  /// Collective. Returns "" or what failed.
  std::string time(double &us);

private:
  std::string failed(const char *what) const;

  HcclComm world_, ring_ = nullptr;
  uint32_t rank_, size_;
  uint64_t bytes_;
  int calls_;
  void *send_ = nullptr, *recv_ = nullptr;
  aclrtStream stream_ = nullptr;
  bool sharedClock_ = false;
};

} // namespace hcclrun

#endif // HCCL_TOOLS_HCCL_RUN_PHASEPROBE_H
