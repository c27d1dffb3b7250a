//===- PlanRead.cpp - Reading and validating plan documents ---------------===//
//
// Every value is type-checked before use, so nlohmann never throws on
// access; parsing itself runs without exceptions. Errors read
// "<json path>: <problem>", e.g. "programs[0].phases[1].ops[2].peer:
// column 7: unknown name 'q' (known: r, p, n, s, t, m)".
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Plan.h"

#include "LinkRead.h"

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>

namespace hccl::sched {
namespace {

using json = jsonread::Json;

class Reader {
public:
  const std::string &error() const { return err_; }
  bool fail(const std::string &path, const std::string &msg) {
    if (err_.empty())
      err_ = path + ": " + msg;
    return false;
  }

  // The values themselves: lib/schedule's JSON layer (JsonRead.h), as for
  // graphs, rank tables and link parameters.
  bool object(const json &j, const std::string &path,
              std::initializer_list<const char *> allowed) {
    return check(jsonread::object(j, path, allowed));
  }

  bool integer(const json &v, const std::string &path, int64_t lo, int64_t hi,
               int64_t &out) {
    return check(jsonread::integer(v, path, lo, hi, out));
  }

  bool intField(const json &o, const char *key, const std::string &path,
                int64_t lo, int64_t hi, int64_t &out, bool required) {
    return check(jsonread::intField(o, key, path, lo, hi, out, required));
  }

  bool number(const json &v, const std::string &path, double lo, double &out) {
    return check(jsonread::number(v, path, lo, false, out));
  }

  bool string(const json &o, const char *key, const std::string &path,
              std::string &out, bool required) {
    return check(jsonread::stringField(o, key, path, out, required));
  }

  bool intArray(const json &v, const std::string &path, int64_t lo, int64_t hi,
                std::vector<int64_t> &out) {
    return check(jsonread::intArray(v, path, lo, hi, out));
  }

  // An expression: a string in the compact syntax, or a JSON integer.
  bool expr(ExprPool &pool, const std::vector<std::string> &names,
            const json &v, const std::string &path, ExprId &out) {
    if (v.is_number_integer()) {
      int64_t x;
      if (!integer(v, path, INT64_MIN, INT64_MAX, x))
        return false;
      out = pool.constant(x);
      return true;
    }
    if (!v.is_string())
      return fail(path, std::string("expected an expression string, found ") +
                            v.type_name());
    std::string text = v.get<std::string>();
    auto e = pool.parse(text, names);
    if (!e)
      return fail(path, e.message() + " in \"" + text + "\"");
    out = *e;
    return true;
  }

  bool exprField(ExprPool &pool, const std::vector<std::string> &names,
                 const json &o, const char *key, const std::string &path,
                 ExprId &out, bool required) {
    auto it = o.find(key);
    if (it == o.end())
      return required ? fail(path + "." + key, "missing") : true;
    return expr(pool, names, *it, path + "." + key, out);
  }

