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

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace hccl::rt {

class HostStream {
public:
  using Task = std::function<Status()>;
  static StatusOr<std::unique_ptr<HostStream>> create();
  ~HostStream();
  HostStream(const HostStream &) = delete;
  HostStream &operator=(const HostStream &) = delete;

  void enqueue(Task t);
  /// Waits until everything enqueued so far has run; returns (and clears)
  /// the first error since the previous synchronize.
  Status synchronize();
  bool idle();

private:
  HostStream() = default;
  void run();

  std::mutex mu_;
  std::condition_variable workCv_, doneCv_;
  std::deque<Task> queue_;
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
