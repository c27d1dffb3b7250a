//===- Platform.h - A topology as a SimGrid platform -------------*- C++
//-*-===//
//
// The simulated cluster of a lib/schedule Topology (docs/simulation.md,
// "Platform"): one host per rank, the servers' NPUs fully meshed by one
// directed link per ordered pair (the intra link's bandwidth and latency),
// each NPU's own NIC (up and down, the inter link's figures; the latency
// sits on the up side so one message pays it once), and the RoCE fabric as
// a fat tree of 2 or 3 levels whose tiers above the NICs are aggregated
// into one up and one down link per switch, of the bandwidth below it over
// the oversubscription ratio (ideal ECMP). Routes are the graph's shortest
// paths (SimGrid's Dijkstra routing), which is the tree's unique path.
//
// The platform is a description first (PlatformSpec) and is written as
// SimGrid XML, the file the simulation loads: --write-platform shows
// exactly what was simulated.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_SIM_PLATFORM_H
#define HCCL_SIM_PLATFORM_H

#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Topology.h"

#include <string>
#include <vector>

namespace hccl::sim {

struct FabricOptions {
  int levels = 2;              ///< fat tree levels: 2 (leaf, spine) or 3
  double oversubscription = 1; ///< bandwidth below a switch : above it
  int serversPerLeaf = 4;      ///< 4 x 8 NICs = 32 down ports per leaf
  int leavesPerPod = 8;        ///< 3 levels: leaves under one pod switch
};

/// One link changed: a NIC (both directions) or an HCCS link (both
/// directions between two ranks), slowed to a fraction of its bandwidth,
/// or failed (turned off before the simulation starts).
struct LinkFault {
  enum class Where { Nic, Hccs } where = Where::Nic;
  int a = 0, b = -1; ///< global ranks (b: hccs only)
  double fraction = 1;
  bool failed = false;
  std::string text; ///< as given, for reports
};

struct SimLink {
  std::string name;
  double bytesPerSecond = 0;
  double latencySeconds = 0;
};

/// A directed edge of the routing graph and the links it crosses.
struct SimEdge {
  std::string src, dst;
  std::vector<std::string> links;
};

struct PlatformSpec {
  std::vector<std::string> hosts; ///< hosts[g]: the host of global rank g
  double hostSpeed = 0;           ///< flop/s; a reduction is 1 flop per byte
  std::vector<std::string> routers;
  std::vector<SimLink> links;
  std::vector<SimEdge> edges;
  std::string summary; ///< one line: servers, leaves, spines, ratio

  const SimLink *findLink(const std::string &name) const;
};

/// The platform of `topo` (mesh servers only: a ring-shaped server is not
/// modelled) with the faults applied. Errors name the bad option or fault.
sched::Result<PlatformSpec> buildPlatform(const sched::Topology &topo,
                                          const FabricOptions &fabric,
                                          const std::vector<LinkFault> &faults);

/// The links a fault touches (names in `spec`).
std::vector<std::string> faultLinks(const LinkFault &f,
                                    const sched::Topology &topo);

/// SimGrid platform XML (version 4.1, one DijkstraCache zone).
std::string platformXml(const PlatformSpec &spec);

} // namespace hccl::sim

#endif // HCCL_SIM_PLATFORM_H