  /// Records the error of a shared reader (its message names the path).
  bool check(const Status &s) {
    if (!s && err_.empty())
      err_ = s.message();
    return s.isOk();
  }

private:
  std::string err_;
};

bool readTopology(Reader &rd, const json &j, const std::string &path,
                  Topology &t) {
  if (!rd.object(j, path,
                 {"name", "servers", "devices_per_server", "intra_shape",
                  "intra", "inter", "scaleup", "reduce_gbps",
                  "collective_overhead_us", "collective_wakeup_us",
                  "collective_wakeup_idle_us", "cache_bytes",
                  "past_cache_factor", "compute_steal_us_per_mb", "pod_servers",
                  "server_pod", "rank_server"}))
    return false;
  std::string name;
  if (!rd.string(j, "name", path, name, false))
    return false;
  // A preset name provides the defaults; explicit fields override them.
  if (!name.empty()) {
    auto pre = Topology::preset(name);
    if (pre)
      t = *pre;
    t.name = name;
  }
  int64_t servers = t.servers, dps = t.devicesPerServer;
  if (!rd.intField(j, "servers", path, 1, 1 << 20, servers, false) ||
      !rd.intField(j, "devices_per_server", path, 1, 1 << 20, dps, false))
    return false;
  t.servers = static_cast<int>(servers);
  t.devicesPerServer = static_cast<int>(dps);
  // The link-parameter file's reader, so both accept the same values.
  if (!rd.check(detail::readLinkFields(j, path, t)))
    return false;
  int64_t podServers = t.podServers;
  if (!rd.intField(j, "pod_servers", path, 0, 1 << 20, podServers, false))
    return false;
  t.podServers = static_cast<int>(podServers);
  if (j.contains("server_pod")) {
    std::vector<int64_t> sp;
    if (!rd.intArray(j["server_pod"], path + ".server_pod", 0, t.servers - 1,
                     sp))
      return false;
    t.serverPod.assign(sp.begin(), sp.end());
  }
  if (j.contains("scaleup") && !t.hasPods())
    return rd.fail(path + ".scaleup",
                   "the topology has no super pods (pod_servers or "
                   "server_pod)");
  if (j.contains("rank_server")) {
    std::vector<int64_t> rs;
    if (!rd.intArray(j["rank_server"], path + ".rank_server", 0, t.servers - 1,
                     rs))
      return false;
    t.rankServer.assign(rs.begin(), rs.end());
  }
  if (Status s = t.validate(); !s)
    return rd.fail(path, s.message());
  return true;
}

template <typename T, typename F>
bool enumField(Reader &rd, const json &o, const char *key,
               const std::string &path, T &out, bool required, F parse,
               const std::string &valid) {
  std::string s;
  if (!rd.string(o, key, path, s, required))
    return false;
  if (!o.contains(key))
    return true;
  auto v = parse(s);
  if (!v)
    return rd.fail(path + "." + key,
                   "unknown value '" + s + "' (valid: " + valid + ")");
  out = *v;
  return true;
}

bool readBufRef(Reader &rd, Program &prog, const std::vector<std::string> &nm,
                const json &j, const std::string &path, BufRef &b) {
  if (!rd.object(j, path, {"buffer", "offset"}))
    return false;
  std::string name;
  if (!rd.string(j, "buffer", path, name, true))
    return false;
  auto id = parseBufferId(name);
  if (!id)
    return rd.fail(path + ".buffer", "unknown buffer '" + name +
                                         "' (expected input, output or "
                                         "scratch)");
  b.buf = *id;
  return rd.exprField(prog.pool, nm, j, "offset", path, b.off, true);
}

bool readOp(Reader &rd, Program &prog, const std::vector<std::string> &nm,
            const json &j, const std::string &path, Op &op) {
  if (!rd.object(j, path,
                 {"kind", "when", "repeat", "peer", "dst", "src", "count",
                  "src_stride", "src_n"}))
    return false;
  std::string kind;
  if (!rd.string(j, "kind", path, kind, true))
    return false;
  auto k = parseOpKind(kind);
  if (!k)
    return rd.fail(path + ".kind", "unknown op kind '" + kind +
                                       "' (expected send, recv, recv_reduce, "
                                       "copy or reduce)");
  op.kind = *k;
  bool reduce = op.kind == OpKind::Reduce;
  struct Field {
    const char *key;
    bool wanted;
  } fields[] = {{"peer", opHasPeer(op.kind)},
                {"dst", opHasDst(op.kind)},
                {"src", opHasSrc(op.kind)},
                {"src_stride", reduce},
                {"src_n", reduce}};
  for (const Field &f : fields) {
    bool has = j.contains(f.key);
    if (f.wanted && !has)
      return rd.fail(path + "." + f.key, "missing (required for " + kind + ")");
    if (!f.wanted && has)
      return rd.fail(path + "." + f.key, "not allowed for " + kind);
  }
  if (!rd.exprField(prog.pool, nm, j, "when", path, op.when, false) ||
      !rd.exprField(prog.pool, nm, j, "repeat", path, op.repeat, false) ||
      !rd.exprField(prog.pool, nm, j, "peer", path, op.peer, false) ||
      !rd.exprField(prog.pool, nm, j, "count", path, op.count, true) ||
      !rd.exprField(prog.pool, nm, j, "src_stride", path, op.srcStride,
                    false) ||
      !rd.exprField(prog.pool, nm, j, "src_n", path, op.srcN, false))
    return false;
  if (op.repeat != kNoExpr && prog.pool.uses(op.repeat, ExprVar::T))
    return rd.fail(path + ".repeat", "may not depend on t");
  if (opHasDst(op.kind)) {
    if (!readBufRef(rd, prog, nm, j["dst"], path + ".dst", op.dst))
      return false;
    if (op.dst.buf == BufferId::Input)
      return rd.fail(path + ".dst.buffer",
                     "ops may not write the input buffer");
  }
  if (opHasSrc(op.kind) &&
      !readBufRef(rd, prog, nm, j["src"], path + ".src", op.src))
    return false;
  return true;
}

// One rank of the expanded form, as concrete steps.
struct ExpandedRank {
  int64_t rank = 0;
  std::array<int64_t, kNumBuffers> sizes{};
  std::vector<std::pair<int64_t, int64_t>> stepIds; // (phase, step)
  std::vector<std::vector<ConcreteOp>> steps;
};

bool readExpanded(Reader &rd, const json &j, const std::string &path, int64_t p,
                  ExpandedRank &er) {
  if (!rd.object(j, path, {"rank", "buffers", "steps"}))
    return false;
  if (!rd.intField(j, "rank", path, 0, p - 1, er.rank, true))
    return false;
  auto bit = j.find("buffers");
  if (bit == j.end())
    return rd.fail(path + ".buffers", "missing");
  if (!rd.object(*bit, path + ".buffers", {"input", "output", "scratch"}))
    return false;
  for (int b = 0; b < kNumBuffers; ++b)
    if (!rd.intField(*bit, bufferName(static_cast<BufferId>(b)),
                     path + ".buffers", 0, INT64_MAX, er.sizes[b], true))
      return false;
  auto sit = j.find("steps");
  if (sit == j.end() || !sit->is_array())
    return rd.fail(path + ".steps", "missing or not an array");
  for (size_t si = 0; si < sit->size(); ++si) {
    std::string sp = path + ".steps[" + std::to_string(si) + "]";
    const json &sj = (*sit)[si];
    if (!rd.object(sj, sp, {"phase", "step", "ops"}))
      return false;
    int64_t ph = 0, st = 0;
    if (!rd.intField(sj, "phase", sp, 0, INT32_MAX, ph, true) ||
        !rd.intField(sj, "step", sp, 0, INT64_MAX, st, true))
      return false;
    auto oit = sj.find("ops");
    if (oit == sj.end() || !oit->is_array())
      return rd.fail(sp + ".ops", "missing or not an array");
    std::vector<ConcreteOp> ops;
    for (size_t oi = 0; oi < oit->size(); ++oi) {
      std::string op = sp + ".ops[" + std::to_string(oi) + "]";
      const json &o = (*oit)[oi];
      if (!rd.object(o, op,
                     {"kind", "peer", "link", "dst", "src", "count",
                      "src_stride", "src_n"}))
        return false;
      std::string kind;
      if (!rd.string(o, "kind", op, kind, true))
        return false;
      auto k = parseOpKind(kind);
      if (!k)
        return rd.fail(op + ".kind", "unknown op kind '" + kind + "'");
      ConcreteOp c;
      c.kind = *k;
      c.opIndex = static_cast<uint32_t>(oi);
      bool reduce = c.kind == OpKind::Reduce;
      for (auto [key, wanted] :
           {std::pair<const char *, bool>{"peer", opHasPeer(c.kind)},
            {"link", opHasPeer(c.kind)},
            {"dst", opHasDst(c.kind)},
            {"src", opHasSrc(c.kind)},
            {"src_stride", reduce},
            {"src_n", reduce}}) {
        bool has = o.contains(key);
        bool optional = std::string(key) == "link";
        if (wanted && !has && !optional)
          return rd.fail(op + "." + key, "missing (required for " + kind + ")");
        if (!wanted && has)
          return rd.fail(op + "." + key, "not allowed for " + kind);
      }
      if (o.contains("link")) {
        std::string l;
        if (!rd.string(o, "link", op, l, true))
          return false;
        if (!parseLinkClass(l))
          return rd.fail(op + ".link", "unknown link class '" + l + "'");
      }
      if (!rd.intField(o, "peer", op, 0, p - 1, c.peer, false) ||
          !rd.intField(o, "count", op, 0, INT64_MAX, c.count, true) ||
          !rd.intField(o, "src_stride", op, 0, INT64_MAX, c.srcStride, false) ||
          !rd.intField(o, "src_n", op, 1, INT64_MAX, c.srcN, false))
        return false;
      if (opHasPeer(c.kind) && c.peer == er.rank)
        return rd.fail(op + ".peer", "is the rank itself");
      for (auto [key, isDst] :
           {std::pair<const char *, bool>{"dst", true}, {"src", false}}) {
        if (!o.contains(key))
          continue;
        std::string bp = op + "." + key;
        const json &b = o[key];
        if (!rd.object(b, bp, {"buffer", "offset"}))
          return false;
        std::string name;
        if (!rd.string(b, "buffer", bp, name, true))
          return false;
        auto id = parseBufferId(name);
        if (!id)
          return rd.fail(bp + ".buffer", "unknown buffer '" + name +
                                             "' (expected input, output or "
                                             "scratch)");
        if (isDst && *id == BufferId::Input)
          return rd.fail(bp + ".buffer", "ops may not write the input buffer");
        int64_t off;
        if (!rd.intField(b, "offset", bp, 0, INT64_MAX, off, true))
          return false;
        (isDst ? c.dstBuf : c.srcBuf) = *id;
        (isDst ? c.dstOff : c.srcOff) = off;
      }
      ops.push_back(c);
    }
    er.stepIds.push_back({ph, st});
    er.steps.push_back(std::move(ops));
  }
  return true;
}

bool sameOp(const ConcreteOp &a, const ConcreteOp &b) {
  if (a.kind != b.kind || a.count != b.count)
    return false;
  if (opHasPeer(a.kind) && a.peer != b.peer)
    return false;
  if (opHasDst(a.kind) && (a.dstBuf != b.dstBuf || a.dstOff != b.dstOff))
    return false;
  if (opHasSrc(a.kind) && (a.srcBuf != b.srcBuf || a.srcOff != b.srcOff))
    return false;
  if (a.kind == OpKind::Reduce &&
      (a.srcStride != b.srcStride || a.srcN != b.srcN))
    return false;
  return true;
}

// Builds the compact program equivalent to an expanded-only one: global
// step i becomes a phase of one step whose ops are guarded by r == rank.
void compactFromExpanded(Program &prog, std::vector<ExpandedRank> &ranks) {
  ProgramBuilder b(std::move(prog));
  E r = b.r();
  for (int buf = 0; buf < kNumBuffers; ++buf) {
    std::vector<int64_t> sizes(ranks.size());
    bool same = true;
    for (const ExpandedRank &er : ranks) {
      sizes[er.rank] = er.sizes[buf];
      same &= er.sizes[buf] == ranks[0].sizes[buf];
    }
    E size = same ? b.c(ranks.empty() ? 0 : ranks[0].sizes[buf])
                  : b.tableAt(b.addTable(sizes), r);
    b.setBufferSize(static_cast<BufferId>(buf), size);
  }
  size_t steps = ranks.empty() ? 0 : ranks[0].steps.size();
  for (size_t st = 0; st < steps; ++st) {
    b.addPhase("s" + std::to_string(st), b.c(1));
    for (const ExpandedRank &er : ranks)
      for (const ConcreteOp &c : er.steps[st]) {
        Op op;
        op.kind = c.kind;
        op.when = eq(r, er.rank).id();
        if (opHasPeer(c.kind))
          op.peer = b.c(c.peer).id();
        if (opHasDst(c.kind))
          op.dst = {c.dstBuf, b.c(c.dstOff).id()};
        if (opHasSrc(c.kind))
          op.src = {c.srcBuf, b.c(c.srcOff).id()};
        op.count = b.c(c.count).id();
        if (c.kind == OpKind::Reduce) {
          op.srcStride = b.c(c.srcStride).id();
          op.srcN = b.c(c.srcN).id();
        }
        b.addOp(op);
      }
  }
  prog = b.take();
}

bool readProgram(Reader &rd, const json &j, const std::string &path,
                 PlanProgram &pp) {
  if (!rd.object(j, path,
                 {"id",           "collective", "algorithm", "level0",
                  "level1",       "dtype",      "reduce_op", "ranks",
                  "count",        "root",       "slices",    "input_outer",
                  "output_outer", "group",      "groups",    "params",
                  "tables",       "buffers",    "phases",    "expanded"}))
    return false;
  Program &prog = pp.program;
  if (!rd.string(j, "id", path, pp.id, true))
    return false;
  if (pp.id.empty())
    return rd.fail(path + ".id", "must not be empty");
  if (!enumField(rd, j, "collective", path, prog.collective, true,
                 parseCollective, collectiveNameList()) ||
      !enumField(rd, j, "algorithm", path, prog.algorithm, true, parseAlgorithm,
                 algorithmNameList()) ||
      !enumField(rd, j, "dtype", path, prog.dtype, true, parseDataType,
                 dataTypeNameList()) ||
      !enumField(rd, j, "reduce_op", path, prog.reduceOp, false, parseReduceOp,
                 "sum, prod, max, min"))
    return false;
  bool hier = prog.algorithm == Algorithm::Hierarchical;
  for (const char *lv : {"level0", "level1"})
    if (!hier && j.contains(lv))
      return rd.fail(path + "." + lv,
                     "only allowed when algorithm is hierarchical");
  if (!enumField(rd, j, "level0", path, prog.level0, false, parseAlgorithm,
                 algorithmNameList()) ||
      !enumField(rd, j, "level1", path, prog.level1, false, parseAlgorithm,
                 algorithmNameList()))
    return false;
  if (!rd.intField(j, "ranks", path, 1, kMaxRanks, prog.p, true) ||
      !rd.intField(j, "count", path, 0, kMaxCount, prog.n, true) ||
      !rd.intField(j, "root", path, 0, prog.p - 1, prog.root, false) ||
      !rd.intField(j, "slices", path, 1, 1 << 20, prog.slices, false) ||
      !rd.intField(j, "input_outer", path, 1, kMaxCount, prog.inputOuter,
                   false) ||
      !rd.intField(j, "output_outer", path, 1, kMaxCount, prog.outputOuter,
                   false))
    return false;
  if (Status s = checkBlockLayout(prog.collective, prog.n, prog.inputOuter,
                                  prog.outputOuter);
      !s)
    return rd.fail(
        path + (j.contains("output_outer") ? ".output_outer" : ".input_outer"),
        s.message());
  if (j.contains("group") && j.contains("groups"))
    return rd.fail(path + ".groups",
                   "given with group: a program has one or the other");
  if (j.contains("group")) {
    pp.groups.emplace_back();
    if (!rd.intArray(j["group"], path + ".group", 0, INT32_MAX,
                     pp.groups.back()))
      return false;
  } else if (j.contains("groups")) {
    const json &gj = j["groups"];
    if (!gj.is_array() || gj.empty())
      return rd.fail(path + ".groups",
                     "expected a non-empty array of rank arrays");
    if (static_cast<int64_t>(gj.size()) > kMaxRanks)
      return rd.fail(path + ".groups",
                     "more than " + std::to_string(kMaxRanks) + " groups");
    pp.groups.resize(gj.size());
    for (size_t k = 0; k < gj.size(); ++k)
      if (!rd.intArray(gj[k], path + ".groups[" + std::to_string(k) + "]", 0,
                       INT32_MAX, pp.groups[k]))
        return false;
  }
  // Every group holds p ranks; no rank is in two groups (or twice in one).
  std::set<int64_t> seen;
  for (size_t k = 0; k < pp.groups.size(); ++k) {
    std::string gp = j.contains("group")
                         ? path + ".group"
                         : path + ".groups[" + std::to_string(k) + "]";
    if (static_cast<int64_t>(pp.groups[k].size()) != prog.p)
      return rd.fail(gp, "holds " + std::to_string(pp.groups[k].size()) +
                             " ranks, ranks says " + std::to_string(prog.p));
    for (int64_t g : pp.groups[k])
      if (!seen.insert(g).second)
        return rd.fail(gp, "lists rank " + std::to_string(g) +
                               (k > 0 ? " of an earlier group" : " twice"));
    if (seen.size() > static_cast<size_t>(kMaxRanks))
      return rd.fail(gp, "the groups hold more than " +
                             std::to_string(kMaxRanks) + " ranks");
  }
  if (j.contains("params")) {
    const json &pj = j["params"];
    if (!pj.is_object())
      return rd.fail(path + ".params", "expected an object of integers");
    for (auto it = pj.begin(); it != pj.end(); ++it) {
      int64_t v;
      if (!rd.integer(it.value(), path + ".params." + it.key(), INT64_MIN,
                      INT64_MAX, v))
        return false;
      prog.params.push_back({it.key(), v});
    }
  }
  if (j.contains("tables")) {
    const json &tj = j["tables"];
    if (!tj.is_array())
      return rd.fail(path + ".tables", "expected an array of integer arrays");
    for (size_t i = 0; i < tj.size(); ++i) {
      std::vector<int64_t> t;
      if (!rd.intArray(tj[i], path + ".tables[" + std::to_string(i) + "]",
                       INT64_MIN, INT64_MAX, t))
        return false;
      prog.tables.push_back(std::move(t));
    }
  }
  // Parameter names must be usable in expressions.
  for (const Param &pr : prog.params)
    if (!isValidParamName(pr.name))
      return rd.fail(path + ".params." + pr.name,
                     "not a valid parameter name (an identifier other than "
                     "r, p, n, s, t, min, max, select, tbl<k>)");
  std::vector<std::string> nm = prog.paramNames();

  bool compact = j.contains("phases"), expanded = j.contains("expanded");
  if (!compact && !expanded)
    return rd.fail(path, "needs \"phases\" (compact form), \"expanded\", or "
                         "both");
  if (compact) {
    auto bit = j.find("buffers");
    if (bit == j.end())
      return rd.fail(path + ".buffers", "missing (required with phases)");
    if (!rd.object(*bit, path + ".buffers", {"input", "output", "scratch"}))
      return false;
    for (int b = 0; b < kNumBuffers; ++b)
      if (!rd.exprField(prog.pool, nm, *bit,
                        bufferName(static_cast<BufferId>(b)), path + ".buffers",
                        prog.bufferSize[b], true))
        return false;
    const json &phs = j["phases"];
    if (!phs.is_array())
      return rd.fail(path + ".phases", "expected an array");
    for (size_t pi = 0; pi < phs.size(); ++pi) {
      std::string pp2 = path + ".phases[" + std::to_string(pi) + "]";
      const json &pj = phs[pi];
      if (!rd.object(pj, pp2, {"name", "steps", "ops"}))
        return false;
      Phase ph;
      if (!rd.string(pj, "name", pp2, ph.name, true) ||
          !rd.exprField(prog.pool, nm, pj, "steps", pp2, ph.steps, true))
        return false;
      for (ExprVar v : {ExprVar::R, ExprVar::S, ExprVar::T})
        if (prog.pool.uses(ph.steps, v))
          return rd.fail(pp2 + ".steps",
                         std::string("may not depend on ") + exprVarName(v));
      auto oit = pj.find("ops");
      if (oit == pj.end() || !oit->is_array())
        return rd.fail(pp2 + ".ops", "missing or not an array");
      for (size_t oi = 0; oi < oit->size(); ++oi) {
        Op op;
        if (!readOp(rd, prog, nm, (*oit)[oi],
                    pp2 + ".ops[" + std::to_string(oi) + "]", op))
          return false;
        ph.ops.push_back(op);
      }
      prog.phases.push_back(std::move(ph));
    }
  } else if (j.contains("buffers")) {
    return rd.fail(path + ".buffers", "only allowed with phases (the "
                                      "expanded form lists sizes per rank)");
  }
  if (Status s = prog.validate(); compact && !s)
    return rd.fail(path, s.message());

  if (expanded) {
    const json &ej = j["expanded"];
    if (!ej.is_array())
      return rd.fail(path + ".expanded", "expected an array of ranks");
    std::vector<ExpandedRank> ranks;
    std::set<int64_t> seen;
    for (size_t i = 0; i < ej.size(); ++i) {
      std::string ep = path + ".expanded[" + std::to_string(i) + "]";
      ExpandedRank er;
      if (!readExpanded(rd, ej[i], ep, prog.p, er))
        return false;
      if (!seen.insert(er.rank).second)
        return rd.fail(ep + ".rank",
                       "rank " + std::to_string(er.rank) + " listed twice");
      ranks.push_back(std::move(er));
    }
    if (compact) {
      // Both forms: they must agree.
      for (size_t i = 0; i < ranks.size(); ++i) {
        const ExpandedRank &er = ranks[i];
        std::string ep = path + ".expanded[" + std::to_string(i) + "]";
        auto rp = expandRank(prog, er.rank);
        if (!rp)
          return rd.fail(path, rp.message());
        if (rp->bufferSize != er.sizes)
          return rd.fail(ep + ".buffers", "differ from the compact form");
        if (rp->steps.size() != er.steps.size())
          return rd.fail(ep + ".steps", "holds " +
                                            std::to_string(er.steps.size()) +
                                            " steps, the compact form " +
                                            std::to_string(rp->steps.size()));
        for (size_t st = 0; st < er.steps.size(); ++st) {
          const ConcreteStep &cs = rp->steps[st];
          std::string sp = ep + ".steps[" + std::to_string(st) + "]";
          if (cs.phase != er.stepIds[st].first ||
              cs.step != er.stepIds[st].second)
            return rd.fail(sp, "phase/step differ from the compact form");
          if (cs.numOps != er.steps[st].size())
            return rd.fail(sp + ".ops",
                           "holds " + std::to_string(er.steps[st].size()) +
                               " ops, the compact form " +
                               std::to_string(cs.numOps));
          for (size_t k = 0; k < cs.numOps; ++k)
            if (!sameOp(rp->ops[cs.firstOp + k], er.steps[st][k]))
              return rd.fail(sp + ".ops[" + std::to_string(k) + "]",
                             "differs from the compact form");
        }
      }
    } else {
      if (static_cast<int64_t>(ranks.size()) != prog.p)
        return rd.fail(path + ".expanded",
                       "lists " + std::to_string(ranks.size()) + " of " +
                           std::to_string(prog.p) +
                           " ranks (without phases every rank is needed)");
      for (size_t i = 1; i < ranks.size(); ++i)
        if (ranks[i].steps.size() != ranks[0].steps.size())
          return rd.fail(path + ".expanded[" + std::to_string(i) + "].steps",
                         "holds " + std::to_string(ranks[i].steps.size()) +
                             " steps, rank " + std::to_string(ranks[0].rank) +
                             " holds " + std::to_string(ranks[0].steps.size()));
      compactFromExpanded(prog, ranks);
      if (Status s = prog.validate(); !s)
        return rd.fail(path, s.message());
    }
  }
  return true;
}

bool readSchedule(Reader &rd, const json &j, Plan &plan) {
  const std::string path = "plan";
  if (!rd.object(j, path, {"group", "items"}))
    return false;
  if (!j.contains("group"))
    return rd.fail(path + ".group", "missing");
  if (!rd.intArray(j["group"], path + ".group", 0, INT32_MAX, plan.groupRanks))
    return false;
  std::set<int64_t> members(plan.groupRanks.begin(), plan.groupRanks.end());
  if (members.size() != plan.groupRanks.size())
    return rd.fail(path + ".group", "lists a rank twice");
  auto iit = j.find("items");
  if (iit == j.end() || !iit->is_array())
    return rd.fail(path + ".items", "missing or not an array");
  std::map<int64_t, size_t> open; // id -> item index
  for (size_t i = 0; i < iit->size(); ++i) {
    std::string ip = path + ".items[" + std::to_string(i) + "]";
    const json &it = (*iit)[i];
    if (!it.is_object())
      return rd.fail(ip, "expected an object");
    std::string kind;
    if (!rd.string(it, "kind", ip, kind, true))
      return false;
    PlanItem item;
    if (kind == "compute") {
      item.kind = PlanItemKind::Compute;
      if (!rd.object(it, ip, {"kind", "name", "cost_us"}) ||
          !rd.string(it, "name", ip, item.name, true))
        return false;
      if (!it.contains("cost_us"))
        return rd.fail(ip + ".cost_us", "missing");
      if (!rd.number(it["cost_us"], ip + ".cost_us", 0, item.costUs))
        return false;
    } else if (kind == "start") {
      item.kind = PlanItemKind::Start;
      if (!rd.object(it, ip, {"kind", "id", "program"}) ||
          !rd.intField(it, "id", ip, 0, INT64_MAX, item.id, true) ||
          !rd.string(it, "program", ip, item.program, true))
        return false;
      const PlanProgram *pp = plan.find(item.program);
      if (!pp)
        return rd.fail(ip + ".program",
                       "no program with id '" + item.program + "'");
      if (pp->groups.empty()) {
        if (pp->program.p != static_cast<int64_t>(plan.groupRanks.size()))
          return rd.fail(ip + ".program",
                         "program '" + item.program + "' runs on " +
                             std::to_string(pp->program.p) +
                             " ranks without a group, the plan's group has " +
                             std::to_string(plan.groupRanks.size()));
      } else {
        for (int64_t g : pp->allRanks())
          if (!members.count(g))
            return rd.fail(ip + ".program",
                           "program '" + item.program + "' uses global rank " +
                               std::to_string(g) + ", not in plan.group");
      }
      if (!open.emplace(item.id, i).second)
        return rd.fail(ip + ".id", "collective " + std::to_string(item.id) +
                                       " is already in flight");
    } else if (kind == "wait") {
      item.kind = PlanItemKind::Wait;
      if (!rd.object(it, ip, {"kind", "id"}) ||
          !rd.intField(it, "id", ip, 0, INT64_MAX, item.id, true))
        return false;
      if (!open.erase(item.id))
        return rd.fail(ip + ".id", "waits for collective " +
                                       std::to_string(item.id) +
                                       ", which is not in flight");
    } else {
      return rd.fail(ip + ".kind", "unknown item kind '" + kind +
                                       "' (expected compute, start, wait)");
    }
    plan.items.push_back(std::move(item));
  }
  if (!open.empty())
    return rd.fail(path + ".items[" + std::to_string(open.begin()->second) +
                       "]",
                   "collective " + std::to_string(open.begin()->first) +
                       " is started but never waited for");
  return true;
}

} // namespace

const char *planItemKindName(PlanItemKind k) {
  switch (k) {
  case PlanItemKind::Compute:
    return "compute";
  case PlanItemKind::Start:
    return "start";
  case PlanItemKind::Wait:
    return "wait";
  }
  return "invalid";
}

const std::vector<int64_t> *PlanProgram::groupOf(int64_t g,
                                                 int64_t *groupRank) const {
  for (const std::vector<int64_t> &grp : groups) {
    auto it = std::find(grp.begin(), grp.end(), g);
    if (it == grp.end())
      continue;
    if (groupRank)
      *groupRank = it - grp.begin();
    return &grp;
  }
  return nullptr;
}

std::vector<int64_t> PlanProgram::allRanks() const {
  std::vector<int64_t> all;
  for (const std::vector<int64_t> &grp : groups)
    all.insert(all.end(), grp.begin(), grp.end());
  return all;
}

const PlanProgram *Plan::find(std::string_view id) const {
  for (const PlanProgram &pp : programs)
    if (pp.id == id)
      return &pp;
  return nullptr;
}

Result<Topology> topologyFromJson(std::string_view text,
                                  const std::string &path) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded())
    return Result<Topology>::error(path + ": malformed JSON");
  Reader rd;
  Topology t;
  if (!readTopology(rd, j, path, t))
    return Result<Topology>::error(rd.error());
  return t;
}

