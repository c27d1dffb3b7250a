//===- Topology.cpp - Presets, rank tables, link parameters ---------------===//
#include "hccl-mlir/schedule/Topology.h"

#include "LinkRead.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace hccl::sched {
namespace {

const char *const kLinkNames[] = {"hccs", "pcie", "roce", "tcp", "shm"};

// Reference figures (docs/design.md): 910B HCCS 56 GB/s per link, 7 links per
// NPU; 200 GbE RoCE per NPU = 25 GB/s. Latencies and the reduction rate are
// the values public cost models use for this class of hardware; `host` is a
// placeholder for this machine's shared memory that calibration overwrites.
LinkParams hccs910b() { return {LinkClass::HCCS, 56.0, 1.5, 7}; }
LinkParams roce200g() { return {LinkClass::RoCE, 25.0, 5.0, 1}; }
// 910D-class servers (docs/design.md, "Presets"): the same 7 x 56 GB/s mesh
// per NPU (392 GB/s, what public material gives the 910C's scale-up port)
// and 400 Gb/s RoCE per NPU = 50 GB/s, the figure a 1 GB flat all-reduce of
// 42 ms on 128 x 8 of them implies.
LinkParams roce400g() { return {LinkClass::RoCE, 50.0, 5.0, 1}; }
// The scale-up bus of a 910C/910D super pod between servers: per peer one
// HCCS-class link of the mesh's figure, 7 per NPU (392 GB/s), behind one
// switch more than the server's mesh (assumed +0.5 us; no measured figure
// is public, docs/design.md "Presets").
LinkParams scaleUp910d() { return {LinkClass::HCCS, 56.0, 2.0, 7}; }
LinkParams hostShm() { return {LinkClass::SHM, 5.0, 1.0, 1}; }

bool parsePositiveInt(std::string_view s, int &out) {
  if (s.empty() || s.size() > 6)
    return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  if (v <= 0)
    return false;
  out = v;
  return true;
}

} // namespace

const char *linkClassName(LinkClass c) {
  int i = static_cast<int>(c);
  return (i >= 0 && i < 5) ? kLinkNames[i] : "invalid";
}

std::optional<LinkClass> parseLinkClass(std::string_view s) {
  for (int i = 0; i < 5; ++i)
    if (s == kLinkNames[i])
      return static_cast<LinkClass>(i);
  return std::nullopt;
}

const char *intraShapeName(IntraShape s) {
  return s == IntraShape::FullMesh ? "mesh" : "ring";
}

std::optional<IntraShape> parseIntraShape(std::string_view s) {
  if (s == "mesh")
    return IntraShape::FullMesh;
  if (s == "ring")
    return IntraShape::Ring;
  return std::nullopt;
}

int Topology::worldSize() const {
  if (!rankServer.empty())
    return static_cast<int>(rankServer.size());
  return servers * devicesPerServer;
}

int Topology::serverOf(int rank) const {
  if (!rankServer.empty())
    return (rank >= 0 && rank < static_cast<int>(rankServer.size()))
               ? rankServer[rank]
               : -1;
  return devicesPerServer > 0 ? rank / devicesPerServer : 0;
}

int Topology::podOfServer(int server) const {
  if (!serverPod.empty())
    return (server >= 0 && server < static_cast<int>(serverPod.size()))
               ? serverPod[server]
               : -1;
  return podServers > 0 ? server / podServers : 0;
}

bool Topology::isUniformServerMajor() const {
  if (rankServer.empty())
    return true;
  if (static_cast<int>(rankServer.size()) != servers * devicesPerServer)
    return false;
  for (size_t r = 0; r < rankServer.size(); ++r)
    if (rankServer[r] != static_cast<int>(r) / devicesPerServer)
      return false;
  return true;
}

