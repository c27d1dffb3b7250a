//===- DeviceClock.cpp - An emulated device's clock, read ahead -----------===//
#include "DeviceClock.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hccl::tools {

DeviceClock::DeviceClock(std::vector<Step> steps, size_t collectives)
    : steps_(std::move(steps)), hasEnded_(collectives, false),
      ends_(collectives), at_(steps_.size() + 1) {
  for (const Step &s : steps_)
    if (s.collective >= static_cast<long>(collectives))
      throw std::out_of_range("DeviceClock: a step waits for slot " +
                              std::to_string(s.collective) + " of " +
                              std::to_string(collectives));
}

void DeviceClock::arm() {
  std::lock_guard<std::mutex> g(mu_);
  std::fill(hasEnded_.begin(), hasEnded_.end(), false);
  cursor_ = 0;
  started_ = false;
  cancelled_ = false;
}

void DeviceClock::start(HostClock::time_point t0) {
  {
    std::lock_guard<std::mutex> g(mu_);
    at_[0] = t0;
    started_ = true;
  }
  cv_.notify_all();
}

void DeviceClock::cancel() {
  {
    std::lock_guard<std::mutex> g(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

void DeviceClock::ended(size_t slot, HostClock::time_point t) {
  {
    std::lock_guard<std::mutex> g(mu_);
    ends_.at(slot) = t;
    hasEnded_[slot] = true;
  }
  cv_.notify_all();
}

HostClock::time_point DeviceClock::reach(size_t i) {
  std::unique_lock<std::mutex> g(mu_);
  cv_.wait(g, [&] { return started_ || cancelled_; });
  i = std::min(i, steps_.size());
  while (cursor_ < i) {
    const Step &s = steps_[cursor_];
    HostClock::time_point t = at_[cursor_];
    if (s.collective >= 0) {
      size_t c = static_cast<size_t>(s.collective);
      if (!hasEnded_[c]) {
        if (cancelled_)
          return at_[cursor_];
        cv_.wait(g);
        continue; // another reader may have moved the cursor meanwhile
      }
      t = std::max(t, ends_[c]);
    } else {
      t += std::chrono::duration_cast<HostClock::duration>(
          std::chrono::duration<double, std::micro>(s.computeUs));
    }
    at_[++cursor_] = t;
  }
  return at_[i];
}

} // namespace hccl::tools
