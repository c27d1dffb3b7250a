//===- Stream.cpp - Host streams: ordered asynchronous queues -------------===//
#include "core/Stream.h"
#include "common/Deadline.h"
#include "common/Futex.h"

namespace hccl::rt {

namespace {
bool hostOversubscribed() {
  // More runnable threads than cores is the normal case in tests (8 ranks on
  // 2 cores); spinning there only steals time from the ranks that work.
  static const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return hw < 4;
}
constexpr int64_t kWorkerSpinUs = 30;
} // namespace

StatusOr<std::unique_ptr<HostStream>> HostStream::create() {
  std::unique_ptr<HostStream> s(new HostStream());
  try {
    HostStream *raw = s.get();
    s->thread_ = std::thread([raw] { raw->run(); });
  } catch (const std::exception &e) {
    return Status(HCCL_E_SYSCALL,
                  std::string("cannot start the stream thread: ") + e.what());
  }
  return s;
}

HostStream::~HostStream() {
  (void)synchronize();
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  workCv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void HostStream::enqueue(Task t) {
  bool wake;
  {
    std::lock_guard<std::mutex> g(mu_);
    queue_.push_back(std::move(t));
    wake = workerSleeping_;
  }
  if (wake)
    workCv_.notify_one();
}

Status HostStream::synchronize() {
  std::unique_lock<std::mutex> g(mu_);
  doneCv_.wait(g, [&] { return queue_.empty() && !busy_; });
  Status st = firstError_;
  firstError_ = Status::ok();
  return st;
}

bool HostStream::idle() {
  std::lock_guard<std::mutex> g(mu_);
  return queue_.empty() && !busy_;
}

void HostStream::run() {
  const bool spin = !hostOversubscribed();
  std::unique_lock<std::mutex> g(mu_);
  for (;;) {
    if (queue_.empty() && !stop_ && spin) {
      // Brief spin: the next call of a loop usually arrives within
      // microseconds.
      g.unlock();
      int64_t until = nowUs() + kWorkerSpinUs;
      while (nowUs() < until) {
        for (int i = 0; i < 32; ++i)
          cpuRelax();
        std::lock_guard<std::mutex> peek(mu_);
        if (!queue_.empty() || stop_)
          break;
      }
      g.lock();
    }
    workerSleeping_ = true;
    workCv_.wait(g, [&] { return !queue_.empty() || stop_; });
    workerSleeping_ = false;
    if (queue_.empty() && stop_)
      return;
    Task t = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    g.unlock();
    Status st;
    try {
      st = t();
    } catch (const std::exception &e) {
      st = Status(HCCL_E_INTERNAL,
                  std::string("stream task threw: ") + e.what());
    }
    g.lock();
    busy_ = false;
    if (!st.isOk() && firstError_.isOk())
      firstError_ = st;
    if (queue_.empty())
      doneCv_.notify_all();
  }
}

} // namespace hccl::rt
