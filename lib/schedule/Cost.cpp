//===- Cost.cpp - Alpha-beta-gamma pricing of programs --------------------===//
#include "hccl-mlir/schedule/Cost.h"

#include <algorithm>
#include <map>

namespace hccl::sched {

double stepTime(int64_t msgs, double portBytes, double reducedBytes,
                const LinkParams &link, double gamma, int64_t slices) {
  double k = static_cast<double>(slices < 1 ? 1 : slices);
  double x = portBytes * link.beta();
  double g = reducedBytes * gamma;
  double a = msgs > 0 ? k * static_cast<double>(msgs) * link.alpha() : 0.0;
  return a + std::max(x, g) + std::min(x, g) / k;
}

namespace {

// Busiest port of one (direction, link class) group: transfers go longest
// first onto the least loaded of `ports` ports; a port's time is its
// messages' latencies plus its bytes.
struct PortLoad {
  int64_t msgs = 0;
  double bytes = 0;
};

PortLoad busiest(std::vector<double> &sizes, int ports, const LinkParams &l) {
  std::sort(sizes.begin(), sizes.end(), std::greater<double>());
  std::vector<PortLoad> port(static_cast<size_t>(std::max(1, ports)));
  for (double sz : sizes) {
    auto it = std::min_element(
        port.begin(), port.end(), [&](const PortLoad &x, const PortLoad &y) {
          return x.msgs * l.alpha() + x.bytes * l.beta() <
                 y.msgs * l.alpha() + y.bytes * l.beta();
        });
    it->msgs += 1;
    it->bytes += sz;
  }
  return *std::max_element(port.begin(), port.end(),
                           [&](const PortLoad &x, const PortLoad &y) {
                             return x.msgs * l.alpha() + x.bytes * l.beta() <
                                    y.msgs * l.alpha() + y.bytes * l.beta();
                           });
}

} // namespace

double stepCost(const std::vector<ConcreteOp> &ops, int64_t globalRank,
                const std::vector<int64_t> &peerGlobal, size_t elemBytes,
                int64_t slices, const Topology &topo) {
  // (direction, intra/inter) -> bytes per peer. A step's messages to one
  // peer go back to back over that pair's connection under one latency
  // (their latencies overlap, as in hccl-sim, which sends them as one):
  // between servers a pair has one connection, and inside a full-mesh
  // server each peer its own link, so ports only bound how many peers are
  // served at once. A ring-wired server has no link per peer: its messages
  // spread over the ports one by one. (Charging each message its latency
  // made a hierarchical all-gather's blocks per step to one neighbour
  // 1.6-4x dearer than simulated at small sizes.)
  // Tiers: 0 inside a server, 1 a super pod's scale-up bus (a link per
  // peer, like the mesh), 2 between servers or pods (Topology::tierBetween).
  std::map<int64_t, double> byPeer[2][3];
  std::vector<double> pooled[2];
  double reduced = 0;
  for (const ConcreteOp &c : ops) {
    double bytes = static_cast<double>(c.count) * elemBytes;
    if (c.kind == OpKind::RecvReduce)
      reduced += bytes;
    if (c.kind == OpKind::Reduce)
      reduced += bytes * static_cast<double>(c.srcN - 1);
    if (!opHasPeer(c.kind) || c.count == 0)
      continue;
    int64_t peer = peerGlobal.empty() ? c.peer : peerGlobal[c.peer];
    int dir = c.kind == OpKind::Send ? 0 : 1;
    int tier =
        topo.tierBetween(static_cast<int>(globalRank), static_cast<int>(peer));
    // Where the receiver copies, a send only posts an offer: its sender
    // pays neither the bytes nor the wait (the receiver does).
    if (dir == 0 && topo.tierLink(tier).receiverCopies())
      continue;
    if (tier == 0 && topo.intraShape != IntraShape::FullMesh)
      pooled[dir].push_back(bytes);
    else
      byPeer[dir][tier][peer] += bytes;
  }
  double worst = -1;
  const LinkParams *worstLink = &topo.intra;
  PortLoad worstLoad;
  std::vector<double> sizes;
  for (int dir = 0; dir < 2; ++dir)
    for (int tier = 0; tier < 3; ++tier) {
      sizes.clear();
      for (const auto &[peer, bytes] : byPeer[dir][tier])
        sizes.push_back(bytes);
      if (tier == 0)
        sizes.insert(sizes.end(), pooled[dir].begin(), pooled[dir].end());
      if (sizes.empty())
        continue;
      const LinkParams &l = topo.tierLink(tier);
      PortLoad pl = busiest(sizes, l.ports, l);
      double t = pl.msgs * l.alpha() + pl.bytes * l.beta();
      if (t > worst) {
        worst = t;
        worstLink = &l;
        worstLoad = pl;
      }
    }
  return stepTime(worstLoad.msgs, worstLoad.bytes, reduced, *worstLink,
                  topo.gamma(), slices);
}

Result<ProgramCost> predictCost(const Program &prog, const Topology &topo,
                                const CostOptions &opts) {
  using R = Result<ProgramCost>;
  if (Status s = prog.validate(); !s)
    return R(s);
  if (Status s = topo.validate(); !s)
    return R(s);
  auto steps = prog.phaseSteps();
  if (!steps)
    return R(steps.status());
  std::vector<int64_t> global = opts.groupRanks;
  if (!global.empty() && static_cast<int64_t>(global.size()) != prog.p)
    return R::error("cost: group map has " + std::to_string(global.size()) +
                    " ranks, the program " + std::to_string(prog.p));
  int64_t world = topo.worldSize();
  for (int64_t r = 0; r < prog.p; ++r) {
    int64_t g = global.empty() ? r : global[r];
    if (g < 0 || g >= world)
      return R::error("cost: rank " + std::to_string(r) + " maps to global " +
                      std::to_string(g) + ", outside the topology's " +
                      std::to_string(world) + " ranks");
  }
  std::vector<int64_t> ranks = opts.ranks;
  if (ranks.empty())
    for (int64_t r = 0; r < prog.p; ++r)
      ranks.push_back(r);
  for (int64_t r : ranks)
    if (r < 0 || r >= prog.p)
      return R::error("cost: rank " + std::to_string(r) + " outside 0.." +
                      std::to_string(prog.p - 1));
  int64_t totalSteps = 0;
  for (int64_t st : *steps)
    totalSteps += st;
  if (static_cast<double>(totalSteps) * static_cast<double>(ranks.size()) >
      static_cast<double>(opts.maxRankSteps))
    return R::error("cost: pricing " + std::to_string(ranks.size()) +
                    " ranks over " + std::to_string(totalSteps) +
                    " steps exceeds the budget of " +
                    std::to_string(opts.maxRankSteps) +
                    " rank-steps; price a sample of ranks or use the closed "
                    "form");
  ProgramEvaluator ev(prog);
  size_t eb = dataTypeSize(prog.dtype);
  ProgramCost pc;
  std::vector<ConcreteOp> ops;
  std::vector<int64_t> budget(ranks.size(), kMaxExpandedSize);
  for (uint32_t ph = 0; ph < prog.phases.size(); ++ph)
    for (int64_t s = 0; s < (*steps)[ph]; ++s) {
      double worst = 0;
      bool moves = false;
      for (size_t i = 0; i < ranks.size(); ++i) {
        int64_t r = ranks[i];
        ops.clear();
        if (Status st = ev.expandStep(r, ph, s, ops, &budget[i]); !st)
          return R(st);
        for (const ConcreteOp &c : ops)
          moves |= opHasPeer(c.kind) && c.count > 0;
        int64_t g = global.empty() ? r : global[r];
        worst =
            std::max(worst, stepCost(ops, g, global, eb, prog.slices, topo));
      }
      pc.stepSeconds.push_back(worst);
      pc.seconds += worst;
      pc.steps += 1;
      pc.rounds += moves ? 1 : 0;
    }
  if (prog.p > 1) // once per collective, as closedFormCost adds it
    pc.seconds += topo.collectiveOverhead();
  return pc;
}

double ncclTestBytes(Collective c, double countBytes, int64_t p) {
  switch (c) {
  case Collective::AllGather:
  case Collective::ReduceScatter:
  case Collective::AllToAll:
  case Collective::AllToAllV:
    return countBytes * static_cast<double>(p);
  default:
    return countBytes;
  }
}

double algBandwidthGBps(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

double busBandwidthGBps(Collective c, double bytes, double seconds, int64_t p) {
  double alg = algBandwidthGBps(bytes, seconds);
  double pp = static_cast<double>(p);
  switch (c) {
  case Collective::AllReduce:
    return alg * 2.0 * (pp - 1) / pp;
  case Collective::AllGather:
  case Collective::ReduceScatter:
  case Collective::AllToAll:
  case Collective::AllToAllV:
    return alg * (pp - 1) / pp;
  default:
    return alg;
  }
}

} // namespace hccl::sched
