//===- Topology.cpp - Presets, rank tables, link parameters ---------------===//
#include "hccl-mlir/schedule/Topology.h"

#include "LinkRead.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <map>
#include <set>

namespace hccl::sched {
namespace {

const char *const kLinkNames[] = {"hccs", "pcie", "roce", "tcp", "shm"};

// Reference figures (DESIGN.md §4): 910B HCCS 56 GB/s per link, 7 links per
// NPU; 200 GbE RoCE per NPU = 25 GB/s. Latencies and the reduction rate are
// the values public cost models use for this class of hardware; `host` is a
// placeholder for this machine's shared memory that calibration overwrites.
LinkParams hccs910b() { return {LinkClass::HCCS, 56.0, 1.5, 7}; }
LinkParams roce200g() { return {LinkClass::RoCE, 25.0, 5.0, 1}; }
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

using json = nlohmann::json;

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
  for (const LinkParams *l : {&intra, &inter}) {
    if (!(l->bandwidthGBps > 0) || !(l->latencyUs >= 0) || l->ports < 1)
      return Status::error(
          std::string("topology: ") + (l == &intra ? "intra" : "inter") +
          " link needs bandwidth > 0, latency >= 0, ports >= 1");
  }
  if (!(reduceGBps > 0))
    return Status::error("topology: reduction bandwidth must be > 0");
  return Status::ok();
}

std::string Topology::presetForms() {
  return "'910b-8', '910b-8xN' (N servers, N >= 1), 'host' or 'host-N' "
         "(N local ranks)";
}

Result<Topology> Topology::preset(std::string_view name) {
  Topology t;
  t.name = std::string(name);
  if (name == "910b-8") {
    t.servers = 1;
    t.devicesPerServer = 8;
    t.intra = hccs910b();
    t.inter = roce200g();
    return t;
  }
  if (name.rfind("910b-8x", 0) == 0) {
    int n = 0;
    if (parsePositiveInt(name.substr(7), n) && n <= 4096) {
      t.servers = n;
      t.devicesPerServer = 8;
      t.intra = hccs910b();
      t.inter = roce200g();
      return t;
    }
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

Status Topology::applyLinkParams(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded())
    return Status::error("link parameters: malformed JSON");
  if (!j.is_object())
    return Status::error("link parameters: expected a JSON object at the top");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!detail::isLinkField(it.key()) && it.key() != "version")
      return Status::error("link parameters: unknown key '" + it.key() +
                           "' (expected intra, inter, intra_shape, "
                           "reduce_gbps, version)");
  // The plan's topology reader reads these keys with the same function.
  if (Status s = detail::readLinkFields(j, "", *this); !s)
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

Result<Topology> Topology::fromRankTable(std::string_view rankTable,
                                         std::string_view linkParams) {
  using R = Result<Topology>;
  json j = json::parse(rankTable.begin(), rankTable.end(), nullptr, false);
  if (j.is_discarded())
    return R::error("rank table: malformed JSON");
  if (!j.is_object())
    return R::error("rank table: expected a JSON object at the top");
  auto str = [](const json &o, const char *key, const std::string &path,
                std::string &out) -> Status {
    auto it = o.find(key);
    if (it == o.end())
      return Status::error(path + "." + key + ": missing");
    if (!it->is_string())
      return Status::error(path + "." + key +
                           ": expected a string (rank tables hold strings)");
    out = it->get<std::string>();
    return Status::ok();
  };
  std::string version, status, serverCount;
  if (Status s = str(j, "version", "rank table", version); !s)
    return R(s);
  if (version != "1.0")
    return R::error("rank table.version: unsupported version '" + version +
                    "' (expected \"1.0\")");
  if (j.contains("status")) {
    if (Status s = str(j, "status", "rank table", status); !s)
      return R(s);
    if (status != "completed")
      return R::error("rank table.status: expected \"completed\", found \"" +
                      status + "\"");
  }
  if (Status s = str(j, "server_count", "rank table", serverCount); !s)
    return R(s);
  int nServers = 0;
  if (!parsePositiveInt(serverCount, nServers))
    return R::error("rank table.server_count: expected a positive integer "
                    "string, found \"" +
                    serverCount + "\"");
  auto list = j.find("server_list");
  if (list == j.end() || !list->is_array())
    return R::error("rank table.server_list: missing or not an array");
  if (static_cast<int>(list->size()) != nServers)
    return R::error("rank table.server_list: server_count says " +
                    std::to_string(nServers) + " servers, list holds " +
                    std::to_string(list->size()));
  Topology t = *preset("910b-8");
  t.name.clear();
  t.servers = nServers;
  std::map<int, std::pair<int, std::string>> rankInfo; // rank -> server, ip
  size_t maxDevices = 0;
  std::set<std::string> seenServers;
  for (size_t si = 0; si < list->size(); ++si) {
    const json &srv = (*list)[si];
    std::string path = "rank table.server_list[" + std::to_string(si) + "]";
    if (!srv.is_object())
      return R::error(path + ": expected an object");
    std::string sid;
    if (Status s = str(srv, "server_id", path, sid); !s)
      return R(s);
    if (!seenServers.insert(sid).second)
      return R::error(path + ".server_id: duplicate server '" + sid + "'");
    t.serverIds.push_back(sid);
    auto devs = srv.find("device");
    if (devs == srv.end() || !devs->is_array() || devs->empty())
      return R::error(path + ".device: missing, empty or not an array");
    maxDevices = std::max(maxDevices, devs->size());
    std::set<int> seenDev;
    for (size_t di = 0; di < devs->size(); ++di) {
      const json &d = (*devs)[di];
      std::string dpath = path + ".device[" + std::to_string(di) + "]";
      if (!d.is_object())
        return R::error(dpath + ": expected an object");
      std::string devId, ip, rankId;
      if (Status s = str(d, "device_id", dpath, devId); !s)
        return R(s);
      if (Status s = str(d, "rank_id", dpath, rankId); !s)
        return R(s);
      if (d.contains("device_ip"))
        if (Status s = str(d, "device_ip", dpath, ip); !s)
          return R(s);
      int dev = 0, rank = 0;
      if (!(devId == "0" || parsePositiveInt(devId, dev)) || dev > 1023)
        return R::error(dpath +
                        ".device_id: expected an integer string in "
                        "0..1023, found \"" +
                        devId + "\"");
      if (!seenDev.insert(dev).second)
        return R::error(dpath + ".device_id: duplicate device " + devId +
                        " on server '" + sid + "'");
      if (!(rankId == "0" || parsePositiveInt(rankId, rank)))
        return R::error(dpath +
                        ".rank_id: expected a non-negative integer "
                        "string, found \"" +
                        rankId + "\"");
      if (!rankInfo.emplace(rank, std::make_pair(int(si), ip)).second)
        return R::error(dpath + ".rank_id: rank " + rankId +
                        " appears twice in the rank table");
    }
  }
  int world = static_cast<int>(rankInfo.size());
  if (rankInfo.rbegin()->first != world - 1)
    return R::error("rank table: rank ids must be 0.." +
                    std::to_string(world - 1) + " without gaps; highest is " +
                    std::to_string(rankInfo.rbegin()->first));
  t.devicesPerServer = static_cast<int>(maxDevices);
  for (auto &[rank, info] : rankInfo) {
    t.rankServer.push_back(info.first);
    t.deviceIps.push_back(info.second);
  }
  if (t.isUniformServerMajor())
    t.rankServer.clear();
  if (!linkParams.empty())
    if (Status s = t.applyLinkParams(linkParams); !s)
      return R(s);
  if (Status s = t.validate(); !s)
    return R(s);
  return t;
}

bool Topology::operator==(const Topology &o) const {
  return name == o.name && servers == o.servers &&
         devicesPerServer == o.devicesPerServer && intraShape == o.intraShape &&
         intra == o.intra && inter == o.inter && reduceGBps == o.reduceGBps &&
         rankServer == o.rankServer;
}

} // namespace hccl::sched
