//===- LinkSharing.h - Collectives that share links at once -----*- C++ -*-===//
//
// Contention between communication streams, for comm-estimate's timeline
// and comm-overlap-schedule's clock. Collectives of one stream (group) run
// one after another; collectives of different streams may be in flight at
// once and then share the links they both use. A collective's links are
// resources (link class, device, direction), its footprint
// (CommCostModel::footprint); its time splits into a latency part (alpha
// terms and the per-collective overhead), which nothing shares, and a
// bandwidth part. While k collectives move data over one resource each gets
// a k-th of it (equal shares, a fluid model); a collective moves at the
// rate of its most shared resource, and its latency part follows its
// bandwidth part. Alone it takes exactly its price.
//
// Lazy: jobs are added in issue order (non-decreasing issue times) and the
// engine simulates only as far as it is asked. That is exact for callers
// that, like the compute stream, issue nothing before the time they last
// asked about: a wait blocks until its collective ends, so nothing new can
// join while it is being waited for.
//
// MLIR-free, so that tests can hold it to hand-worked cases.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_PASSES_LINKSHARING_H
#define HCCL_MLIR_PASSES_LINKSHARING_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace hccl::contention {

struct Job {
  double issue = 0;     ///< when it was issued
  double latency = 0;   ///< not shared
  double bandwidth = 0; ///< alone; stretched while resources are shared
  uint64_t stream = 0;  ///< jobs of one stream run in add order
  std::vector<int64_t> resources;
  /// The wake-up (Topology::collectiveWakeupUs): the job begins at
  /// max(issue + wake-up, when its stream frees). With `wakeupIdle` > 0
  /// the wake-up is that share of `wakeup` the stream's idle time before
  /// the issue (issue - when it freed, at least 0) is of `wakeupIdle`, at
  /// most all of it (Topology::collectiveWakeupIdleUs); with 0, all of it.
  double wakeup = 0;
  double wakeupIdle = 0;
};

class LinkSharing {
public:
  /// Adds a job; its id is the number of jobs added before it. An issue
  /// before the time already simulated counts as that time.
  size_t add(Job job);
  /// When job `id` ends (simulating as far as needed).
  double endOf(size_t id);
  /// When it took its stream; simulates until it has.
  double beginOf(size_t id);
  /// Whether job `id` has ended by time t (simulating at most up to t).
  bool endedBy(size_t id, double t);
  /// Simulates every job to its end; the last end (0 without jobs).
  double finishAll();

private:
  enum class State { Waiting, Moving, Tail, Done };
  struct Run {
    Job job;
    State state = State::Waiting;
    double begin = 0, end = 0, left = 0; ///< left: bandwidth work to do
    double floor = 0; ///< the time simulated when it was added
  };
  struct Stream {
    std::deque<size_t> queue; ///< jobs not done, in order
    double free = 0;          ///< when its last done job ended
    bool ran = false;         ///< a job of it has ended (else idle forever)
  };

  /// Simulates until job `stop` is done or time `until`, whichever first.
  void simulate(double until, size_t stop);
  /// Takes the head jobs whose streams and issue times allow it at `now`.
  void startHeads();
  double rateOf(const Run &r) const;
  /// When waiting head job `r` may begin on stream `s`.
  static double earliest(const Run &r, const Stream &s);

  std::vector<Run> runs;
  std::unordered_map<uint64_t, Stream> streams;
  std::unordered_map<int64_t, int> moving; ///< resource -> jobs moving on it
  double now = 0;
};

} // namespace hccl::contention

#endif // HCCL_MLIR_PASSES_LINKSHARING_H
