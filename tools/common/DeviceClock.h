//===- DeviceClock.h - An emulated device's clock, read ahead ---*- C++ -*-===//
//
// hccl-run emulates an NPU's compute stream by a clock: compute advances it
// by its cost, and a wait for a collective holds it until the collective
// ended. With `--issue ahead` the host queues every start of an iteration at
// once, each behind a gate on its communication stream; the gate asks this
// clock when the device reaches its start and holds the stream until then,
// as an NPU's comm stream waits on an event its compute stream records. The
// time a start is due then depends on the ends of the collectives waited
// for before it, which other stream threads report: `reach` blocks until
// they are known. MLIR-free; thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_COMMON_DEVICECLOCK_H
#define HCCL_TOOLS_COMMON_DEVICECLOCK_H

#include "HostWait.h"

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace hccl::tools {

class DeviceClock {
public:
  /// One stretch of the device's work in plan order: compute of `computeUs`
  /// or (collective >= 0) a wait for that collective's end.
  struct Step {
    double computeUs = 0;
    long collective = -1;
  };

  /// `collectives`: the number of collective slots steps refer to; a step
  /// naming a slot past them is a caller's bug: std::out_of_range.
  DeviceClock(std::vector<Step> steps, size_t collectives);

  /// A new iteration: no collective has ended, and `reach` waits for
  /// `start`, so that gates can be queued before the device's time begins
  /// (an NPU's host queues its work ahead; queuing is not the device's
  /// time). A new clock is armed.
  void arm();
  /// The armed iteration's device starts at `t0`.
  void start(HostClock::time_point t0);

  /// The collective in `slot` ended at `t` (its stream reports it, failed
  /// or not: a stream runs the tasks after a failed one).
  void ended(size_t slot, HostClock::time_point t);

  /// When the device reaches the point before step `i` (steps().size():
  /// its end). Blocks until the iteration has started and every collective
  /// waited for before it has ended.
  HostClock::time_point reach(size_t i);

  size_t steps() const { return steps_.size(); }

  /// Every `reach` returns at once from now on (with the time as far as it
  /// is known), so that stream threads holding gates are not left waiting
  /// for collectives that will never be queued. `arm` undoes it.
  void cancel();

private:
  std::mutex mu_;
  std::condition_variable cv_;
  const std::vector<Step> steps_;
  std::vector<bool> hasEnded_;
  std::vector<HostClock::time_point> ends_;
  /// at_[k] for k <= cursor_: when the device reached the point before
  /// step k.
  std::vector<HostClock::time_point> at_;
  size_t cursor_ = 0;
  bool started_ = false;
  bool cancelled_ = false;
};

} // namespace hccl::tools

#endif // HCCL_TOOLS_COMMON_DEVICECLOCK_H
