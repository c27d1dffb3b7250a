//===- Stream.cpp - Host streams: ordered asynchronous queues -------------===//
#include "core/Stream.h"
#include "common/Deadline.h"
#include "common/Futex.h"
#include "common/HostLoad.h"

#include <sched.h>

namespace hccl::rt {

namespace {
// A futex wake-up costs tens of microseconds or more on a VM. A stream
// thread whose queue just emptied, and a caller that synchronizes, poll for
// this long first, yielding the CPU at each look (so a runnable rank thread
// on an oversubscribed host loses nothing); on a busy host they wait on the
// condition variable at once (a yield gives a time slice to another job:
// core/WaitPolicy.h).
constexpr int64_t kWorkerPollUs = 100;
constexpr int64_t kSyncPollUs = 100;

int64_t pollUntil(int64_t pollUs) {
  return nowUs() + (hostBusy() ? 0 : pollUs);
}
} // namespace

StatusOr<std::unique_ptr<HostStream>> HostStream::create() {
  std::unique_ptr<HostStream> s(new HostStream());
  try {
    s->ring_.resize(kInitialSlots);
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
    stopping_.store(true);
  }
  workCv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void HostStream::enqueueTask(InlineTask t) {
  bool wake;
  // The ring a growth replaced: freed after the lock is released.
  std::vector<InlineTask> old;
  {
    std::unique_lock<std::mutex> g(mu_);
    // A full ring doubles. The new one is allocated, and its fresh pages
    // written, outside the lock, so the worker keeps taking tasks meanwhile
    // (it only makes room); the new ring is used unless another caller grew
    // the ring first. Growing may throw (std::bad_alloc, reported by the C
    // entry point): nothing is counted before the task is in the ring.
    while (queued_ == ring_.size()) {
      const size_t want = ring_.size() * 2;
      g.unlock();
      std::vector<InlineTask>().swap(old); // not under the lock
      std::vector<InlineTask> grown(want);
      g.lock();
      if (ring_.size() * 2 == want) {
        for (size_t i = 0; i < queued_; ++i)
          grown[i] = std::move(ring_[(head_ + i) % ring_.size()]);
        ring_.swap(grown);
        head_ = 0;
      }
      old = std::move(grown); // `old` is empty: nothing is freed here
    }
    ring_[(head_ + queued_) % ring_.size()] = std::move(t);
    ++queued_;
    outstanding_.fetch_add(1, std::memory_order_acq_rel);
    wake = workerSleeping_;
  }
  if (wake)
    workCv_.notify_one();
}

size_t HostStream::capacity() {
  std::lock_guard<std::mutex> g(mu_);
  return ring_.size();
}

Status HostStream::synchronize() {
  // Sleep while tasks wait behind the running one: polling beside a queue
  // takes a core from the ranks' executors. On 2 cores, 2 ranks each
  // synchronizing after 20 queued 4 KB all-reduces took 130-180 us a call
  // so, against 5-8 us with 200 queued (docs/performance.md, "Streaming
  // stores"). The worker wakes us as it starts the last task, so the
  // wake-up overlaps that task and the poll below catches its end.
  {
    std::unique_lock<std::mutex> g(mu_);
    doneCv_.wait(g, [&] { return queueEmpty(); });
  }
  int64_t until = pollUntil(kSyncPollUs);
  while (outstanding_.load(std::memory_order_acquire) != 0 && nowUs() < until)
    sched_yield();
  std::unique_lock<std::mutex> g(mu_);
  doneCv_.wait(g, [&] { return queueEmpty() && !busy_; });
  Status st = firstError_;
  firstError_ = Status::ok();
  return st;
}

bool HostStream::idle() {
  std::lock_guard<std::mutex> g(mu_);
  return queueEmpty() && !busy_;
}

void HostStream::run() {
  std::unique_lock<std::mutex> g(mu_);
  for (;;) {
    if (queueEmpty() && !stop_) {
      g.unlock();
      int64_t until = pollUntil(kWorkerPollUs);
      while (outstanding_.load(std::memory_order_acquire) == 0 &&
             !stopping_.load(std::memory_order_acquire) && nowUs() < until)
        sched_yield();
      g.lock();
    }
    workerSleeping_ = true;
    workCv_.wait(g, [&] { return !queueEmpty() || stop_; });
    workerSleeping_ = false;
    if (queueEmpty() && stop_)
      return;
    InlineTask t = std::move(ring_[head_]);
    head_ = (head_ + 1) % ring_.size();
    --queued_;
    busy_ = true;
    bool last = queueEmpty();
    g.unlock();
    if (last)
      doneCv_.notify_all(); // a synchronizer polls for this task's end
    Status st;
    try {
      st = t();
    } catch (const std::exception &e) {
      st = Status(HCCL_E_INTERNAL,
                  std::string("stream task threw: ") + e.what());
    }
    g.lock();
    busy_ = false;
    outstanding_.fetch_sub(1, std::memory_order_acq_rel);
    if (!st.isOk() && firstError_.isOk())
      firstError_ = st;
    if (queueEmpty())
      doneCv_.notify_all();
  }
}

} // namespace hccl::rt
