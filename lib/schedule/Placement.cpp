//===- Placement.cpp - Where a communicator group lies on a topology ------===//
#include "hccl-mlir/schedule/Placement.h"

#include <algorithm>
#include <set>

namespace hccl::sched {

int64_t GroupPlacement::levelRanks() const {
  if (servers <= 1)
    return p;
  return ranksPerServer > 0 ? ranksPerServer : 1;
}

Result<GroupPlacement>
placeGroup(const Topology &topo,
           const std::vector<std::vector<int64_t>> &subgroups) {
  using R = Result<GroupPlacement>;
  if (subgroups.empty() || subgroups.front().empty())
    return R::error("the group has no ranks");
  const int64_t p = static_cast<int64_t>(subgroups.front().size());
  const int64_t world = topo.worldSize();
  for (const std::vector<int64_t> &ranks : subgroups) {
    if (static_cast<int64_t>(ranks.size()) != p)
      return R::error("the group's subgroups differ in size (" +
                      std::to_string(p) + " and " +
                      std::to_string(ranks.size()) + " ranks)");
    for (int64_t r : ranks)
      if (r < 0 || r >= world)
        return R::error("rank " + std::to_string(r) +
                        " does not fit the topology (" + std::to_string(world) +
                        " ranks: 0.." + std::to_string(world - 1) + ")");
  }
  GroupPlacement pl;
  pl.p = p;
  pl.servers = 0;
  // The run length every subgroup shares (0 = none) of a domain: the
  // server, or the super pod. The first run in one domain sets the length;
  // every run must match it and lie in a domain no earlier run used.
  auto runs = [&](auto domainOf) {
    int64_t m = -1;
    for (const std::vector<int64_t> &ranks : subgroups) {
      auto domain = [&](int64_t i) {
        return domainOf(static_cast<int>(ranks[static_cast<size_t>(i)]));
      };
      int64_t run = 1;
      while (run < p && domain(run) == domain(0))
        ++run;
      bool even = p % run == 0 && (m < 0 || m == run);
      std::set<int> used;
      for (int64_t i = 0; even && i < p; i += run) {
        even = used.insert(domain(i)).second;
        for (int64_t j = i + 1; even && j < i + run; ++j)
          even = domain(j) == domain(i);
      }
      m = even ? run : 0;
      if (m == 0)
        break;
    }
    return std::max<int64_t>(m, 0);
  };
  for (const std::vector<int64_t> &ranks : subgroups) {
    std::set<int> servers, pods;
    for (int64_t r : ranks) {
      int s = topo.serverOf(static_cast<int>(r));
      servers.insert(s);
      pods.insert(topo.podOfServer(s));
    }
    pl.servers = std::max<int64_t>(pl.servers, servers.size());
    if (topo.hasPods())
      pl.pods = std::max<int64_t>(pl.pods, pods.size());
  }
  pl.ranksPerServer = runs([&](int g) { return topo.serverOf(g); });
  if (topo.hasPods())
    pl.ranksPerPod =
        runs([&](int g) { return topo.podOfServer(topo.serverOf(g)); });
  return pl;
}

GroupPlacement serverMajorPlacement(int64_t p, int64_t m) {
  GroupPlacement pl;
  pl.p = p;
  if (m < 1 || p <= m) {
    pl.servers = 1;
    pl.ranksPerServer = p;
    return pl;
  }
  pl.servers = (p + m - 1) / m;
  pl.ranksPerServer = p % m == 0 ? m : 0;
  return pl;
}

Result<double> placedClosedFormCost(ClosedFormRequest req,
                                    const GroupPlacement &pl,
                                    const Topology &topo) {
  if (req.algorithm == Algorithm::Hierarchical && pl.servers > 1 &&
      pl.ranksPerServer == 0)
    return Result<double>::error(
        "the group's ranks are not spread evenly over the servers");
  req.p = pl.p;
  req.ranksPerServer = pl.levelRanks();
  req.pods = pl.pods;
  if (req.podSplit) {
    if (req.algorithm != Algorithm::Hierarchical || !pl.podHierarchical())
      return Result<double>::error(
          "a split at the super pod needs a hierarchical algorithm and a "
          "group spread evenly over two or more pods");
    req.ranksPerServer = pl.ranksPerPod;
  }
  return closedFormCost(req, topo);
}

} // namespace hccl::sched
