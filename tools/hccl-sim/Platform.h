//===- Platform.h - A topology as a SimGrid platform ------------*- C++ -*-===//
//
// The simulated cluster of a lib/schedule Topology (docs/simulation.md,
// "Platform"): one host per rank, the servers' NPUs fully meshed by one
// directed link per ordered pair (the intra link's bandwidth and latency),
// each NPU's own NIC (up and down, the inter link's figures; the latency
// sits on the up side so one message pays it once), and the RoCE fabric as
// a fat tree of 2 or 3 levels whose tiers above the NICs are aggregated
// into one up and one down link per switch, of the bandwidth below it over
// the oversubscription ratio (ideal ECMP), or a rail-optimised fabric
// (FabricOptions::rails). Routes are the graph's shortest paths (SimGrid's
// Dijkstra routing, edges weighted by their links), which is the tree's
// unique path. With rails an HCCS edge carries two padding links of its
// own (no latency, never the bottleneck) so that no route transits an NPU:
// forwarding through a peer's NIC (PXN) is not what the runtime does.
//
// --borrow-nic models HCCL's rail borrowing (docs/simulation.md,
// "Faults"): every rank (but the borrower's backup, which never switches)
// gets a second host whose only links are its
// backup's NIC (local ranks 2k and 2k+1 back each other up, as HCCL pairs
// the two dies of one NPU), reached over the HCCS link to the backup, so a
// route between two such hosts leaves and arrives through backup NICs at
// both ends, as HCCL switches both ends of a borrowed pair.
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
  /// Rail-optimised: NIC i of every server in a group goes to that group's
  /// leaf i (rail i), so same-rail traffic stays under one leaf and only
  /// cross-rail traffic climbs. Otherwise a server's NICs share one leaf.
  bool rails = false;
  /// Servers under one leaf (a group of servers, one leaf per rail, with
  /// rails); 0: as many as fill 32 down ports (4 servers of 8 NPUs, or 32
  /// with rails).
  int serversPerLeaf = 0;
  int leavesPerPod = 8; ///< 3 levels: leaves under one pod switch
};

/// One link changed: a NIC (both directions) or an HCCS link (both
/// directions between two ranks), slowed to a fraction of its bandwidth,
/// or failed (turned off before the simulation starts).
struct LinkFault {
  /// A NIC, an HCCS link, or an NPU's port on its super pod's bus.
  enum class Where { Nic, Hccs, Ub } where = Where::Nic;
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
  /// --borrow-nic: the rank whose failed NIC is borrowed for (-1: none),
  /// and per global rank the host whose routes to other servers go through
  /// its backup's NIC (the rank of the other half of its pair).
  int borrower = -1;
  std::vector<std::string> backupHosts;
  std::vector<int> backupRanks; ///< per global rank: its pair rank

  const SimLink *findLink(const std::string &name) const;
};

/// The platform of `topo` (mesh servers only: a ring-shaped server is not
/// modelled) with the faults applied; `borrowNic` adds the backup hosts
/// for the one failed NIC. Errors name the bad option or fault.
sched::Result<PlatformSpec> buildPlatform(const sched::Topology &topo,
                                          const FabricOptions &fabric,
                                          const std::vector<LinkFault> &faults,
                                          bool borrowNic = false);

/// The links a fault touches (names in `spec`).
std::vector<std::string> faultLinks(const LinkFault &f,
                                    const sched::Topology &topo);

/// SimGrid platform XML (version 4.1, one DijkstraCache zone).
std::string platformXml(const PlatformSpec &spec);

} // namespace hccl::sim

#endif // HCCL_SIM_PLATFORM_H
