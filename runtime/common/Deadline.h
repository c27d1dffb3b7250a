//===- Deadline.h - Monotonic deadlines for every wait ----------*- C++ -*-===//
//
// Every blocking wait in the runtime has a deadline (HCCL_CONNECT_TIMEOUT for
// init, HCCL_EXEC_TIMEOUT for collectives). A zero timeout means "never".
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_DEADLINE_H
#define HCCL_RUNTIME_COMMON_DEADLINE_H

#include <chrono>
#include <cstdint>

namespace hccl::rt {

using Clock = std::chrono::steady_clock;

class Deadline {
public:
  /// Never expires.
  Deadline() = default;
  static Deadline never() { return Deadline(); }
  static Deadline afterMs(int64_t ms) {
    Deadline d;
    d.infinite_ = false;
    d.at_ = Clock::now() + std::chrono::milliseconds(ms);
    return d;
  }
  /// `seconds` == 0 means never (HCCL_EXEC_TIMEOUT=0).
  static Deadline afterSeconds(int64_t seconds) {
    return seconds <= 0 ? never() : afterMs(seconds * 1000);
  }
  bool infinite() const { return infinite_; }
  bool expired() const { return !infinite_ && Clock::now() >= at_; }
  /// Milliseconds left, clamped to [0, cap]; `cap` when infinite.
  int64_t remainingMs(int64_t cap) const {
    if (infinite_)
      return cap;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    at_ - Clock::now())
                    .count();
    return left < 0 ? 0 : (left > cap ? cap : left);
  }
  /// The earlier of two deadlines.
  Deadline min(const Deadline &o) const {
    if (infinite_)
      return o;
    if (o.infinite_)
      return *this;
    return at_ < o.at_ ? *this : o;
  }

private:
  bool infinite_ = true;
  Clock::time_point at_{};
};

/// A call's deadline that starts on its first wait: a call whose steps
/// never wait reads no clock for it (a read costs 24 ns on the VM of
/// docs/performance.md, "Small calls' own costs"). HCCL_EXEC_TIMEOUT then
/// counts from the call's first idle round; every round before it made
/// progress, so a peer that stalls is still caught HCCL_EXEC_TIMEOUT after
/// the stall.
class LazyDeadline {
public:
  explicit LazyDeadline(int64_t seconds) : seconds_(seconds) {}
  /// Starts the deadline if it has not started.
  const Deadline &get() {
    if (!started_) {
      dl_ = Deadline::afterSeconds(seconds_);
      started_ = true;
    }
    return dl_;
  }

private:
  int64_t seconds_;
  bool started_ = false;
  Deadline dl_;
};

inline int64_t nowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             Clock::now().time_since_epoch())
      .count();
}

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_DEADLINE_H
