//===- Simulation.cpp - A plan run on a simulated cluster -----------------===//
#include "Simulation.h"

#include "CommunicatorStreams.h"
#include "Intervals.h"
#include "StepExecutor.h"

#include "hccl-mlir/schedule/Cost.h"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <unistd.h>

namespace sg4 = simgrid::s4u;

namespace hccl::sim {

using sched::Plan;
using sched::PlanItem;
using sched::PlanItemKind;
using sched::PlanProgram;
using sched::Result;
using sched::Status;
using sched::Topology;

namespace {

/// Ranks talk over their NICs only with ranks of another NIC domain: the
/// server, or with super pods the pod.
int nicDomain(const Topology &topo, int g) {
  return topo.hasPods() ? topo.podOfServer(topo.serverOf(g)) : topo.serverOf(g);
}

struct RankState {
  double iteration = 0, compute = 0;
  std::vector<std::pair<double, double>> comm;
  /// With --streams N: the collectives started and not yet taken by each
  /// stream's worker, those finished (or failed), and the mutex and
  /// condition that guard them.
  std::vector<std::deque<int64_t>> queued;
  std::set<int64_t> finished;
  bool closed = false;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr changed;
};

struct InstanceState {
  const PlanProgram *program = nullptr;
  std::map<int64_t, int64_t> member; ///< global rank -> group rank
  /// Per member: issued (the plan's start), began running (taken by its
  /// stream), ended.
  std::map<int64_t, double> start, begin, end;
  size_t stream = 0; ///< with a stream per group: its group's
};

/// Everything the actors share (SimGrid runs them in one thread).
struct World {
  const Plan *plan = nullptr;
  std::vector<PlanItem> items;
  std::vector<int64_t> ranks;
  std::vector<sg4::Host *> hosts;
  std::map<int64_t, InstanceState> instances;
  std::map<int64_t, RankState> rankState;
  std::vector<std::vector<tools::TraceEvent>> trace;
  bool tracing = false;
  int streams = 1; ///< per rank; 0: every started collective at once
  bool streamPerGroup = false; ///< instances carry their stream
  const JitterTable *jitter = nullptr;
  BorrowTable *borrow = nullptr;
  const ScaleUpTable *scaleUp = nullptr;
  /// The topology's fixed cost per collective (launch, synchronisation):
  /// the cost model adds it once per collective on more than one rank.
  double overheadS = 0;
  StepCounters counters;
  std::string error;
};

int laneOf(int64_t id) { return 1 + static_cast<int>(id % 4); }

void collectiveActor(World &w, int64_t id, int64_t g) {
  InstanceState &inst = w.instances.at(id);
  const PlanProgram &pp = *inst.program;
  inst.begin[g] = sg4::Engine::get_clock();
  if (w.overheadS > 0 && pp.program.p > 1)
    sg4::this_actor::sleep_for(w.overheadS);
  static const std::vector<int64_t> identity;
  const std::vector<int64_t> *group =
      pp.groups.empty() ? &identity : pp.groupOf(g);
  StepExecutor ex(pp.program, id, inst.member.at(g), *group, w.jitter, w.borrow,
                  w.scaleUp);
  Status s = ex.run(pp.id, laneOf(id),
                    w.tracing ? &w.trace[static_cast<size_t>(g)] : nullptr,
                    w.counters);
  if (!s && w.error.empty())
    w.error =
        "collective " + std::to_string(id) + " (" + pp.id + "): " + s.message();
  if (s)
    inst.end[g] = sg4::Engine::get_clock();
}

/// One of a rank's communication streams: runs the collectives started on
/// it one after another, as a host stream does (hccl-run --streams).
void streamActor(World &w, int64_t g, size_t stream) {
  RankState &rs = w.rankState[g];
  std::unique_lock<sg4::Mutex> lock(*rs.mutex);
  for (;;) {
    while (rs.queued[stream].empty() && !rs.closed)
      rs.changed->wait(lock);
    if (rs.queued[stream].empty())
      return;
    int64_t id = rs.queued[stream].front();
    rs.queued[stream].pop_front();
    lock.unlock();
    if (w.error.empty()) // after a failure the peers are gone
      collectiveActor(w, id, g);
    lock.lock();
    rs.finished.insert(id);
    rs.changed->notify_all();
  }
}

void rankActor(World &w, int64_t g) {
  RankState &rs = w.rankState[g];
  std::map<int64_t, sg4::ActorPtr> running;
  std::vector<sg4::ActorPtr> streams;
  // Stream actors are made when a collective first needs one (a rank
  // that starts 3 collectives never has more than 3).
  if (w.streams > 0) {
    rs.mutex = sg4::Mutex::create();
    rs.changed = sg4::ConditionVariable::create();
    rs.queued.resize(static_cast<size_t>(w.streams));
  }
  // Ends the streams: they finish what is queued (or skip it after a
  // failure) and return.
  auto closeStreams = [&] {
    if (w.streams == 0)
      return;
    {
      std::unique_lock<sg4::Mutex> lock(*rs.mutex);
      rs.closed = true;
      rs.changed->notify_all();
    }
    for (sg4::ActorPtr &a : streams)
      if (a)
        a->join();
  };
  int64_t started = 0; // by this rank: the next goes to stream started % N
  auto *events = w.tracing ? &w.trace[static_cast<size_t>(g)] : nullptr;
  for (const PlanItem &it : w.items) {
    double now = sg4::Engine::get_clock();
    switch (it.kind) {
    case PlanItemKind::Compute:
      sg4::this_actor::sleep_for(it.costUs * 1e-6);
      rs.compute += it.costUs * 1e-6;
      if (events)
        events->push_back({it.name, "compute", now * 1e6, it.costUs, 0});
      break;
    case PlanItemKind::Start: {
      InstanceState &inst = w.instances.at(it.id);
      if (!inst.member.count(g))
        break;
      inst.start[g] = now;
      if (w.streams > 0) {
        const size_t k = w.streamPerGroup
                             ? inst.stream
                             : static_cast<size_t>(started++ % w.streams);
        if (k >= streams.size())
          streams.resize(k + 1);
        if (!streams[k])
          streams[k] = sg4::Actor::create("s" + std::to_string(k) + "-r" +
                                              std::to_string(g),
                                          w.hosts[static_cast<size_t>(g)],
                                          [&w, g, k] { streamActor(w, g, k); });
        std::unique_lock<sg4::Mutex> lock(*rs.mutex);
        rs.queued[k].push_back(it.id);
        rs.changed->notify_all();
        break;
      }
      running[it.id] = sg4::Actor::create(
          "c" + std::to_string(it.id) + "-r" + std::to_string(g),
          w.hosts[static_cast<size_t>(g)],
          [&w, id = it.id, g] { collectiveActor(w, id, g); });
      break;
    }
    case PlanItemKind::Wait: {
      InstanceState &inst = w.instances.at(it.id);
      if (!inst.member.count(g))
        break;
      if (w.streams > 0) {
        std::unique_lock<sg4::Mutex> lock(*rs.mutex);
        while (!rs.finished.count(it.id))
          rs.changed->wait(lock);
      } else {
        auto a = running.find(it.id);
        if (a == running.end())
          break;
        a->second->join();
        running.erase(a);
      }
      auto e = inst.end.find(g);
      if (e == inst.end.end()) {
        closeStreams();
        return; // failed: the error is recorded
      }
      double s = inst.start.at(g);
      rs.comm.push_back({s, e->second});
      double after = sg4::Engine::get_clock();
      if (events) {
        events->push_back({inst.program->id, "collective", s * 1e6,
                           (e->second - s) * 1e6, laneOf(it.id)});
        if (after > now)
          events->push_back({"wait " + std::to_string(it.id), "wait", now * 1e6,
                             (after - now) * 1e6, 0});
      }
      break;
    }
    }
  }
  for (auto &[id, a] : running)
    a->join();
  closeStreams();
  rs.iteration = sg4::Engine::get_clock();
}

/// Checks the plan against the topology and lays out the instances.
Status prepare(const Plan &plan, const Topology &topo, World &w) {
  const int64_t world = topo.worldSize();
  w.plan = &plan;
  w.overheadS = topo.collectiveOverhead();
  w.items = plan.items;
  std::set<int64_t> ranks(plan.groupRanks.begin(), plan.groupRanks.end());
  if (w.items.empty()) {
    // Programs only (hccl-plan generate): each runs once, in order, on its
    // group.
    int64_t id = 0;
    for (const PlanProgram &pp : plan.programs) {
      w.items.push_back({PlanItemKind::Start, "", 0, id, pp.id});
      w.items.push_back({PlanItemKind::Wait, "", 0, id, ""});
      if (pp.groups.empty())
        for (int64_t r = 0; r < pp.program.p; ++r)
          ranks.insert(r);
      for (int64_t g : pp.allRanks())
        ranks.insert(g);
      ++id;
    }
  }
  for (int64_t g : ranks)
    if (g < 0 || g >= world)
      return Status::error("the plan's rank " + std::to_string(g) +
                           " is outside the topology's " +
                           std::to_string(world) + " ranks");
  tools::CommunicatorStreams communicators;
  for (const PlanItem &it : w.items) {
    if (it.kind != PlanItemKind::Start)
      continue;
    const PlanProgram *pp = plan.find(it.program);
    if (!pp)
      return Status::error("start " + std::to_string(it.id) +
                           " names unknown program '" + it.program + "'");
    if (w.instances.count(it.id))
      return Status::error("start " + std::to_string(it.id) +
                           " is given twice");
    InstanceState &inst = w.instances[it.id];
    inst.program = pp;
    if (w.streamPerGroup)
      inst.stream = communicators.streamOf(*pp);
    // A program on several groups runs in each at once: every member
    // maps to its rank in its own group.
    size_t nGroups = std::max<size_t>(1, pp->groups.size());
    for (size_t k = 0; k < nGroups; ++k)
      for (int64_t r = 0; r < pp->program.p; ++r) {
        int64_t g =
            pp->groups.empty() ? r : pp->groups[k][static_cast<size_t>(r)];
        if (!ranks.count(g))
          return Status::error("program '" + pp->id + "' runs on rank " +
                               std::to_string(g) +
                               ", which the schedule's group does not hold");
        inst.member[g] = r;
      }
  }
  w.ranks.assign(ranks.begin(), ranks.end());
  if (w.streamPerGroup)
    w.streams = static_cast<int>(std::max<size_t>(1, communicators.size()));
  return Status::ok();
}

double modelSeconds(const PlanProgram &pp, const Topology &topo) {
  sched::CostOptions co;
  // Several groups: priced on the first (they run the same program).
  if (!pp.groups.empty())
    co.groupRanks = pp.groups[0];
  auto c = sched::predictCost(pp.program, topo, co);
  return c ? c->seconds : NAN;
}

/// Actors alive at once at most: one per rank, and one per stream it
/// uses, or without streams one per collective it has started and not yet
/// waited for (borrowed transfers' watchers are not counted).
int64_t actorsAtOnce(const World &w) {
  int64_t total = 0;
  for (int64_t g : w.ranks) {
    int64_t open = 0, most = 0, starts = 0;
    for (const PlanItem &it : w.items) {
      if (it.kind == PlanItemKind::Compute)
        continue;
      auto inst = w.instances.find(it.id);
      if (inst == w.instances.end() || !inst->second.member.count(g))
        continue; // not this rank's collective (rankActor skips it too)
      starts += it.kind == PlanItemKind::Start;
      open += it.kind == PlanItemKind::Start ? 1 : -1;
      most = std::max(most, open);
    }
    total += 1 + (w.streams > 0 ? std::min<int64_t>(w.streams, starts) : most);
  }
  return total;
}

/// The kernel's limit on a process's memory mappings (vm.max_map_count).
int64_t mappingLimit() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  int64_t v = 0;
  return in >> v && v > 0 ? v : 65530;
}

std::string temporaryPlatformPath() {
  char tmpl[] = "/tmp/hccl-sim-platform-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0)
    return "";
  close(fd);
  return tmpl;
}

} // namespace

