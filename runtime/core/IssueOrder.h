//===- IssueOrder.h - Calls run in the order they were issued ---*- C++ -*-===//
//
// A communicator's calls run in issue order, whether they run on the
// caller's thread or on a stream: each call takes a ticket when it is
// issued and waits for its turn to run. A ticket taken for a call that then
// could not be queued (the stream's ring failed to grow) is given back with
// `abandon`; otherwise every later call would wait for it forever.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_ISSUEORDER_H
#define HCCL_RUNTIME_CORE_ISSUEORDER_H

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>

namespace hccl::rt {

class IssueOrder {
public:
  uint64_t take() {
    std::lock_guard<std::mutex> g(mu_);
    return next_++;
  }
  void waitTurn(uint64_t ticket) {
    std::unique_lock<std::mutex> g(mu_);
    waitLocked(g, [&] { return serving_ == ticket; });
  }
  /// take() and waitTurn() under one lock: a call run on its caller's
  /// thread (one lock a call instead of two).
  void enter() {
    std::unique_lock<std::mutex> g(mu_);
    const uint64_t ticket = next_++;
    waitLocked(g, [&] { return serving_ == ticket; });
  }
  void endTurn() {
    std::lock_guard<std::mutex> g(mu_);
    advance();
  }
  /// Gives back a ticket whose call will never run: its turn is skipped.
  void abandon(uint64_t ticket) {
    std::lock_guard<std::mutex> g(mu_);
    if (ticket == serving_)
      advance();
    else
      abandoned_.insert(ticket);
  }
  /// Blocks until every ticket taken so far has had its turn.
  void waitIdle() {
    std::unique_lock<std::mutex> g(mu_);
    waitLocked(g, [&] { return serving_ == next_; });
  }

private:
  /// Waits for `ready` under `g`, counted in waiters_ while it sleeps.
  template <class P> void waitLocked(std::unique_lock<std::mutex> &g, P ready) {
    if (ready())
      return;
    ++waiters_;
    cv_.wait(g, ready);
    --waiters_;
  }
  void advance() {
    ++serving_;
    while (!abandoned_.empty() && *abandoned_.begin() == serving_) {
      abandoned_.erase(abandoned_.begin());
      ++serving_;
    }
    // Most turns have no one waiting: skip the broadcast then (waiters
    // count themselves under the lock this runs under).
    if (waiters_ > 0)
      cv_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_ = 0;
  uint64_t serving_ = 0;
  uint32_t waiters_ = 0;         ///< threads asleep in waitLocked
  std::set<uint64_t> abandoned_; ///< given back before their turn came
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_ISSUEORDER_H
