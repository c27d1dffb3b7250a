//===- Stream.h - Host streams: ordered asynchronous queues -----*- C++ -*-===//
//
// The runtime's stand-in for an NPU stream: one worker thread runs enqueued
// work in order while the caller continues. synchronize() waits for the queue
// to drain and returns the first error since the previous synchronize.
//
// The worker polls (yielding) a little after running out of work before it
// sleeps, and so does a synchronizing caller once only the last task is
// left (it sleeps while more wait): a training loop enqueues and
// synchronizes back to back, and a futex wake-up is slow on a VM.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_STREAM_H
#define HCCL_RUNTIME_CORE_STREAM_H

#include "common/Status.h"
#include "core/InlineTask.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hccl::rt {

class HostStream {
public:
  /// Slots of the ring a stream starts with, allocated and written when it
  /// is created. A queue that outgrows them doubles the ring, which writes
  /// fresh pages, and a first touch of a page cost 11-15 us on the 2-core
  /// VM measured: while hccl-test queued its 2000 timed 4 KB calls, the
  /// doublings from 64 slots made a call on a stream cost 1.5-1.7x a blocking
  /// one, against 1.0-1.2x with the ring sized (docs/performance.md, "The
  /// stream's ring sized once"). A training step queues tens of calls;
  /// 4096 slots hold hccl-test's runs and cost about 450 KB a stream.
  static constexpr size_t kInitialSlots = 4096;

  static StatusOr<std::unique_ptr<HostStream>> create();
  ~HostStream();
  HostStream(const HostStream &) = delete;
  HostStream &operator=(const HostStream &) = delete;

  /// Queues `f` (a `Status()` callable); closures of up to
  /// InlineTask::kInlineBytes are stored without allocating.
  template <class F> void enqueue(F &&f) {
    enqueueTask(InlineTask(std::forward<F>(f)));
  }
  void enqueueTask(InlineTask t);
  /// Held by a caller across taking its communicator's ticket (IssueOrder)
  /// and queuing the call (capi dispatch): two threads queuing calls on one
  /// stream then put them in the ring in ticket order. Otherwise a later
  /// ticket could be queued first, while the earlier one's caller grows the
  /// ring, and the worker would wait for a turn that is queued behind it.
  /// Only callers take it; the worker never does.
  std::mutex &issueLock() { return issueMu_; }
  /// The ring's slots now (tests: whether it grew).
  size_t capacity();
  /// Waits until everything enqueued so far has run; returns (and clears)
  /// the first error since the previous synchronize.
  Status synchronize();
  bool idle();

private:
  HostStream() = default;
  void run();

  bool queueEmpty() const { return queued_ == 0; }

  std::mutex mu_;
  std::mutex issueMu_; ///< see issueLock()
  std::condition_variable workCv_, doneCv_;
  /// Queued tasks: a ring of ring_.size() slots from head_, queued_ long;
  /// it doubles when full and never shrinks, so a stream's steady state
  /// allocates nothing.
  std::vector<InlineTask> ring_;
  size_t head_ = 0, queued_ = 0;
  bool busy_ = false;
  bool stop_ = false;
  bool workerSleeping_ = false;
  std::atomic<size_t> outstanding_{0}; ///< enqueued and not finished
  std::atomic<bool> stopping_{false};
  Status firstError_;
  std::thread thread_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_STREAM_H
