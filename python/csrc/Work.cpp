//===- Work.cpp - asynchronous c10d work run by one thread per group ------===//

#include "Work.h"

#include <ATen/core/jit_type.h>

namespace hccl_torch {

HcclWork::HcclWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs,
                   Body body)
    : c10d::Work(rank, type), outputs_(std::move(outputs)),
      body_(std::move(body)),
      future_(c10::make_intrusive<c10::ivalue::Future>(
          c10::ListType::create(c10::TensorType::get()))) {}

c10::intrusive_ptr<c10::ivalue::Future> HcclWork::getFuture() {
  issue();
  return future_;
}

bool HcclWork::isCompleted() {
  issue();
  return c10d::Work::isCompleted();
}

bool HcclWork::wait(std::chrono::milliseconds timeout) {
  issue();
  return c10d::Work::wait(timeout);
}

void HcclWork::run() {
  try {
    body_();
  } catch (...) {
    std::exception_ptr e = std::current_exception();
    body_ = nullptr;
    finish(e);
    future_->setError(e);
    return;
  }
  body_ = nullptr; // drop the tensors the body captured
  // The work completes first, so that a future's callbacks and waiters see
  // is_completed() already true.
  finish();
  future_->markCompleted(c10::IValue(outputs_));
}

Worker::Worker() : thread_([this] { loop(); }) {}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void Worker::enqueue(c10::intrusive_ptr<HcclWork> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
}

void Worker::loop() {
  for (;;) {
    c10::intrusive_ptr<HcclWork> work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stop_ and nothing left
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work->run();
  }
}

} // namespace hccl_torch
