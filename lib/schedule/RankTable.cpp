//===- RankTable.cpp - HCCL rank tables in every documented form ----------===//
//
// HCCL documents four rank table forms; each is read into the same cluster
// layout (servers, the server of each rank, device and host addresses):
//  - version "1.0" (Atlas A2 / training series): server_count, server_list
//    [{server_id, host_ip?, device [{device_id, device_ip?, device_port?,
//    rank_id}]}], every value a string;
//  - version "1.2" (A3 super pods): 1.0 plus super_device_id per device and
//    super_pod_list [{super_pod_id, server_list [{server_id}]}];
//  - version "2.0" (rank_list): rank_count, rank_list [{rank_id, device_id,
//    local_id, level_list [{net_layer, net_instance_id, rank_addr_list
//    [{addr_type, addr, ports}]}]}], numbers as JSON numbers; the server of
//    a rank is its lowest layer's net_instance_id, its host address the
//    IPv4/IPv6 address whose ports include "d2h" (the host NIC);
//  - the older group_list form (training series template 2): group_list
//    [{group_name, instance_count, device_count, instance_list [{server_id,
//    pod_name?, rank_id?, devices [{device_id, device_ip}]}]}], ranks in
//    list order unless an instance names its rank_id.
// server_id is a name ("node_0") or an address; addresses come from the
// fields that carry them (host_ip, d2h addresses), server_id only when it
// is one (the runtime decides, CommApi.cpp).
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Topology.h"

#include "hccl-mlir/schedule/JsonRead.h"

#include <algorithm>
#include <arpa/inet.h>
#include <map>
#include <set>

