//===- Work.h - asynchronous c10d work run by one thread per group --------===//
//
// Every call of the backend becomes an HcclWork queued on its group's
// Worker, one thread that runs the queue in issue order with synchronous
// runtime calls. One thread per group keeps every rank's call order equal to
// its issue order (the runtime serialises a communicator's calls anyway) and
// makes the runtime's per-thread error message the one of the failed call.
// A work completes, then its future is completed with the output tensors
// (what DDP's comm hooks read) or set to the error.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TORCH_WORK_H
#define HCCL_TORCH_WORK_H

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hccl_torch {

class HcclWork : public c10d::Work {
public:
  using Body = std::function<void()>;
  HcclWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs,
           Body body);

  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;
  bool isCompleted() override;
  bool wait(std::chrono::milliseconds timeout = kNoTimeout) override;

  /// Work held before it is queued (P2pBatch.h): `issue` queues it (and
  /// what is held with it), and runs before a wait, a poll or getFuture.
  void setIssue(std::function<void()> issue) { issue_ = std::move(issue); }
  /// The body of a work created without one, set before it is queued.
  void setBody(Body body) { body_ = std::move(body); }

  /// Runs the body on the calling (worker) thread, then completes the work.
  void run();

private:
  void issue() {
    if (issue_)
      issue_();
  }

  std::vector<at::Tensor> outputs_;
  Body body_;
  std::function<void()> issue_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

class Worker {
public:
  Worker();
  /// Runs what is queued, then stops the thread.
  ~Worker();
  void enqueue(c10::intrusive_ptr<HcclWork> work);

private:
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<c10::intrusive_ptr<HcclWork>> queue_;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace hccl_torch

#endif // HCCL_TORCH_WORK_H
