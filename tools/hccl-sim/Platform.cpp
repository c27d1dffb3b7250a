//===- Platform.cpp - A topology as a SimGrid platform --------------------===//
#include "Platform.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

namespace hccl::sim {

using sched::Result;
using sched::Topology;

namespace {

// The shortest decimal that reads back as the same double.
std::string num(double v) {
  char buf[64];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

std::string hostName(int g) { return "r" + std::to_string(g); }
std::string hccsName(int a, int b) {
  return "hccs-" + std::to_string(a) + "-" + std::to_string(b);
}
std::string nicUp(int g) { return "nic-up-" + std::to_string(g); }
std::string nicDown(int g) { return "nic-down-" + std::to_string(g); }
std::string backupHost(int g) { return "b" + std::to_string(g); }
std::string ubUp(int g) { return "ub-up-" + std::to_string(g); }
std::string ubDown(int g) { return "ub-down-" + std::to_string(g); }

} // namespace

const SimLink *PlatformSpec::findLink(const std::string &name) const {
  for (const SimLink &l : links)
    if (l.name == name)
      return &l;
  return nullptr;
}

std::vector<std::string> faultLinks(const LinkFault &f, const Topology &topo) {
  if (f.where == LinkFault::Where::Nic)
    return {nicUp(f.a), nicDown(f.a)};
  if (f.where == LinkFault::Where::Ub)
    return {ubUp(f.a), ubDown(f.a)};
  return {hccsName(f.a, f.b), hccsName(f.b, f.a)};
}

Result<PlatformSpec> buildPlatform(const Topology &topo,
                                   const FabricOptions &fabric,
                                   const std::vector<LinkFault> &faults,
                                   bool borrowNic) {
  using R = Result<PlatformSpec>;
  if (sched::Status s = topo.validate(); !s)
    return R(s);
  if (topo.intraShape != sched::IntraShape::FullMesh)
    return R::error("topology: servers wired as a ring are not simulated "
                    "(only the full mesh of the 910B presets)");
  if (fabric.levels != 2 && fabric.levels != 3)
    return R::error("--fabric-levels: expected 2 or 3, found " +
                    std::to_string(fabric.levels));
  const int world = topo.worldSize();
  PlatformSpec spec;
  const double reduce = topo.reduceGBps;
  spec.hostSpeed = reduce * 1e9;
  // Ranks of each server, in rank order.
  std::vector<std::vector<int>> servers(static_cast<size_t>(topo.servers));
  for (int g = 0; g < world; ++g) {
    int s = topo.serverOf(g);
    if (s < 0 || s >= topo.servers)
      return R::error("topology: rank " + std::to_string(g) +
                      " lies on no server");
    servers[static_cast<size_t>(s)].push_back(g);
    spec.hosts.push_back(hostName(g));
  }
  std::map<std::string, size_t> linkIndex;
  auto addLink = [&](const std::string &name, double GBps, double us) {
    linkIndex[name] = spec.links.size();
    spec.links.push_back({name, GBps * 1e9, us / 1e6});
  };
  const sched::LinkParams &in = topo.intra, &out = topo.inter;
  // Dijkstra weighs an edge by its links. With rails an HCCS edge weighs
  // 3: a detour over a peer (3 + its NIC + a rail) then never beats the 4
  // hops over the spine, and the NIC path between two NPUs of one server
  // (different rails: 4 hops) never beats the HCCS link. Without rails a
  // port-limited HCCS edge weighs 3 (tx, link, rx), so the NIC's up edge
  // is padded to 3: the path through the server's leaf (3 + 1) stays
  // longer than HCCS, and every route between servers pays it once.
  std::map<std::pair<int, int>, size_t> hccsEdgeIndex;
  bool portLimitedAny = false;
  for (const std::vector<int> &srv : servers)
    portLimitedAny |= in.ports < static_cast<int>(srv.size()) - 1;
  const bool padHccs = fabric.rails && topo.servers > 1;
  // Super pods: an NPU's scale-up port (up edge 5 links, down 1) into its
  // pod's switch. The NIC's up edge then weighs 6, so a pod's route (6)
  // beats its NICs' (at least 7), a server's HCCS link (1 or 3) beats the
  // pod's, and a route between pods never detours over the pod's switch to
  // a peer's NIC (6 + 6 + 1 against at most 6 + 4 + 1).
  std::vector<std::vector<int>> pods;
  for (int s = 0; topo.hasPods() && s < topo.servers; ++s) {
    int p = topo.podOfServer(s);
    if (p >= static_cast<int>(pods.size()))
      pods.resize(static_cast<size_t>(p) + 1);
    pods[static_cast<size_t>(p)].push_back(s);
  }
  const bool scaleUp =
      std::any_of(pods.begin(), pods.end(),
                  [](const std::vector<int> &pod) { return pod.size() > 1; });
  const bool padNic = !fabric.rails && portLimitedAny && topo.servers > 1;
  const int nicPads = scaleUp ? 5 : padNic ? 2 : 0;
  // The padding of one edge: two links of its own, 10^15 B/s and no
  // latency, which only the edge's flows cross, so they never bind. Not
  // shared FATPIPE links: SimGrid 3.32's max-min solver then held every
  // flow through one such link to one rate (every HCCS flow of a rail
  // fabric moved at the slowest one's pace).
  auto padded = [&](const std::string &link, int pads = 2) {
    std::vector<std::string> out{link};
    for (int i = 0; i < pads; ++i) {
      std::string pad = link + "-pad" + std::to_string(i);
      linkIndex[pad] = spec.links.size();
      spec.links.push_back({pad, 1e15, 0});
      out.push_back(pad);
    }
    return out;
  };
  // Intra server: a directed link per ordered pair; a device with fewer
  // ports than peers also gets a send and a receive port link of `ports`
  // links' bandwidth that its transfers share (as the cost model's ports).
  // Where the receiver copies (shared memory) sends share no port: a pad
  // stands in for the send port, so the edge still weighs 3.
  const bool senderFree = in.receiverCopies();
  for (const std::vector<int> &srv : servers) {
    bool portLimited = in.ports < static_cast<int>(srv.size()) - 1;
    for (int a : srv) {
      if (portLimited) {
        if (!senderFree)
          addLink("tx-" + std::to_string(a), in.bandwidthGBps * in.ports, 0);
        addLink("rx-" + std::to_string(a), in.bandwidthGBps * in.ports, 0);
      }
      for (int b : srv)
        if (a != b)
          addLink(hccsName(a, b), in.bandwidthGBps, in.latencyUs);
    }
    for (int a : srv)
      for (int b : srv) {
        if (a == b)
          continue;
        SimEdge e{hostName(a), hostName(b), {hccsName(a, b)}};
        if (portLimited && senderFree) {
          e.links = padded(hccsName(a, b), 1);
          e.links.push_back("rx-" + std::to_string(b));
        } else if (portLimited) // already 3 links
          e.links = {"tx-" + std::to_string(a), hccsName(a, b),
                     "rx-" + std::to_string(b)};
        else if (padHccs)
          e.links = padded(hccsName(a, b));
        if (borrowNic) // the backup hosts' routes start with it
          hccsEdgeIndex[{a, b}] = spec.edges.size();
        spec.edges.push_back(std::move(e));
      }
  }
  // The links of the HCCS edge a -> b, as the routes use them.
  auto hccsEdge = [&](int a, int b) {
    return spec.edges[hccsEdgeIndex.at({a, b})].links;
  };
  // A pod's scale-up bus: each NPU's port (its links' bandwidth together,
  // the latency on the way up) into the pod's switch, non-blocking; the
  // simulation caps each message at one link's bandwidth (ScaleUpTable).
  const sched::LinkParams &up = topo.scaleUp;
  for (size_t p = 0; p < pods.size(); ++p) {
    if (pods[p].size() < 2)
      continue;
    std::string sw = "ub" + std::to_string(p);
    spec.routers.push_back(sw);
    for (int s : pods[p])
      for (int g : servers[static_cast<size_t>(s)]) {
        addLink(ubUp(g), up.bandwidthGBps * up.ports, up.latencyUs);
        addLink(ubDown(g), up.bandwidthGBps * up.ports, 0);
        spec.edges.push_back({hostName(g), sw, padded(ubUp(g), 4)});
        spec.edges.push_back({sw, hostName(g), {ubDown(g)}});
      }
  }
  std::vector<std::string> leafOf(static_cast<size_t>(world));
  std::ostringstream sum;
  sum << topo.servers << " server(s) x " << topo.devicesPerServer
      << " NPUs, intra " << in.bandwidthGBps << " GB/s " << in.latencyUs
      << " us per link";
  if (topo.servers > 1) {
    // NICs into leaf switches; tiers above aggregated per switch. Leaves
    // of a rail fabric are numbered group-major (group * rails + rail), so
    // a pod holds the rails of consecutive groups.
    int rails = 1;
    for (const std::vector<int> &srv : servers)
      rails = std::max(rails, static_cast<int>(srv.size()));
    const int perLeaf =
        fabric.serversPerLeaf > 0
            ? fabric.serversPerLeaf
            : std::max(1, 32 / (fabric.rails ? 1 : topo.devicesPerServer));
    const int groups = (topo.servers + perLeaf - 1) / perLeaf;
    const int leaves = fabric.rails ? groups * rails : groups;
    const bool third = fabric.levels == 3 && leaves > 1;
    const int perPod = third ? fabric.leavesPerPod : leaves;
    const int pods = (leaves + perPod - 1) / perPod;
    const double ratio = fabric.oversubscription;
    std::vector<double> leafDownGBps(static_cast<size_t>(leaves), 0);
    for (int s = 0; s < topo.servers; ++s) {
      const std::vector<int> &srv = servers[static_cast<size_t>(s)];
      for (size_t i = 0; i < srv.size(); ++i) {
        int g = srv[i];
        int l = fabric.rails ? (s / perLeaf) * rails + static_cast<int>(i)
                             : s / perLeaf;
        std::string leaf = "leaf" + std::to_string(l);
        leafOf[static_cast<size_t>(g)] = leaf;
        addLink(nicUp(g), out.bandwidthGBps, out.latencyUs);
        addLink(nicDown(g), out.bandwidthGBps, 0);
        SimEdge up{hostName(g), leaf, padded(nicUp(g), nicPads)};
        spec.edges.push_back(std::move(up));
        spec.edges.push_back({leaf, hostName(g), {nicDown(g)}});
        leafDownGBps[static_cast<size_t>(l)] += out.bandwidthGBps;
      }
    }
    for (int l = 0; l < leaves; ++l)
      spec.routers.push_back("leaf" + std::to_string(l));
    // Switches above one tier: spine (2 levels) or pods then core.
    auto uplinks = [&](const std::string &lower, const std::string &upper,
                       double GBps) {
      addLink(lower + "-up", GBps, 0);
      addLink(lower + "-down", GBps, 0);
      spec.edges.push_back({lower, upper, {lower + "-up"}});
      spec.edges.push_back({upper, lower, {lower + "-down"}});
    };
    std::vector<double> podDownGBps(static_cast<size_t>(pods), 0);
    if (leaves > 1) {
      for (int l = 0; l < leaves; ++l) {
        double up = leafDownGBps[static_cast<size_t>(l)] / ratio;
        std::string upper =
            third ? "pod" + std::to_string(l / perPod) : std::string("spine");
        uplinks("leaf" + std::to_string(l), upper, up);
        podDownGBps[static_cast<size_t>(l / perPod)] += up;
      }
      if (third) {
        for (int p = 0; p < pods; ++p)
          spec.routers.push_back("pod" + std::to_string(p));
        if (pods > 1) {
          spec.routers.push_back("core");
          for (int p = 0; p < pods; ++p)
            uplinks("pod" + std::to_string(p), "core",
                    podDownGBps[static_cast<size_t>(p)] / ratio);
        }
      } else {
        spec.routers.push_back("spine");
      }
    }
    sum << "; NIC " << out.bandwidthGBps << " GB/s " << out.latencyUs
        << " us; ";
    if (fabric.rails)
      sum << "rail-optimised: " << groups << " group(s) of " << perLeaf
          << " servers, " << rails << " rail leaves each";
    else
      sum << "fat tree: " << leaves << " leaf switch(es) of " << perLeaf
          << " servers";
    if (third)
      sum << ", " << pods << " pod(s) of " << perPod << " leaves, a core";
    else if (leaves > 1)
      sum << ", a spine";
    sum << ", oversubscription " << ratio << ":1";
  }
  if (scaleUp)
    sum << "; " << pods.size() << " super pod(s) of " << pods[0].size()
        << " servers, scale-up " << up.bandwidthGBps << " GB/s " << up.latencyUs
        << " us per link, " << up.ports << " per NPU";
  sum << "; reduction " << reduce << " GB/s";
  // Faults: check they name links of this platform, then slow them.
  for (const LinkFault &f : faults) {
    if (f.a >= world || f.b >= world)
      return R::error("fault '" + f.text + "': rank outside 0.." +
                      std::to_string(world - 1));
    for (const std::string &name : faultLinks(f, topo)) {
      auto it = linkIndex.find(name);
      if (it == linkIndex.end())
        return R::error("fault '" + f.text + "': this platform has no link " +
                        name +
                        (f.where == LinkFault::Where::Nic
                             ? " (NICs exist only with more than one server)"
                         : f.where == LinkFault::Where::Ub
                             ? " (bus ports exist only in super pods of more "
                               "than one server)"
                             : " (hccs links join two ranks of one server)"));
      spec.links[it->second].bytesPerSecond *= f.fraction;
    }
    sum << "; " << (f.failed ? "failed " : "slowed ") << f.text;
  }
  if (borrowNic) {
    // HCCL borrows once per communicator, for a NIC that failed, from a
    // backup whose NIC works; then both ends of every pair that crosses
    // servers with the borrower leave through their backups' NICs.
    std::vector<const LinkFault *> failedNics; // one per rank
    for (const LinkFault &f : faults)
      if (f.failed && f.where == LinkFault::Where::Nic &&
          std::none_of(failedNics.begin(), failedNics.end(),
                       [&](const LinkFault *o) { return o->a == f.a; }))
        failedNics.push_back(&f);
    if (failedNics.empty())
      return R::error("--borrow-nic: no NIC failed (--fail-link nic:R), so "
                      "there is nothing to borrow for");
    if (failedNics.size() > 1)
      return R::error("--borrow-nic: HCCL borrows one NIC per communicator; "
                      "failed are " +
                      failedNics[0]->text + " and " + failedNics[1]->text);
    spec.borrower = failedNics[0]->a;
    std::vector<int> backup(static_cast<size_t>(world), -1);
    for (const std::vector<int> &srv : servers)
      if (srv.size() % 2 == 0)
        for (size_t i = 0; i < srv.size(); ++i)
          backup[static_cast<size_t>(srv[i])] = srv[i ^ 1];
    spec.backupHosts.resize(static_cast<size_t>(world));
    for (int g = 0; g < world; ++g) {
      const int b = backup[static_cast<size_t>(g)];
      if (b < 0)
        return R::error("--borrow-nic: rank " + std::to_string(g) +
                        " has no backup NIC (its server has an odd number "
                        "of ranks; backups pair local ranks 2k and 2k+1)");
      if (b == spec.borrower)
        continue; // its backup is the failed NIC: it never switches
      std::vector<std::string> out = hccsEdge(g, b), in = hccsEdge(b, g);
      out.push_back(nicUp(b));
      in.insert(in.begin(), nicDown(b));
      spec.backupHosts[static_cast<size_t>(g)] = backupHost(g);
      spec.edges.push_back(
          {backupHost(g), leafOf[static_cast<size_t>(b)], std::move(out)});
      spec.edges.push_back(
          {leafOf[static_cast<size_t>(b)], backupHost(g), std::move(in)});
    }
    spec.backupRanks = backup;
    sum << "; rank " << spec.borrower << " borrows rank "
        << backup[static_cast<size_t>(spec.borrower)] << "'s NIC";
  }
  spec.summary = sum.str();
  return spec;
}

std::string platformXml(const PlatformSpec &spec) {
  std::ostringstream os;
  os << "<?xml version='1.0'?>\n"
        "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<!-- hccl-sim: "
     << spec.summary
     << " -->\n"
        "<platform version=\"4.1\">\n"
        "<zone id=\"cluster\" routing=\"DijkstraCache\">\n";
  for (const auto *list : {&spec.hosts, &spec.backupHosts})
    for (const std::string &h : *list)
      if (!h.empty())
        os << "  <host id=\"" << h << "\" speed=\"" << num(spec.hostSpeed)
           << "f\"/>\n";
  for (const std::string &r : spec.routers)
    os << "  <router id=\"" << r << "\"/>\n";
  for (const SimLink &l : spec.links)
    os << "  <link id=\"" << l.name << "\" bandwidth=\""
       << num(l.bytesPerSecond) << "Bps\" latency=\"" << num(l.latencySeconds)
       << "s\"/>\n";
  for (const SimEdge &e : spec.edges) {
    os << "  <route src=\"" << e.src << "\" dst=\"" << e.dst
       << "\" symmetrical=\"NO\">";
    for (const std::string &l : e.links)
      os << "<link_ctn id=\"" << l << "\"/>";
    os << "</route>\n";
  }
  os << "</zone>\n</platform>\n";
  return os.str();
}

} // namespace hccl::sim