namespace hccl::sched {
namespace {

using json = jsonread::Json;
using R = Result<Topology>;

bool isIpLiteral(const std::string &s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

/// Digits only, at most 9 of them.
bool parseIndex(const std::string &s, int &out) {
  if (s.empty() || s.size() > 9)
    return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

/// What every form is read into.
struct Layout {
  std::vector<std::string> serverIds;
  std::vector<std::string> hostIps; ///< per server, "" if none given
  std::map<std::string, int> serverIndex;
  struct Rank {
    int server = 0;
    std::string deviceIp;
  };
  std::map<int, Rank> ranks;
  std::map<int, std::set<int>> devicesOf; ///< server -> device ids
  /// Version 1.2: per server, its super pod (empty: no super_pod_list).
  std::vector<int> serverPod;

  int server(const std::string &id) {
    auto it = serverIndex.find(id);
    if (it != serverIndex.end())
      return it->second;
    int s = static_cast<int>(serverIds.size());
    serverIndex.emplace(id, s);
    serverIds.push_back(id);
    hostIps.emplace_back();
    return s;
  }
};

/// A string field ("rank tables hold strings" in versions 1.x).
Status str(const json &o, const char *key, const std::string &path,
           std::string &out, bool required = true) {
  Status s = jsonread::stringField(o, key, path, out, required);
  if (!s && o.contains(key))
    return Status::error(s.message() + " (rank tables hold strings)");
  return s;
}

/// An index given as a number or a digit string (version 2.0 writes
/// numbers).
Status index(const json &o, const char *key, const std::string &path,
             int &out) {
  jsonread::Json::const_iterator it;
  bool present = false;
  if (Status s = jsonread::field(o, key, path, true, it, present); !s)
    return s;
  if (it->is_number_unsigned() && it->get<uint64_t>() < 1000000000u) {
    out = static_cast<int>(it->get<uint64_t>());
    return Status::ok();
  }
  if (it->is_string() && parseIndex(it->get<std::string>(), out))
    return Status::ok();
  return Status::error(path + "." + key +
                       ": expected a non-negative integer, found " +
                       it->dump());
}

Status addRank(Layout &l, int rank, int server, int device,
               const std::string &deviceIp, const std::string &path) {
  if (device > 1023)
    return Status::error(path + ".device_id: expected 0..1023, found " +
                         std::to_string(device));
  if (!l.devicesOf[server].insert(device).second)
    return Status::error(path + ".device_id: duplicate device " +
                         std::to_string(device) + " on server '" +
                         l.serverIds[static_cast<size_t>(server)] + "'");
  if (!l.ranks.emplace(rank, Layout::Rank{server, deviceIp}).second)
    return Status::error(path + ".rank_id: rank " + std::to_string(rank) +
                         " appears twice in the rank table");
  return Status::ok();
}

Status setHostIp(Layout &l, int server, const std::string &ip,
                 const std::string &path) {
  if (!isIpLiteral(ip))
    return Status::error(path + ": '" + ip +
                         "' is not an IPv4 or IPv6 address");
  std::string &slot = l.hostIps[static_cast<size_t>(server)];
  if (!slot.empty() && slot != ip)
    return Status::error(path + ": server '" +
                         l.serverIds[static_cast<size_t>(server)] +
                         "' has two host addresses, " + slot + " and " + ip);
  slot = ip;
  return Status::ok();
}

/// Versions 1.0 and 1.2.
Status readServerList(const json &j, const std::string &version, Layout &l) {
  std::string serverCount;
  if (Status s = str(j, "server_count", "rank table", serverCount); !s)
    return s;
  int nServers = 0;
  if (!parseIndex(serverCount, nServers) || nServers < 1)
    return Status::error("rank table.server_count: expected a positive "
                         "integer string, found \"" +
                         serverCount + "\"");
  auto list = j.find("server_list");
  if (list == j.end() || !list->is_array())
    return Status::error("rank table.server_list: missing or not an array");
  if (static_cast<int>(list->size()) != nServers)
    return Status::error("rank table.server_list: server_count says " +
                         std::to_string(nServers) + " servers, list holds " +
                         std::to_string(list->size()));
  for (size_t si = 0; si < list->size(); ++si) {
    const json &srv = (*list)[si];
    std::string path = "rank table.server_list[" + std::to_string(si) + "]";
    if (!srv.is_object())
      return Status::error(path + ": expected an object");
    std::string sid, hostIp;
    if (Status s = str(srv, "server_id", path, sid); !s)
      return s;
    if (sid.empty() || sid.size() > 64)
      return Status::error(path + ".server_id: expected 1..64 characters");
    if (l.serverIndex.count(sid))
      return Status::error(path + ".server_id: duplicate server '" + sid + "'");
    int server = l.server(sid);
    if (Status s = str(srv, "host_ip", path, hostIp, false); !s)
      return s;
    if (!hostIp.empty())
      if (Status s = setHostIp(l, server, hostIp, path + ".host_ip"); !s)
        return s;
    auto devs = srv.find("device");
    if (devs == srv.end() || !devs->is_array() || devs->empty())
      return Status::error(path + ".device: missing, empty or not an array");
    for (size_t di = 0; di < devs->size(); ++di) {
      const json &d = (*devs)[di];
      std::string dpath = path + ".device[" + std::to_string(di) + "]";
      if (!d.is_object())
        return Status::error(dpath + ": expected an object");
      std::string devId, rankId, ip, superId;
      if (Status s = str(d, "device_id", dpath, devId); !s)
        return s;
      if (Status s = str(d, "rank_id", dpath, rankId); !s)
        return s;
      if (Status s = str(d, "device_ip", dpath, ip, false); !s)
        return s;
      int dev = 0, rank = 0;
      if (!parseIndex(devId, dev))
        return Status::error(dpath +
                             ".device_id: expected an integer string "
                             "in 0..1023, found \"" +
                             devId + "\"");
      if (!parseIndex(rankId, rank))
        return Status::error(dpath +
                             ".rank_id: expected a non-negative "
                             "integer string, found \"" +
                             rankId + "\"");
      if (version == "1.2") {
        if (Status s = str(d, "super_device_id", dpath, superId, false); !s)
          return s;
        int unused;
        if (!superId.empty() && !parseIndex(superId, unused))
          return Status::error(dpath +
                               ".super_device_id: expected an integer "
                               "string, found \"" +
                               superId + "\"");
      }
      if (Status s = addRank(l, rank, server, dev, ip, dpath); !s)
        return s;
    }
  }
  if (version == "1.2" && j.contains("super_pod_list")) {
    const json &pods = j["super_pod_list"];
    if (!pods.is_array())
      return Status::error("rank table.super_pod_list: expected an array");
    std::map<size_t, int> dense;
    for (size_t pi = 0; pi < pods.size(); ++pi) {
      std::string path =
          "rank table.super_pod_list[" + std::to_string(pi) + "]";
      const json &pod = pods[pi];
      std::string podId;
      if (!pod.is_object())
        return Status::error(path + ": expected an object");
      if (Status s = str(pod, "super_pod_id", path, podId); !s)
        return s;
      auto servers = pod.find("server_list");
      if (servers == pod.end() || !servers->is_array())
        return Status::error(path + ".server_list: missing or not an array");
      for (size_t k = 0; k < servers->size(); ++k) {
        std::string spath = path + ".server_list[" + std::to_string(k) + "]";
        std::string sid;
        if (!(*servers)[k].is_object())
          return Status::error(spath + ": expected an object");
        if (Status s = str((*servers)[k], "server_id", spath, sid); !s)
          return s;
        auto at = l.serverIndex.find(sid);
        if (at == l.serverIndex.end())
          return Status::error(spath + ".server_id: server '" + sid +
                               "' is not in server_list");
        l.serverPod.resize(l.serverIds.size(), -1);
        int &podOf = l.serverPod[static_cast<size_t>(at->second)];
        if (podOf >= 0)
          return Status::error(spath + ".server_id: server '" + sid +
                               "' is in two super pods");
        // Pods numbered densely in list order (an empty pod gets none).
        if (dense.count(pi) == 0)
          dense.emplace(pi, static_cast<int>(dense.size()));
        podOf = dense[pi];
      }
    }
    l.serverPod.resize(l.serverIds.size(), -1);
    for (size_t s = 0; s < l.serverPod.size(); ++s)
      if (l.serverPod[s] < 0)
        return Status::error("rank table.super_pod_list: server '" +
                             l.serverIds[s] + "' is in no super pod");
  }
  return Status::ok();
}

/// Version 2.0.
Status readRankList(const json &j, Layout &l) {
  int count = 0;
  if (Status s = index(j, "rank_count", "rank table", count); !s)
    return s;
  auto list = j.find("rank_list");
  if (list == j.end() || !list->is_array() || list->empty())
    return Status::error("rank table.rank_list: missing, empty or not an "
                         "array");
  if (static_cast<int>(list->size()) != count)
    return Status::error("rank table.rank_list: rank_count says " +
                         std::to_string(count) + " ranks, list holds " +
                         std::to_string(list->size()));
  for (size_t i = 0; i < list->size(); ++i) {
    const json &e = (*list)[i];
    std::string path = "rank table.rank_list[" + std::to_string(i) + "]";
    if (!e.is_object())
      return Status::error(path + ": expected an object");
    int rank = 0, dev = 0;
    if (Status s = index(e, "rank_id", path, rank); !s)
      return s;
    if (Status s = index(e, "device_id", path, dev); !s)
      return s;
    auto levels = e.find("level_list");
    if (levels == e.end() || !levels->is_array() || levels->empty())
      return Status::error(path + ".level_list: missing, empty or not an "
                                  "array");
    // The lowest layer names the server; its first IP is the device's.
    int lowest = -1;
    std::string server, deviceIp, hostIp;
    for (size_t k = 0; k < levels->size(); ++k) {
      const json &lv = (*levels)[k];
      std::string lpath = path + ".level_list[" + std::to_string(k) + "]";
      if (!lv.is_object())
        return Status::error(lpath + ": expected an object");
      int layer = 0;
      if (Status s = index(lv, "net_layer", lpath, layer); !s)
        return s;
      std::string inst;
      if (Status s = str(lv, "net_instance_id", lpath, inst); !s)
        return s;
      auto addrs = lv.find("rank_addr_list");
      std::string firstIp;
      if (addrs != lv.end()) {
        if (!addrs->is_array())
          return Status::error(lpath + ".rank_addr_list: expected an array");
        for (size_t a = 0; a < addrs->size(); ++a) {
          const json &ad = (*addrs)[a];
          std::string apath =
              lpath + ".rank_addr_list[" + std::to_string(a) + "]";
          if (!ad.is_object())
            return Status::error(apath + ": expected an object");
          std::string type, addr;
          if (Status s = str(ad, "addr_type", apath, type); !s)
            return s;
          if (Status s = str(ad, "addr", apath, addr); !s)
            return s;
          if (type != "IPV4" && type != "IPV6")
            continue; // EID: a UB address, nothing the host can reach
          if (!isIpLiteral(addr))
            return Status::error(apath + ".addr: '" + addr + "' is not an " +
                                 type + " address");
          if (firstIp.empty())
            firstIp = addr;
          bool hostNic = false;
          if (ad.contains("ports") && ad["ports"].is_array())
            for (const json &p : ad["ports"])
              hostNic =
                  hostNic || (p.is_string() && p.get<std::string>() == "d2h");
          if (hostNic && hostIp.empty())
            hostIp = addr;
        }
      }
      if (lowest < 0 || layer < lowest) {
        lowest = layer;
        server = inst;
        deviceIp = firstIp;
      }
    }
    if (server.empty())
      return Status::error(path + ".level_list: the lowest layer's "
                                  "net_instance_id is empty");
    int s = l.server(server);
    if (!hostIp.empty())
      if (Status st = setHostIp(l, s, hostIp, path + " (d2h address)"); !st)
        return st;
    if (Status st = addRank(l, rank, s, dev, deviceIp, path); !st)
      return st;
  }
  return Status::ok();
}

/// The group_list form.
Status readGroupList(const json &j, Layout &l) {
  const json &groups = j["group_list"];
  if (!groups.is_array() || groups.empty())
    return Status::error("rank table.group_list: empty or not an array");
  // The world group if named, else the first.
  size_t gi = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!groups[i].is_object())
      continue;
    auto name = groups[i].find("group_name");
    if (name == groups[i].end())
      continue;
    if (!name->is_string())
      return Status::error("rank table.group_list[" + std::to_string(i) +
                           "].group_name: expected a string");
    if (*name == "hccl_world_group")
      gi = i;
  }
  const json &g = groups[gi];
  std::string path = "rank table.group_list[" + std::to_string(gi) + "]";
  if (!g.is_object())
    return Status::error(path + ": expected an object");
  auto insts = g.find("instance_list");
  if (insts == g.end() || !insts->is_array() || insts->empty())
    return Status::error(path + ".instance_list: missing, empty or not an "
                                "array");
  std::string instCount, devCount;
  if (Status s = str(g, "instance_count", path, instCount, false); !s)
    return s;
  if (Status s = str(g, "device_count", path, devCount, false); !s)
    return s;
  int next = 0, devices = 0;
  for (size_t i = 0; i < insts->size(); ++i) {
    const json &in = (*insts)[i];
    std::string ipath = path + ".instance_list[" + std::to_string(i) + "]";
    if (!in.is_object())
      return Status::error(ipath + ": expected an object");
    std::string sid, rankId;
    if (Status s = str(in, "server_id", ipath, sid); !s)
      return s;
    if (sid.empty())
      return Status::error(ipath + ".server_id: empty");
    int server = l.server(sid);
    if (Status s = str(in, "rank_id", ipath, rankId, false); !s)
      return s;
    int base = next;
    if (!rankId.empty() && !parseIndex(rankId, base))
      return Status::error(ipath +
                           ".rank_id: expected a non-negative "
                           "integer string, found \"" +
                           rankId + "\"");
    auto devs = in.find("devices");
    if (devs == in.end() || !devs->is_array() || devs->empty())
      return Status::error(ipath + ".devices: missing, empty or not an "
                                   "array");
    for (size_t d = 0; d < devs->size(); ++d) {
      const json &dv = (*devs)[d];
      std::string dpath = ipath + ".devices[" + std::to_string(d) + "]";
      if (!dv.is_object())
        return Status::error(dpath + ": expected an object");
      std::string devId, ip;
      if (Status s = str(dv, "device_id", dpath, devId); !s)
        return s;
      if (Status s = str(dv, "device_ip", dpath, ip, false); !s)
        return s;
      int dev = 0;
      if (!parseIndex(devId, dev))
        return Status::error(dpath +
                             ".device_id: expected an integer "
                             "string, found \"" +
                             devId + "\"");
      int rank = base + static_cast<int>(d);
      if (Status s = addRank(l, rank, server, dev, ip, dpath); !s)
        return s;
      ++devices;
      next = rank + 1;
    }
  }
  int n = 0;
  if (!instCount.empty() &&
      (!parseIndex(instCount, n) || n != static_cast<int>(insts->size())))
    return Status::error(path + ".instance_count: says \"" + instCount +
                         "\", instance_list holds " +
                         std::to_string(insts->size()));
  if (!devCount.empty() && (!parseIndex(devCount, n) || n != devices))
    return Status::error(path + ".device_count: says \"" + devCount +
                         "\", the instances hold " + std::to_string(devices) +
                         " devices");
  return Status::ok();
}

} // namespace

Result<Topology> Topology::fromRankTable(std::string_view rankTable,
                                         std::string_view linkParams) {
  json j;
  if (Status s = jsonread::parseObject(rankTable, "rank table", j); !s)
    return R(s);
  if (j.contains("status")) {
    std::string status;
    if (Status s = str(j, "status", "rank table", status); !s)
      return R(s);
    if (status != "completed")
      return R::error("rank table.status: expected \"completed\", found \"" +
                      status + "\"");
  }
  Layout l;
  if (j.contains("group_list") && !j.contains("version")) {
    if (Status s = readGroupList(j, l); !s)
      return R(s);
  } else {
    std::string version;
    if (Status s = str(j, "version", "rank table", version); !s)
      return R(s);
    Status s;
    if (version == "1.0" || version == "1.2")
      s = readServerList(j, version, l);
    else if (version == "2.0")
      s = readRankList(j, l);
    else
      return R::error("rank table.version: unsupported version '" + version +
                      "' (expected \"1.0\", \"1.2\" or \"2.0\", or the "
                      "group_list form)");
    if (!s)
      return R(s);
  }
  int world = static_cast<int>(l.ranks.size());
  if (l.ranks.rbegin()->first != world - 1)
    return R::error("rank table: rank ids must be 0.." +
                    std::to_string(world - 1) + " without gaps; highest is " +
                    std::to_string(l.ranks.rbegin()->first));
  Topology t = *preset("910b-8");
  t.name.clear();
  t.servers = static_cast<int>(l.serverIds.size());
  size_t maxDevices = 0;
  for (auto &kv : l.devicesOf)
    maxDevices = std::max(maxDevices, kv.second.size());
  t.devicesPerServer = static_cast<int>(maxDevices);
  t.serverIds = l.serverIds;
  t.hostIps = l.hostIps;
  for (auto &[rank, info] : l.ranks) {
    t.rankServer.push_back(info.server);
    t.deviceIps.push_back(info.deviceIp);
  }
  if (t.isUniformServerMajor())
    t.rankServer.clear();
  if (!l.serverPod.empty()) {
    // Pods of one size in server order become podServers (what
    // #comm.topology can carry); any other grouping stays a map.
    t.scaleUp = preset("910d-8x1-pod1")->scaleUp;
    t.serverPod = l.serverPod;
    const int size = static_cast<int>(
        std::count(l.serverPod.begin(), l.serverPod.end(), l.serverPod[0]));
    bool uniform = true;
    for (size_t s = 0; s < l.serverPod.size(); ++s)
      uniform &= l.serverPod[s] == static_cast<int>(s) / size;
    if (uniform) {
      t.podServers = size;
      t.serverPod.clear();
    }
  }
  if (!linkParams.empty())
    if (Status s = t.applyLinkParams(linkParams); !s)
      return R(s);
  if (Status s = t.validate(); !s)
    return R(s);
  return t;
}

} // namespace hccl::sched