Result<Plan> readPlan(std::string_view text) {
  using R = Result<Plan>;
  try {
    json j = json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded())
      return R::error("plan: malformed JSON");
    Reader rd;
    if (!rd.object(j, "plan document",
                   {"format", "version", "topology", "programs", "plan"}))
      return R::error(rd.error());
    std::string format;
    if (!rd.string(j, "format", "plan document", format, true))
      return R::error(rd.error());
    if (format != "hccl-plan")
      return R::error("format: expected \"hccl-plan\", found \"" + format +
                      "\"");
    Plan plan;
    int64_t version = 0;
    if (!rd.intField(j, "version", "plan document", 0, INT32_MAX, version,
                     true))
      return R::error(rd.error());
    if (version != kPlanVersion)
      return R::error("version: unsupported version " +
                      std::to_string(version) + " (this reader knows " +
                      std::to_string(kPlanVersion) + ")");
    plan.version = static_cast<int>(version);
    if (j.contains("topology")) {
      Topology t;
      if (!readTopology(rd, j["topology"], "topology", t))
        return R::error(rd.error());
      plan.topology = t;
    }
    auto pit = j.find("programs");
    if (pit == j.end() || !pit->is_array() || pit->empty())
      return R::error("programs: missing, empty or not an array");
    for (size_t i = 0; i < pit->size(); ++i) {
      PlanProgram pp;
      std::string path = "programs[" + std::to_string(i) + "]";
      if (!readProgram(rd, (*pit)[i], path, pp))
        return R::error(rd.error());
      if (plan.find(pp.id))
        return R::error(path + ".id: duplicate program id '" + pp.id + "'");
      plan.programs.push_back(std::move(pp));
    }
    if (j.contains("plan") && !readSchedule(rd, j["plan"], plan))
      return R::error(rd.error());
    return plan;
  } catch (const std::exception &e) {
    // Defensive: every access above is type-checked first.
    return R::error(std::string("plan: ") + e.what());
  }
}

Result<Plan> readPlanFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Result<Plan>::error(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  auto plan = readPlan(ss.str());
  if (!plan)
    return Result<Plan>::error(path + ": " + plan.message());
  return plan;
}

} // namespace hccl::sched