Status Topology::validate() const {
  if (servers < 1)
    return Status::error("topology: servers must be >= 1, found " +
                         std::to_string(servers));
  if (devicesPerServer < 1)
    return Status::error("topology: devices per server must be >= 1, found " +
                         std::to_string(devicesPerServer));
  for (const LinkParams *l : {&intra, &inter, &scaleUp}) {
    if (!(l->bandwidthGBps > 0) || !(l->latencyUs >= 0) || l->ports < 1)
      return Status::error(std::string("topology: ") +
                           (l == &intra   ? "intra"
                            : l == &inter ? "inter"
                                          : "scaleup") +
                           " link needs bandwidth > 0, latency >= 0, ports "
                           ">= 1");
  }
  if (podServers < 0)
    return Status::error("topology: servers per pod must be >= 0, found " +
                         std::to_string(podServers));
  if (!serverPod.empty()) {
    if (static_cast<int>(serverPod.size()) != servers)
      return Status::error(
          "topology: the pod map names " + std::to_string(serverPod.size()) +
          " servers, the topology has " + std::to_string(servers));
    for (int p : serverPod)
      if (p < 0 || p >= servers)
        return Status::error("topology: pod index " + std::to_string(p) +
                             " outside 0.." + std::to_string(servers - 1));
  }
  if (!(reduceGBps > 0))
    return Status::error("topology: reduction bandwidth must be > 0");
  if (!(collectiveOverheadUs >= 0) || !std::isfinite(collectiveOverheadUs))
    return Status::error("topology: collective overhead must be finite and "
                         ">= 0 us");
  if (!(collectiveWakeupUs >= 0) || !std::isfinite(collectiveWakeupUs))
    return Status::error("topology: collective wake-up must be finite and "
                         ">= 0 us");
  if (!(collectiveWakeupIdleUs >= 0) || !std::isfinite(collectiveWakeupIdleUs))
    return Status::error("topology: collective wake-up idle must be finite "
                         "and >= 0 us");
  if (collectiveWakeupIdleUs > 0 && collectiveWakeupUs == 0)
    return Status::error("topology: a collective wake-up idle needs a "
                         "collective wake-up (> 0 us) to scale");
  if (cacheKnees.size() > kMaxCacheKnees)
    return Status::error("topology: at most " + std::to_string(kMaxCacheKnees) +
                         " cache knees");
  for (size_t i = 0; i < cacheKnees.size(); ++i) {
    const CacheKnee &k = cacheKnees[i];
    if (!(k.bytes > 0) || !std::isfinite(k.bytes))
      return Status::error("topology: cache knee bytes must be finite and > 0");
    if (i > 0 && !(k.bytes > cacheKnees[i - 1].bytes))
      return Status::error("topology: cache knees must ascend in bytes");
    if (!(k.factor >= 1 && k.factor <= 1000))
      return Status::error("topology: a cache knee's factor must be in "
                           "1..1000");
  }
  if (!(computeStealUsPerMB >= 0 && computeStealUsPerMB <= 1e6))
    return Status::error("topology: the compute steal must be in 0..1e6 us "
                         "per MB");
  return Status::ok();
}

std::string Topology::presetForms() {
  return "'910b-8', '910b-8xN', '910d-8', '910d-8xN' (N servers, N >= 1), "
         "'910d-8xN-podS' (in super pods of S servers), 'host' or 'host-N' "
         "(N local ranks)";
}

Result<Topology> Topology::preset(std::string_view name) {
  Topology t;
  t.name = std::string(name);
  // "910b-8" / "910d-8": one server; "...xN": N of them.
  for (auto [family, inter] :
       {std::pair{"910b-8", roce200g()}, std::pair{"910d-8", roce400g()}}) {
    std::string_view f(family);
    if (name.substr(0, f.size()) != f)
      continue;
    std::string_view rest = name.substr(f.size());
    // "-podS": super pods, on the 910D family only (A3 super pods).
    int pod = 0;
    if (size_t at = rest.find("-pod"); at != std::string_view::npos) {
      if (f != "910d-8" || !parsePositiveInt(rest.substr(at + 4), pod))
        break;
      rest = rest.substr(0, at);
    }
    int n = 1;
    if (!rest.empty() &&
        (rest[0] != 'x' || !parsePositiveInt(rest.substr(1), n) || n > 4096))
      break;
    t.servers = n;
    if (pod > 0) {
      t.podServers = pod;
      t.scaleUp = scaleUp910d();
    }
    t.devicesPerServer = 8;
    t.intra = hccs910b();
    t.inter = inter;
    return t;
  }
  if (name == "host" || name.rfind("host-", 0) == 0) {
    int n = 8;
    if (name == "host" || (parsePositiveInt(name.substr(5), n) && n <= 4096)) {
      t.servers = 1;
      t.devicesPerServer = n;
      t.intra = hostShm();
      t.inter = {LinkClass::TCP, 1.0, 20.0, 1};
      t.reduceGBps = 4.0;
      return t;
    }
  }
  return Result<Topology>::error("unknown topology preset '" +
                                 std::string(name) +
                                 "'; accepted forms: " + presetForms());
}

