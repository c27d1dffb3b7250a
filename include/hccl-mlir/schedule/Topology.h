//===- Topology.h - Cluster topology and link classes -----------*- C++ -*-===//
//
// A cluster is `servers` servers of `devicesPerServer` NPUs. Devices inside a
// server talk over the intra-server link class (HCCS full mesh on 910B, or a
// ring); servers talk over the inter-server class (RoCE, or TCP). Each link
// class carries the alpha-beta figures of the cost model; gamma (reduction
// time per byte) is a property of the device.
//
// Super pods (A3-class, 910C/910D): servers grouped in pods whose NPUs also
// reach each other over a switched scale-up bus (the `scaleUp` link class,
// per peer as the server's mesh, the NPU's ports shared by every peer); only
// traffic between pods crosses the inter-server class.
//
// Ranks are numbered server-major (rank = server * devicesPerServer + local)
// unless a rank table says otherwise, in which case rankServer/rankLocal hold
// the mapping.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_TOPOLOGY_H
#define HCCL_MLIR_SCHEDULE_TOPOLOGY_H

#include "hccl-mlir/schedule/Result.h"

#include <string>
#include <string_view>
#include <vector>

namespace hccl::sched {

enum class LinkClass : int { HCCS, PCIe, RoCE, TCP, SHM };
/// hccs, pcie, roce, tcp, shm
const char *linkClassName(LinkClass c);
std::optional<LinkClass> parseLinkClass(std::string_view s);

/// How the devices of one server are wired.
enum class IntraShape : int { FullMesh, Ring };
const char *intraShapeName(IntraShape s); // mesh, ring
std::optional<IntraShape> parseIntraShape(std::string_view s);

/// One of the caches' knees: past `bytes` per rank (as HCCL counts them),
/// up to the next knee, each byte of a collective's byte terms costs
/// `factor` times an in-cache byte.
struct CacheKnee {
  double bytes = 0;
  double factor = 1;
  bool operator==(const CacheKnee &o) const {
    return bytes == o.bytes && factor == o.factor;
  }
};

struct LinkParams {
  LinkClass cls = LinkClass::HCCS;
  double bandwidthGBps = 56.0; ///< per port, per direction, 1e9 bytes/s
  double latencyUs = 1.0;      ///< alpha, per message
  int ports = 1;               ///< links a device can drive at once

  /// Whether the receiver moves a message's bytes and waits for it, so that
  /// a send costs its sender nothing: shared memory, where the sender posts
  /// an offer and the receiver copies out of its buffer (a one-to-many send
  /// then costs what one receive does: a star broadcast of 64 KB on 3 local
  /// ranks measured 58 us against 164 by ring, which a sender-paid price
  /// made the dearer). True of the runtime's zero-copy path (HcclMemAlloc
  /// buffers); with malloc'd buffers the sender copies into each
  /// receiver's ring too, but every rank must choose alike whatever its
  /// buffers, and star measured no slower there either.
  bool receiverCopies() const { return cls == LinkClass::SHM; }

  /// Cost-model terms in seconds and seconds per byte.
  double alpha() const { return latencyUs * 1e-6; }
  double beta() const { return 1.0 / (bandwidthGBps * 1e9); }
  bool operator==(const LinkParams &o) const {
    return cls == o.cls && bandwidthGBps == o.bandwidthGBps &&
           latencyUs == o.latencyUs && ports == o.ports;
  }
};

struct Topology {
  std::string name; ///< preset name, or "" when custom
  int servers = 1;
  int devicesPerServer = 8;
  IntraShape intraShape = IntraShape::FullMesh;
  LinkParams intra;          ///< inside a server
  LinkParams inter;          ///< between servers (unused when servers == 1)
  double reduceGBps = 100.0; ///< local reduction throughput: gamma = 1/that
  /// Fixed cost of one collective on more than one rank, on top of its
  /// steps: launch, synchronisation, the copy into a fused buffer. Measured
  /// by tools/calibrate; 0 in the presets (link parameters set it).
  double collectiveOverheadUs = 0;
  /// Earliest start of a collective after it is issued: the runtime's
  /// threads wake and the ranks meet. A collective issued while its stream
  /// is busy starts when the stream frees, so queued collectives pay little
  /// or none of it. Measured by tools/calibrate (cold calls); 0 in presets.
  double collectiveWakeupUs = 0;
  /// With > 0: the idle time, in us, after which a collective pays all of
  /// the wake-up; issued after a shorter idle (issue - when its stream
  /// freed) it pays that share of it (a thread that slept less wakes
  /// faster). 0: all of it after any idle. comm-estimate's timeline and the
  /// overlap scheduler's clock follow it; the bucket sizing prices every
  /// start at all of it (a bound: a wake-up that shrinks with the idle would
  /// let a stream that frees later start the next bucket sooner, which the
  /// sizing programme's exactness rules out). Measured by tools/calibrate.
  double collectiveWakeupIdleUs = 0;
  /// The caches' knees, bytes ascending: a collective's byte terms (its
  /// transfers and reductions, not its latencies) hold for its first
  /// knee's bytes (per rank, as HCCL counts them); each byte past a knee,
  /// up to the next, costs that knee's factor times as much, the working
  /// set having left a cache. On this repository's 2-core host a 2-rank
  /// all-reduce's whole rate fell from 11-12.7 to 7.3-7.7 GB/s between 30
  /// and 47 MiB (the last-level cache), which one knee cannot price; knees
  /// at 1 MiB (x1.75) and 32 MiB (x3.15) priced 8-256 MiB within 0.95-1.02
  /// (docs/performance.md, runs 23-24).
  /// Empty = no knee. Measured by tools/calibrate; none in the presets.
  std::vector<CacheKnee> cacheKnees;
  static constexpr size_t kMaxCacheKnees = 8;
  /// Communication taking compute's cores: microseconds by which a
  /// collective delays the compute that runs after its issue, per MB (1e6
  /// bytes, as HCCL counts them) it moves. 0 on an NPU, whose links have
  /// engines of their own; a CPU host's collectives copy and reduce on the
  /// cores (and through the memory) the backward pass also uses. Measured
  /// by examples/train/measure_steal.py; 0 in the presets.
  double computeStealUsPerMB = 0;

