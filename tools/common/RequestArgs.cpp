//===- RequestArgs.cpp - Command lines that name a collective -------------===//
#include "RequestArgs.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hccl::tools {

using namespace hccl::sched;

void bad(const std::string &msg) { throw BadInput{msg}; }

std::string oneLine(std::string s) {
  for (char &c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}

std::string Args::get(const std::string &k, const std::string &def) const {
  auto it = opts.find(k);
  return it == opts.end() ? def : it->second;
}

std::string Args::need(const std::string &k) const {
  auto it = opts.find(k);
  if (it == opts.end())
    bad("missing --" + k);
  return it->second;
}

Args parseArgs(int argc, char **argv, int first,
               const std::set<std::string> &valued,
               const std::set<std::string> &flagNames) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "-o")
      s = "--output";
    if (s.rfind("--", 0) == 0) {
      std::string key = s.substr(2), val;
      size_t eq = key.find('=');
      bool inlineVal = eq != std::string::npos;
      if (inlineVal) {
        val = key.substr(eq + 1);
        key = key.substr(0, eq);
      }
      if (flagNames.count(key)) {
        if (inlineVal)
          bad("option --" + key + " takes no value");
        a.flags.insert(key);
        continue;
      }
      if (!valued.count(key))
        bad("unknown option --" + key);
      if (!inlineVal) {
        if (i + 1 >= argc)
          bad("option --" + key + " needs a value");
        val = argv[++i];
      }
      if (a.opts.count(key))
        bad("option --" + key + " given twice");
      a.opts[key] = val;
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

int64_t intArg(const Args &a, const std::string &key, int64_t def, int64_t lo,
               int64_t hi) {
  if (!a.has(key))
    return def;
  std::string v = a.get(key);
  if (!v.empty() && v[0] == '-')
    bad("--" + key + ": negative value '" + v + "'");
  auto x = parseByteSize(v);
  if (!x)
    bad("--" + key + ": not a number: '" + v + "'");
  if (*x < static_cast<uint64_t>(lo) || *x > static_cast<uint64_t>(hi))
    bad("--" + key + ": " + v + " outside " + std::to_string(lo) + ".." +
        std::to_string(hi));
  return static_cast<int64_t>(*x);
}

double realArg(const Args &a, const std::string &key, double def, double lo,
               double hi) {
  if (!a.has(key))
    return def;
  std::string v = a.get(key);
  char *end = nullptr;
  double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x))
    bad("--" + key + ": not a number: '" + v + "'");
  if (x < lo || x > hi) {
    std::ostringstream os;
    os << "--" << key << ": " << v << " outside " << lo << ".." << hi;
    bad(os.str());
  }
  return x;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    bad(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Collective collectiveArg(const Args &a) {
  std::string s = a.need("collective");
  auto c = parseCollective(s);
  if (!c)
    bad("unknown collective '" + s + "' (valid: " + collectiveNameList() + ")");
  return *c;
}

Algorithm algorithmArg(const std::string &key, const std::string &s) {
  auto x = parseAlgorithm(s);
  if (!x)
    bad("--" + key + ": unknown algorithm '" + s +
        "' (valid: " + algorithmNameList() + ", auto)");
  return *x;
}

std::string algoLabel(Algorithm a, Algorithm l0, Algorithm l1) {
  std::string s = algorithmName(a);
  if (a == Algorithm::Hierarchical)
    s += std::string("(") + algorithmName(l0) + "," + algorithmName(l1) + ")";
  return s;
}

Topology topologyArg(const Args &a, int64_t p, bool *given) {
  if (given)
    *given = a.has("topology") || a.has("rank-table");
  if (a.has("topology") && a.has("rank-table"))
    bad("give either --topology or --rank-table, not both");
  if (a.has("rank-table")) {
    std::string links =
        a.has("link-params") ? readFile(a.get("link-params")) : std::string();
    auto t = Topology::fromRankTable(readFile(a.get("rank-table")), links);
    if (!t)
      bad(a.get("rank-table") + ": " + t.message());
    return *t;
  }
  std::string name = a.get("topology");
  if (a.has("link-params") && name.empty())
    bad("--link-params " + a.get("link-params") +
        " needs the topology whose links it measures: give --topology or "
        "--rank-table");
  if (name.empty()) {
    // Default: enough 910B servers for p ranks (beyond the preset's range
    // too: the figures are per server).
    int64_t servers = (p + 7) / 8;
    Topology t = *Topology::preset("910b-8");
    t.servers = static_cast<int>(servers);
    t.name = servers <= 1 ? "910b-8" : "910b-8x" + std::to_string(servers);
    return t;
  }
  auto t = Topology::preset(name);
  if (!t)
    bad(t.message());
  // Measured links (tools/calibrate) replace the preset's figures.
  if (a.has("link-params"))
    if (Status s = t->applyLinkParams(readFile(a.get("link-params"))); !s)
      bad(a.get("link-params") + ": " + s.message());
  return *t;
}

namespace {

/// What a report calls topologyArg's topology: the rank table it came from,
/// the preset's name, or the preset and the --link-params file when those
/// links changed it (which clears its name).
std::string topologyLabel(const Args &a, const Topology &t) {
  if (a.has("rank-table"))
    return "of " + a.get("rank-table");
  if (t.name.empty())
    return a.get("topology") + " with the links of " + a.get("link-params");
  return t.name;
}

} // namespace

Request requestArgs(const Args &a) {
  Request q;
  GenerateRequest &g = q.gen;
  g.collective = collectiveArg(a);
  g.ranks = intArg(a, "ranks", -1, 1, kMaxRanks);
  if (g.ranks < 0)
    bad("missing --ranks");
  if (!a.has("count"))
    bad("missing --count");
  g.count = intArg(a, "count", 0, 0, kMaxCount);
  std::string dt = a.get("dtype", "fp32");
  auto d = parseDataType(dt);
  if (!d)
    bad("unknown dtype '" + dt + "' (valid: " + dataTypeNameList() + ")");
  g.dtype = *d;
  std::string op = a.get("op", "sum");
  auto ro = parseReduceOp(op);
  if (!ro)
    bad("unknown reduction '" + op + "' (valid: sum, prod, max, min)");
  g.reduceOp = *ro;
  g.root = intArg(a, "root", 0, 0, g.ranks - 1);
  g.slices = intArg(a, "slices", 1, 1, 1 << 20);
  g.chunks = intArg(a, "chunks", 0, 0, 1 << 20);
  g.inputOuter = intArg(a, "input-outer", 1, 1, kMaxCount);
  g.outputOuter = intArg(a, "output-outer", 1, 1, kMaxCount);
  if (g.collective == Collective::Permute) {
    if (!a.has("targets")) {
      for (int64_t r = 0; r < g.ranks; ++r)
        g.permuteTargets.push_back((r + 1) % g.ranks);
    } else {
      std::string list = a.get("targets");
      size_t at = 0;
      while (at <= list.size()) {
        size_t comma = std::min(list.find(',', at), list.size());
        std::string item = list.substr(at, comma - at);
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || errno == ERANGE)
          bad("--targets: '" + item + "' is not an integer (expected " +
              std::to_string(g.ranks) +
              " comma-separated targets, -1 for "
              "none)");
        g.permuteTargets.push_back(v);
        at = comma + 1;
      }
    }
  } else if (a.has("targets")) {
    bad("--targets is for --collective permute");
  }
  q.topo = topologyArg(a, g.ranks, &q.topoGiven);
  q.topoLabel = topologyLabel(a, q.topo);
  if (g.ranks > q.topo.worldSize())
    bad("--ranks " + std::to_string(g.ranks) + " exceeds the topology's " +
        std::to_string(q.topo.worldSize()) + " ranks");
  g.ranksPerServer =
      intArg(a, "ranks-per-server", q.topo.devicesPerServer, 1, kMaxRanks);
  if (a.has("level0"))
    g.level0 = algorithmArg("level0", a.get("level0"));
  if (a.has("level1"))
    g.level1 = algorithmArg("level1", a.get("level1"));
  if (a.has("hccl-algo")) {
    auto s = parseHcclAlgo(a.get("hccl-algo"));
    if (!s)
      bad(s.message());
    q.spec = *s;
  }
  return q;
}

Selection selectFor(const Request &q) {
  SelectRequest sr;
  sr.collective = q.gen.collective;
  sr.bytes = static_cast<double>(q.gen.count) *
             static_cast<double>(dataTypeSize(q.gen.dtype));
  sr.p = q.gen.ranks;
  sr.ranksPerServer = q.gen.ranksPerServer;
  sr.override = q.spec ? &*q.spec : nullptr;
  auto sel = selectAlgorithm(sr, q.topo);
  if (!sel)
    bad(sel.message());
  return *sel;
}

void resolveAlgorithm(const Args &a, Request &q) {
  std::string algo =
      a.has("algo") ? a.get("algo") : (q.spec ? std::string("auto") : "");
  if (algo.empty())
    bad("missing --algo");
  if (algo == "auto") {
    Selection s = selectFor(q);
    q.gen.algorithm = s.algorithm;
    q.gen.level0 = s.level0;
    q.gen.level1 = s.level1;
    return;
  }
  if (q.spec)
    bad("--hccl-algo only applies with --algo auto");
  q.gen.algorithm = algorithmArg("algo", algo);
}

} // namespace hccl::tools