Result<SimResult> simulate(const Plan &plan, const Topology &topo,
                           const SimOptions &opts) {
  using R = Result<SimResult>;
  World w;
  w.streams = opts.streams;
  w.streamPerGroup = opts.streamPerGroup;
  if (Status s = prepare(plan, topo, w); !s)
    return R(s);
  auto spec = buildPlatform(topo, opts.fabric, opts.faults, opts.borrowNic);
  if (!spec)
    return R(spec.status());
  JitterTable jitter;
  if (!opts.jitters.empty()) {
    const int world = topo.worldSize();
    jitter.probability.assign(static_cast<size_t>(world), 0);
    jitter.extraSeconds.assign(static_cast<size_t>(world), 0);
    for (int g = 0; g < world; ++g)
      jitter.server.push_back(nicDomain(topo, g));
    jitter.seed = opts.seed;
    for (const Jitter &j : opts.jitters) {
      if (j.rank >= world)
        return R::error("--jitter '" + j.text + "': rank outside 0.." +
                        std::to_string(world - 1));
      if (topo.servers < 2)
        return R::error("--jitter '" + j.text +
                        "': NICs exist only with more than one server");
      jitter.probability[static_cast<size_t>(j.rank)] = j.probability;
      jitter.extraSeconds[static_cast<size_t>(j.rank)] = j.extraUs / 1e6;
      spec->summary += "; jitter " + j.text;
    }
    w.jitter = &jitter;
  }
  // The file SimGrid loads is the one --write-platform leaves behind.
  std::string path =
      opts.platformPath.empty() ? temporaryPlatformPath() : opts.platformPath;
  {
    std::ofstream out(path);
    out << platformXml(*spec);
    if (!out)
      return R::error((path.empty() ? std::string("a temporary file") : path) +
                      ": cannot write the platform");
  }
  // Only SimGrid's warnings and errors on stderr.
  xbt_log_control_set("root.thresh:warning");
  int argc = 1;
  char name[] = "hccl-sim";
  char *argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  // CM02: max-min sharing with no latency or bandwidth correction factor,
  // no TCP window bound and no reverse (ACK) traffic, so one transfer alone
  // on a route takes exactly latency + bytes / bandwidth (docs/simulation.md).
  // The window is made too large to bind rather than 0: SimGrid 3.32 bounds
  // a flow by min(its rate, gamma / 2 latency), and a bound of 0 means none,
  // which dropped the per-message cap of a super pod's scale-up links.
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/TCP-gamma:1e30");
  sg4::Engine::set_config("network/crosstraffic:0");
  // An actor's stack is a mapping that its guard page splits in two, and a
  // process may hold vm.max_map_count mappings (65530 by default): a plan
  // with DDP's 145 buckets in flight on 512 ranks needs 74k actors at once,
  // and SimGrid aborted. Beyond the limit the stacks go without guard
  // pages, kUnguardedStackKiB each, from the heap (below malloc's mmap
  // threshold). The actors' code ran with 24 KiB stacks in every hccl-sim test.
  const int64_t actors = actorsAtOnce(w);
  int64_t unguarded = 0;
  // --borrow-nic adds a watcher actor per borrowed transfer in flight,
  // which no plan-level count bounds well: unguarded stacks then too.
  const bool borrowing = spec->borrower >= 0;
  if (borrowing ||
      2 * actors + 4096 >
          (opts.maxMapCount > 0 ? opts.maxMapCount : mappingLimit())) {
    sg4::Engine::set_config("contexts/guard-size:0");
    sg4::Engine::set_config("contexts/stack-size:" +
                            std::to_string(kUnguardedStackKiB));
    unguarded = actors;
  } else {
    sg4::Engine::set_config("contexts/stack-size:256");
  }
  engine.load_platform(path);
  if (opts.platformPath.empty())
    std::remove(path.c_str());
  for (const LinkFault &f : opts.faults)
    if (f.failed)
      for (const std::string &l : faultLinks(f, topo))
        sg4::Link::by_name(l)->turn_off();
  for (const std::string &h : spec->hosts)
    w.hosts.push_back(engine.host_by_name(h));
  ScaleUpTable scaleUp;
  if (topo.hasPods()) {
    for (int g = 0; g < topo.worldSize(); ++g) {
      scaleUp.server.push_back(topo.serverOf(g));
      scaleUp.pod.push_back(topo.podOfServer(topo.serverOf(g)));
    }
    scaleUp.bytesPerSecond = topo.scaleUp.bandwidthGBps * 1e9;
    w.scaleUp = &scaleUp;
  }
  BorrowTable borrow;
  if (spec->borrower >= 0) {
    borrow.borrower = spec->borrower;
    for (int g = 0; g < topo.worldSize(); ++g) {
      const std::string &h = spec->backupHosts[static_cast<size_t>(g)];
      borrow.server.push_back(nicDomain(topo, g));
      borrow.backupRank.push_back(spec->backupRanks[static_cast<size_t>(g)]);
      borrow.backupHosts.push_back(h.empty() ? nullptr
                                             : engine.host_by_name(h));
    }
    w.borrow = &borrow;
  }
  w.tracing = opts.trace;
  if (w.tracing)
    w.trace.resize(spec->hosts.size());
  for (int64_t g : w.ranks)
    sg4::Actor::create("rank" + std::to_string(g),
                       w.hosts[static_cast<size_t>(g)],
                       [&w, g] { rankActor(w, g); });
  engine.run();
  if (!w.error.empty())
    return R::error(w.error);

  SimResult res;
  res.unguardedStacks = unguarded;
  res.unguardedForBorrowing = borrowing;
  res.scheduled = !plan.items.empty();
  res.ranks = static_cast<int64_t>(w.ranks.size());
  res.transfers = w.counters.transfers;
  res.steps = w.counters.steps;
  res.platformSummary = spec->summary;
  std::map<const PlanProgram *, double> priced;
  for (auto &[id, inst] : w.instances) {
    CollectiveResult c;
    c.id = id;
    c.program = inst.program;
    for (auto &[g, r] : inst.member) {
      auto e = inst.end.find(g);
      if (e == inst.end.end())
        return R::error("collective " + std::to_string(id) + " (" +
                        inst.program->id + ") did not complete on rank " +
                        std::to_string(g) +
                        ": its transfers never matched (deadlock)");
      c.seconds = std::max(c.seconds, e->second - inst.begin.at(g));
    }
    if (!priced.count(inst.program))
      priced[inst.program] = modelSeconds(*inst.program, topo);
    c.modelSeconds = priced[inst.program];
    res.collectives.push_back(c);
  }
  for (auto &[g, rs] : w.rankState) {
    res.iterationUs = std::max(res.iterationUs, rs.iteration * 1e6);
    res.computeUs = std::max(res.computeUs, rs.compute * 1e6);
    res.commUs = std::max(res.commUs, hccl::tools::unionLength(rs.comm) * 1e6);
    res.exposedUs = std::max(res.exposedUs, (rs.iteration - rs.compute) * 1e6);
  }
  res.trace = std::move(w.trace);
  return res;
}

} // namespace hccl::sim
