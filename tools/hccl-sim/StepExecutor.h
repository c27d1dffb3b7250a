//===- StepExecutor.h - A rank's program as SimGrid activity ----*- C++ -*-===//
//
// Runs, inside the calling SimGrid actor, exactly the steps lib/schedule's
// ProgramEvaluator expands for one rank (the instructions the runtime's
// executor runs): every send and receive of a step is posted at once, as a
// SimGrid communication between the two ranks' hosts through a mailbox of
// (collective instance, sender, receiver), one per peer and piece (a step's
// ops to one peer summed), so a transfer starts when both
// sides have reached it (rendezvous) and crosses the links of the route; a
// received block that is reduced costs an execution of one flop per byte on
// the receiving host (the reduce rate); local copies cost nothing (as in
// the cost model). The step ends when all of its ops have; then the next
// begins. With k slices every op goes in k pieces, and piece i's reduction
// overlaps piece i+1's transfer (the executor's pipeline). A latency spike
// (--jitter) delivers a step's messages from one rank to another that much
// after their transfer ends. Under --borrow-nic a message between servers
// to or from the borrowing rank goes between the two ranks' backup hosts
// (Platform.h); such a transfer has no mailbox, so its two sides meet in
// the BorrowTable and the one that comes second starts it.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_SIM_STEPEXECUTOR_H
#define HCCL_SIM_STEPEXECUTOR_H

#include "ChromeTrace.h"

#include "hccl-mlir/schedule/Program.h"
#include "hccl-mlir/schedule/Result.h"

#include <simgrid/forward.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace hccl::sim {

/// --jitter, per global rank: the chance and size of a latency spike on
/// its NIC, and its server (only traffic between servers crosses a NIC).
/// The sender's NIC and the receiver's draw independently; the draw for a
/// step's messages from one rank to another is a hash of
/// (seed, instance, phase, step, sender, receiver): runs repeat exactly.
struct JitterTable {
  std::vector<double> probability, extraSeconds;
  std::vector<int> server;
  uint64_t seed = 1;
};

/// --borrow-nic: which messages leave through backup NICs, their hosts,
/// and the meeting points of their two sides (shared by every actor;
/// SimGrid runs them in one thread).
struct BorrowTable {
  int64_t borrower = -1;   ///< global rank whose failed NIC is borrowed for
  std::vector<int> server; ///< per global rank
  std::vector<simgrid::s4u::Host *> backupHosts; ///< per global rank
  std::vector<int> backupRank; ///< per global rank: whose NIC it borrows
  struct Meeting;
  /// (instance, sender, receiver, ordinal) -> the side that came first.
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>,
           std::shared_ptr<Meeting>>
      meetings;

  bool borrowed(int64_t g, int64_t h) const {
    return borrower >= 0 && (g == borrower || h == borrower) &&
           server[static_cast<size_t>(g)] != server[static_cast<size_t>(h)];
  }
};

/// Super pods: the platform gives each NPU one scale-up port of all its
/// links' bandwidth (Platform.h); a message between two servers of one
/// pod is capped at one link's, as the cost model's link per peer.
struct ScaleUpTable {
  std::vector<int> server, pod; ///< per global rank
  double bytesPerSecond = 0;    ///< one scale-up link

  bool capped(int64_t g, int64_t h) const {
    return server[static_cast<size_t>(g)] != server[static_cast<size_t>(h)] &&
           pod[static_cast<size_t>(g)] == pod[static_cast<size_t>(h)];
  }
};

struct StepCounters {
  int64_t transfers = 0; ///< messages posted: per step, piece and peer
  int64_t steps = 0;
};

class StepExecutor {
public:
  /// `group[r]` is the global rank of group rank r (empty = identity).
  /// Runs in an actor on the rank's host: transfers leave from there.
  StepExecutor(const sched::Program &prog, int64_t instance, int64_t groupRank,
               const std::vector<int64_t> &group,
               const JitterTable *jitter = nullptr,
               BorrowTable *borrow = nullptr,
               const ScaleUpTable *scaleUp = nullptr);

  /// Runs every step; phase spans go to `events` (times in us, on `tid`,
  /// named after `label`). Fails on an expansion error or a transfer over a
  /// failed link (the error names both ranks).
  sched::Status run(const std::string &label, int tid,
                    std::vector<tools::TraceEvent> *events,
                    StepCounters &counters);

private:
  int64_t global(int64_t groupRank) const {
    return group_.empty() ? groupRank : group_[groupRank];
  }
  simgrid::s4u::Mailbox *mailbox(int64_t from, int64_t to) const;
  struct Transfer;
  /// The transfer of `bytes` from group rank `from` to `to` as this rank
  /// posts it (a send when from is this rank).
  Transfer post(int64_t from, int64_t to, double bytes, int **slot);
  /// Arrives at a borrowed transfer's meeting point; the second side to
  /// arrive starts the transfer.
  std::shared_ptr<BorrowTable::Meeting> meet(int64_t from, int64_t to,
                                             double bytes);
  sched::Status runStep(const std::vector<sched::ConcreteOp> &ops,
                        uint32_t phase, int64_t step, StepCounters &counters);
  /// The delay of a step's messages from group rank `from` to `to` (0:
  /// none).
  double spike(uint32_t phase, int64_t step, int64_t from, int64_t to) const;

  const sched::Program &prog_;
  int64_t instance_, rank_;
  const std::vector<int64_t> &group_;
  const JitterTable *jitter_;
  BorrowTable *borrow_;
  const ScaleUpTable *scaleUp_;
  /// Borrowed messages posted so far, per peer: both sides count alike.
  std::map<int64_t, int64_t> sentTo_, receivedFrom_;
  double elemBytes_;
};

} // namespace hccl::sim

#endif // HCCL_SIM_STEPEXECUTOR_H