Result<Topology> Topology::hosts(const std::vector<int> &rankServer) {
  using R = Result<Topology>;
  const int n = static_cast<int>(rankServer.size());
  if (n < 1)
    return R::error("hosts: no ranks");
  std::vector<int> perHost;
  for (int h : rankServer) {
    if (h < 0 || h >= n)
      return R::error("hosts: host index " + std::to_string(h) +
                      " outside 0.." + std::to_string(n - 1));
    if (h >= static_cast<int>(perHost.size()))
      perHost.resize(static_cast<size_t>(h) + 1, 0);
    ++perHost[static_cast<size_t>(h)];
  }
  for (size_t h = 0; h < perHost.size(); ++h)
    if (perHost[h] == 0)
      return R::error("hosts: host " + std::to_string(h) + " holds no rank");
  R t = preset("host-" + std::to_string(n));
  if (!t || perHost.size() == 1)
    return t;
  t->name.clear();
  t->servers = static_cast<int>(perHost.size());
  t->devicesPerServer = *std::max_element(perHost.begin(), perHost.end());
  t->rankServer = rankServer;
  if (t->isUniformServerMajor())
    t->rankServer.clear();
  return t;
}

Status Topology::applyLinkParams(std::string_view text) {
  jsonread::Json j;
  if (Status s = jsonread::parseObject(text, "link parameters", j); !s)
    return s;
  // The plan's topology reader reads these keys with the same function.
  Status s = jsonread::object(
      j, "",
      {"intra", "inter", "scaleup", "intra_shape", "reduce_gbps",
       "collective_overhead_us", "collective_wakeup_us",
       "collective_wakeup_idle_us", "cache_bytes", "past_cache_factor",
       "compute_steal_us_per_mb", "calibrated", "version"});
  // How the figures were measured (calibrate_host.py: ranks, issue mode,
  // date): for the tools that check a file fits their run; no price uses it.
  if (s && j.contains("calibrated") && !j.at("calibrated").is_object())
    s = Status::error("calibrated: expected an object (how the figures were "
                      "measured)");
  if (s)
    s = detail::readLinkFields(j, "", *this);
  if (s && j.contains("scaleup") && !hasPods())
    s = Status::error("scaleup: the topology has no super pods (a preset "
                      "'910d-8xN-podS' or a rank table's super_pod_list)");
  if (!s)
    return Status::error("link parameters: " + s.message());
  // `name` promises the preset's figures; once they are changed the topology
  // is custom, or printers (e.g. #comm.topology) would drop the new figures.
  if (!name.empty()) {
    auto p = preset(name);
    if (!p || !(*this == *p))
      name.clear();
  }
  return validate();
}

bool Topology::operator==(const Topology &o) const {
  return name == o.name && servers == o.servers &&
         devicesPerServer == o.devicesPerServer && intraShape == o.intraShape &&
         intra == o.intra && inter == o.inter && podServers == o.podServers &&
         (!hasPods() || scaleUp == o.scaleUp) && serverPod == o.serverPod &&
         reduceGBps == o.reduceGBps &&
         collectiveOverheadUs == o.collectiveOverheadUs &&
         collectiveWakeupUs == o.collectiveWakeupUs &&
         collectiveWakeupIdleUs == o.collectiveWakeupIdleUs &&
         cacheKnees == o.cacheKnees &&
         computeStealUsPerMB == o.computeStealUsPerMB &&
         rankServer == o.rankServer;
}

} // namespace hccl::sched
