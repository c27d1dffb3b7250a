//===- Timeline.cpp - Predicted iteration timeline of a function ----------===//
#include "Timeline.h"
#include "LinkSharing.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::comm;

namespace {

class Simulator {
public:
  Simulator(CommCostModel &model, const ComputeCostOptions &opts)
      : model(model), opts(opts) {}

  LogicalResult run(Region &body) {
    for (Block &b : body)
      if (failed(runBlock(b)))
        return failure();
    double end = std::max(clock, links.finishAll());
    for (size_t i = 0; i < tl.collectives.size(); ++i) {
      tl.collectives[i].beginUs = links.beginOf(jobs[i]);
      tl.collectives[i].endUs = links.endOf(jobs[i]);
    }
    tl.iterationUs = end;
    tl.exposedUs = std::max(0.0, end - tl.computeUs);
    assignLanes();
    return success();
  }

  IterationTimeline take() { return std::move(tl); }

private:
  CommCostModel &model;
  const ComputeCostOptions &opts;
  IterationTimeline tl;
  double clock = 0;
  /// The groups' streams and the links they share (LinkSharing.h), in
  /// microseconds; jobs[i] is tl.collectives[i]'s.
  hccl::contention::LinkSharing links;
  std::vector<size_t> jobs;
  llvm::DenseMap<Operation *, size_t> started; // comm.start -> event
  /// Per started collective not yet charged: the compute it will delay.
  llvm::DenseMap<size_t, double> pendingSteal;

  static bool holdsComm(Operation *op) {
    bool found = false;
    op->walk([&](Operation *inner) {
      if (inner != op &&
          (isa<CollectiveOpInterface>(inner) || isa<StartOp, WaitOp>(inner))) {
        found = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return found;
  }

  FailureOr<size_t> issue(Operation *coll) {
    FailureOr<CollectivePrice> price = model.price(coll);
    if (failed(price))
      return failure();
    CollectiveEvent ev;
    ev.op = coll;
    ev.price = *price;
    ev.issueUs = clock;
    Attribute group = cast<CollectiveOpInterface>(coll).getGroupAttr();
    // Per op, not per group: a broadcast's root changes its footprint.
    FailureOr<std::vector<int64_t>> fp = model.footprint(coll);
    if (failed(fp))
      return failure();
    // It may start once the wake-up has passed (queued behind another
    // collective of its stream, it waits for that anyway; a share of it
    // after a short idle, with a wake-up idle: LinkSharing.h).
    const hccl::sched::Topology &topo = model.topology();
    jobs.push_back(
        links.add({clock, price->latencySeconds * 1e6,
                   (price->seconds - price->latencySeconds) * 1e6,
                   reinterpret_cast<uintptr_t>(group.getAsOpaquePointer()),
                   std::move(*fp), topo.collectiveWakeupUs,
                   topo.collectiveWakeupIdleUs}));
    tl.commUs += price->seconds * 1e6;
    tl.collectives.push_back(ev);
    return tl.collectives.size() - 1;
  }

  LogicalResult runBlock(Block &block) {
    for (Operation &op : block) {
      if (auto start = dyn_cast<StartOp>(op)) {
        Operation *coll = start.getCollective();
        if (!coll || !getScheduleCollective(coll))
          continue;
        FailureOr<size_t> ev = issue(coll);
        if (failed(ev))
          return failure();
        started[start] = *ev;
        const CollectivePrice &pr = tl.collectives[*ev].price;
        if (double s = model.topology().computeSteal() * pr.bytes * 1e6;
            s > 0 && pr.p > 1)
          pendingSteal[*ev] = s;
        continue;
      }
      if (auto wait = dyn_cast<WaitOp>(op)) {
        auto it = started.find(wait.getToken().getDefiningOp());
        if (it == started.end())
          continue;
        CollectiveEvent &ev = tl.collectives[it->second];
        pendingSteal.erase(it->second); // nothing ran beside it
        ev.waitUs = clock;
        clock = std::max(clock, links.endOf(jobs[it->second]));
        continue;
      }
      if (getScheduleCollective(&op)) {
        FailureOr<size_t> idx = issue(&op);
        if (failed(idx))
          return failure();
        CollectiveEvent &ev = tl.collectives[*idx];
        ev.waitUs = clock;
        clock = std::max(clock, links.endOf(jobs[*idx]));
        continue;
      }
      if (isCommOp(&op))
        continue;
      if (op.getNumRegions() && holdsComm(&op)) {
        for (Region &r : op.getRegions())
          for (Block &b : r)
            if (failed(runBlock(b)))
              return failure();
        continue;
      }
      double cost = computeCostUs(&op, opts);
      if (cost > 0) {
        double steal = 0;
        for (auto &[ev, s] : pendingSteal)
          steal += s;
        pendingSteal.clear();
        tl.compute.push_back({&op, clock, clock + cost + steal});
        clock += cost + steal;
        tl.computeUs += cost;
        tl.stealUs += steal;
      }
    }
    return success();
  }

  /// In-flight lanes: a collective holds a lane from issue until its
  /// result is taken (or it ends, whichever is later).
  void assignLanes() {
    std::vector<double> laneFree;
    for (CollectiveEvent &ev : tl.collectives) {
      double until = std::max(ev.waitUs, ev.endUs);
      size_t lane = 0;
      while (lane < laneFree.size() && laneFree[lane] > ev.issueUs)
        ++lane;
      if (lane == laneFree.size())
        laneFree.push_back(0);
      laneFree[lane] = until;
      ev.lane = static_cast<int>(lane) + 1;
    }
    tl.lanes = static_cast<int>(laneFree.size());
  }
};

} // namespace

FailureOr<IterationTimeline>
mlir::comm::simulateRegion(Region &body, CommCostModel &model,
                           const ComputeCostOptions &opts) {
  Simulator sim(model, opts);
  if (failed(sim.run(body)))
    return failure();
  return sim.take();
}