  /// Servers per super pod, server-major (the last pod may hold fewer); 0:
  /// no pods. A rank table may group servers otherwise (serverPod).
  int podServers = 0;
  /// Between NPUs of different servers in one pod (unused without pods).
  LinkParams scaleUp;
  /// Per server, its pod, when a rank table groups servers out of order or
  /// unevenly; empty = by podServers.
  std::vector<int> serverPod;

  /// Optional explicit mapping from a rank table; empty = server-major.
  std::vector<int> rankServer;
  std::vector<std::string> serverIds; ///< from the rank table, if any
  std::vector<std::string> deviceIps; ///< per rank, from the rank table
  /// Per server, the host address the rank table gives (host_ip, or a 2.0
  /// table's "d2h" address); "" when it gives none.
  std::vector<std::string> hostIps;

  int worldSize() const;
  int serverOf(int rank) const;
  bool sameServer(int a, int b) const { return serverOf(a) == serverOf(b); }
  double gamma() const { return 1.0 / (reduceGBps * 1e9); }
  double collectiveOverhead() const { return collectiveOverheadUs * 1e-6; }
  double collectiveWakeup() const { return collectiveWakeupUs * 1e-6; }
  /// computeStealUsPerMB in seconds per byte.
  double computeSteal() const { return computeStealUsPerMB * 1e-12; }
  /// What the byte terms of a collective of `bytes` are multiplied by: the
  /// bytes' cost in in-cache bytes (1 each up to the first knee, then each
  /// knee's factor up to the next) over `bytes`.
  double pastCacheScale(double bytes) const {
    if (cacheKnees.empty() || !(bytes > cacheKnees[0].bytes))
      return 1.0;
    double cost = cacheKnees[0].bytes;
    for (size_t i = 0; i < cacheKnees.size() && bytes > cacheKnees[i].bytes;
         ++i) {
      double upTo = i + 1 < cacheKnees.size() && cacheKnees[i + 1].bytes < bytes
                        ? cacheKnees[i + 1].bytes
                        : bytes;
      cost += cacheKnees[i].factor * (upTo - cacheKnees[i].bytes);
    }
    return cost / bytes;
  }
  bool hasPods() const { return podServers > 0 || !serverPod.empty(); }
  /// The pod of a server (0 without pods).
  int podOfServer(int server) const;
  bool samePod(int a, int b) const {
    return podOfServer(serverOf(a)) == podOfServer(serverOf(b));
  }
  /// The tier two distinct ranks talk over: 0 inside a server, 1 between
  /// servers of one pod (scale-up), 2 between pods (or servers, without
  /// pods).
  int tierBetween(int a, int b) const {
    return sameServer(a, b) ? 0 : (hasPods() && samePod(a, b)) ? 1 : 2;
  }
  const LinkParams &tierLink(int tier) const {
    return tier == 0 ? intra : tier == 1 ? scaleUp : inter;
  }
  /// The link class used between two distinct ranks.
  const LinkParams &linkBetween(int a, int b) const {
    return tierLink(tierBetween(a, b));
  }
  /// The link a group of `servers` whole servers (server-major, from the
  /// first) crosses between servers: the scale-up bus while they fit in one
  /// pod, the inter-server link otherwise.
  const LinkParams &acrossServers(int64_t servers) const {
    return hasPods() && serverPod.empty() && servers <= podServers ? scaleUp
                                                                   : inter;
  }
  /// True when every server holds the same number of ranks, numbered
  /// server-major (what the hierarchical generators assume).
  bool isUniformServerMajor() const;
  Status validate() const;

  /// Named presets: "910b-8" (one 8-NPU server, HCCS full mesh, 56 GB/s per
  /// link, 7 links per NPU), "910b-8xN" (N such servers, 200 GbE RoCE per
  /// NPU), "910d-8" / "910d-8xN" (the same servers with 400 Gb/s RoCE per
  /// NPU), "910d-8xN-podS" (those servers in super pods of S servers, on a
  /// scale-up bus of 7 x 56 GB/s per NPU), "host" / "host-N" (N processes of
  /// this machine over shared memory, default 8). Unknown names get an error
  /// listing the accepted forms.
  static Result<Topology> preset(std::string_view name);
  static std::string presetForms();
  /// Processes on hosts, as the runtime finds them without a rank table:
  /// rankServer[r] is the host (0..H-1) of rank r. One host is the "host-N"
  /// preset; several are its figures with the hosts as servers and its TCP
  /// link between them.
  static Result<Topology> hosts(const std::vector<int> &rankServer);

  /// An HCCL rank table (RankTable.cpp: versions 1.0, 1.2 with super pods,
  /// 2.0, and the group_list form; servers named or addressed) plus
  /// optional link-parameter JSON (see docs/plan-format.md, "Link
  /// parameters"), both given as text. Errors name the JSON path of the
  /// problem.
  static Result<Topology> fromRankTable(std::string_view rankTableJson,
                                        std::string_view linkParamsJson = {});
  /// Applies a link-parameter JSON document on top of this topology.
  Status applyLinkParams(std::string_view linkParamsJson);

  bool operator==(const Topology &o) const;
};

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_TOPOLOGY_H
