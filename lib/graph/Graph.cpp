//===- Graph.cpp - Exported training graphs: read, validate, write --------===//
#include "hccl-mlir/graph/Graph.h"

#include "hccl-mlir/schedule/JsonRead.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace hccl::graph {

using sched::Result;
using sched::Status;
namespace jsonread = sched::jsonread;
using json = jsonread::Json;
using ojson = nlohmann::ordered_json;

namespace {

const char *const kOpNames[] = {"compute",        "all_reduce", "all_gather",
                                "reduce_scatter", "broadcast",  "reduce",
                                "all_to_all"};

std::string quote(const std::string &s) { return "'" + s + "'"; }

/// Reads one JSON document section by section, remembering the path; the
/// values themselves with lib/schedule's JSON layer, as plans are read.
class Reader {
public:
  Status fail(const std::string &path, const std::string &msg) {
    return Status::error(path + ": " + msg);
  }

  Status checkKeys(const json &obj, const std::string &path,
                   std::initializer_list<const char *> allowed) {
    return jsonread::object(obj, path, allowed);
  }

  Status getString(const json &obj, const char *key, const std::string &path,
                   std::string &out, bool required = true) {
    return jsonread::stringField(obj, key, path, out, required);
  }

  Status getInt(const json &v, const std::string &path, int64_t &out,
                int64_t lo = 0) {
    return jsonread::integer(v, path, lo, jsonread::kNoLimit, out);
  }

  Status getNumber(const json &obj, const char *key, const std::string &path,
                   std::optional<double> &out) {
    if (!obj.contains(key))
      return Status::ok();
    double x = 0;
    if (Status s = jsonread::numberField(obj, key, path, 0, false, x, true); !s)
      return s;
    out = x;
    return Status::ok();
  }

  Status getNames(const json &obj, const char *key, const std::string &path,
                  std::vector<std::string> &out, bool required) {
    jsonread::Json::const_iterator it;
    bool present = false;
    if (Status s = jsonread::field(obj, key, path, required, it, present);
        !s || !present)
      return s;
    return jsonread::stringArray(*it, jsonread::join(path, key), out);
  }

  Status readTopology(const json &j, TopologySpec &spec) {
    const std::string path = "topology";
    if (j.is_string()) {
      spec.preset = j.get<std::string>();
    } else if (j.is_object()) {
      if (Status s =
              checkKeys(j, path, {"preset", "rank_table", "link_params"});
          !s)
        return s;
      if (Status s = getString(j, "preset", path, spec.preset, false); !s)
        return s;
      if (j.contains("rank_table")) {
        if (!j["rank_table"].is_object())
          return fail(path + ".rank_table", "expected an object");
        spec.rankTableJson = j["rank_table"].dump();
      }
      if (j.contains("link_params")) {
        if (!j["link_params"].is_object())
          return fail(path + ".link_params", "expected an object");
        spec.linkParamsJson = j["link_params"].dump();
      }
      if (spec.preset.empty() == spec.rankTableJson.empty())
        return fail(path, "give exactly one of 'preset' and 'rank_table'");
    } else {
      return fail(path, "expected a preset name or an object");
    }
    if (!spec.preset.empty()) {
      auto t = sched::Topology::preset(spec.preset);
      if (!t)
        return fail(path, t.message());
      spec.topology = *t;
      if (!spec.linkParamsJson.empty())
        if (Status s = spec.topology.applyLinkParams(spec.linkParamsJson); !s)
          return fail(path, s.message());
    } else {
      auto t = sched::Topology::fromRankTable(spec.rankTableJson,
                                              spec.linkParamsJson);
      if (!t)
        return fail(path, t.message());
      spec.topology = *t;
    }
    return Status::ok();
  }

  Status readGroup(const json &j, const std::string &path, Group &g) {
    if (!j.is_object())
      return fail(path, "expected an object");
    if (Status s = checkKeys(j, path, {"name", "ranks"}); !s)
      return s;
    if (Status s = getString(j, "name", path, g.name); !s)
      return s;
    auto it = j.find("ranks");
    if (it == j.end() || !it->is_array() || it->empty())
      return fail(path + ".ranks", "expected a non-empty array");
    bool nested = (*it)[0].is_array();
    auto readList = [&](const json &list, const std::string &lp,
                        std::vector<int64_t> &out) -> Status {
      if (!list.is_array() || list.empty())
        return fail(lp, "expected a non-empty array of ranks");
      for (size_t i = 0; i < list.size(); ++i) {
        int64_t r;
        if (Status s = getInt(list[i], lp + "[" + std::to_string(i) + "]", r);
            !s)
          return s;
        out.push_back(r);
      }
      return Status::ok();
    };
    if (nested) {
      for (size_t i = 0; i < it->size(); ++i) {
        std::vector<int64_t> sub;
        std::string lp = path + ".ranks[" + std::to_string(i) + "]";
        if (Status s = readList((*it)[i], lp, sub); !s)
          return s;
        if (!g.subgroups.empty() && sub.size() != g.subgroups[0].size())
          return fail(lp, "subgroups must have equal sizes: expected " +
                              std::to_string(g.subgroups[0].size()) +
                              " ranks, found " + std::to_string(sub.size()));
        g.subgroups.push_back(std::move(sub));
      }
    } else {
      std::vector<int64_t> all;
      if (Status s = readList(*it, path + ".ranks", all); !s)
        return s;
      g.subgroups.push_back(std::move(all));
    }
    return Status::ok();
  }

  Status readTensor(const json &j, const std::string &path, Tensor &t) {
    if (!j.is_object())
      return fail(path, "expected an object");
    if (Status s = checkKeys(j, path, {"name", "shape", "dtype"}); !s)
      return s;
    if (Status s = getString(j, "name", path, t.name); !s)
      return s;
    auto sh = j.find("shape");
    if (sh == j.end() || !sh->is_array())
      return fail(path + ".shape", "expected an array of dimension sizes");
    for (size_t i = 0; i < sh->size(); ++i) {
      int64_t d;
      if (Status s =
              getInt((*sh)[i], path + ".shape[" + std::to_string(i) + "]", d);
          !s)
        return s;
      t.shape.push_back(d);
    }
    std::string dt;
    if (Status s = getString(j, "dtype", path, dt); !s)
      return s;
    auto parsed = sched::parseDataType(dt);
    if (!parsed)
      return fail(path + ".dtype", "unknown dtype " + quote(dt) +
                                       " (expected one of " +
                                       sched::dataTypeNameList() + ")");
    t.dtype = *parsed;
    if (t.bytes() < 0)
      return fail(path + ".shape",
                  "tensor too large: its elements or bytes do not fit in a "
                  "64-bit count");
    return Status::ok();
  }

  Status readOp(const json &j, const std::string &path0, Op &op) {
    if (!j.is_object())
      return fail(path0, "expected an object");
    std::string kind;
    if (Status s = getString(j, "op", path0, kind); !s)
      return s;
    auto k = parseOpKind(kind);
    if (!k)
      return fail(path0 + ".op", "unknown op kind " + quote(kind) +
                                     " (expected compute, all_reduce, "
                                     "all_gather, reduce_scatter, broadcast, "
                                     "reduce or all_to_all)");
    op.kind = *k;
    if (Status s = getString(j, "name", path0, op.name); !s)
      return s;
    std::string path = path0 + " (" + op.name + ")";
    if (op.kind == OpKind::Compute) {
      if (Status s = checkKeys(
              j, path,
              {"op", "name", "inputs", "outputs", "time_us", "flops", "bytes"});
          !s)
        return s;
      if (Status s = getNumber(j, "time_us", path, op.timeUs); !s)
        return s;
      if (Status s = getNumber(j, "flops", path, op.flops); !s)
        return s;
      if (Status s = getNumber(j, "bytes", path, op.bytes); !s)
        return s;
      if (!op.timeUs && !op.flops && !op.bytes)
        return fail(path, "a compute op needs 'time_us', or 'flops' and/or "
                          "'bytes' to estimate it");
    } else {
      if (Status s = checkKeys(j, path,
                               {"op", "name", "inputs", "outputs", "group",
                                "reduction", "dim", "root", "split_dim",
                                "concat_dim"});
          !s)
        return s;
      if (Status s = getString(j, "group", path, op.group); !s)
        return s;
      std::string red = "sum";
      if (Status s = getString(j, "reduction", path, red, false); !s)
        return s;
      bool reducing = op.kind == OpKind::AllReduce ||
                      op.kind == OpKind::ReduceScatter ||
                      op.kind == OpKind::Reduce;
      if (j.contains("reduction") && !reducing)
        return fail(path + ".reduction", "only all_reduce, reduce_scatter and "
                                         "reduce take a reduction");
      auto r = sched::parseReduceOp(red);
      if (!r)
        return fail(path + ".reduction", "unknown reduction " + quote(red) +
                                             " (expected sum, prod, max or "
                                             "min)");
      op.reduction = *r;
      struct IntKey {
        const char *key;
        int64_t *out;
        bool allowed;
      } keys[] = {
          {"dim", &op.dim,
           op.kind == OpKind::AllGather || op.kind == OpKind::ReduceScatter},
          {"root", &op.root,
           op.kind == OpKind::Broadcast || op.kind == OpKind::Reduce},
          {"split_dim", &op.splitDim, op.kind == OpKind::AllToAll},
          {"concat_dim", &op.concatDim, op.kind == OpKind::AllToAll},
      };
      for (const IntKey &ik : keys) {
        auto it = j.find(ik.key);
        if (it == j.end())
          continue;
        if (!ik.allowed)
          return fail(path + "." + ik.key,
                      "not a field of " + std::string(kOpNames[int(op.kind)]));
        if (Status s = getInt(*it, path + "." + ik.key, *ik.out); !s)
          return s;
      }
    }
    if (Status s = getNames(j, "inputs", path, op.inputs, true); !s)
      return s;
    if (Status s = getNames(j, "outputs", path, op.outputs, true); !s)
      return s;
    return Status::ok();
  }
};

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return -1;
    n *= d;
  }
  return n;
}

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

/// Shape rules of one collective (mirrors the comm dialect's verifiers).
Status checkCollective(const Graph &g, const Op &op, const std::string &path) {
  const Group *grp = g.findGroup(op.group);
  if (!grp)
    return Status::error(path + ".group: unknown group " + quote(op.group));
  int64_t p = grp->size();
  auto tensor = [&](const std::string &n) { return g.findTensor(n); };
  if (op.kind == OpKind::AllReduce) {
    if (op.inputs.empty() || op.inputs.size() != op.outputs.size())
      return Status::error(path +
                           ": all_reduce needs as many outputs as "
                           "inputs (at least one), found " +
                           std::to_string(op.inputs.size()) + " and " +
                           std::to_string(op.outputs.size()));
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const Tensor *a = tensor(op.inputs[i]), *b = tensor(op.outputs[i]);
      if (a->shape != b->shape || a->dtype != b->dtype)
        return Status::error(path + ".outputs[" + std::to_string(i) +
                             "]: expected the shape and dtype of input " +
                             quote(a->name) + " (" + shapeStr(a->shape) + " " +
                             sched::dataTypeName(a->dtype) + "), found " +
                             shapeStr(b->shape) + " " +
                             sched::dataTypeName(b->dtype));
    }
    return Status::ok();
  }
  if (op.inputs.size() != 1 || op.outputs.size() != 1)
    return Status::error(path +
                         ": expected exactly one input and one "
                         "output, found " +
                         std::to_string(op.inputs.size()) + " and " +
                         std::to_string(op.outputs.size()));
  const Tensor *in = tensor(op.inputs[0]), *out = tensor(op.outputs[0]);
  if (in->dtype != out->dtype)
    return Status::error(
        path + ".outputs[0]: dtype " + sched::dataTypeName(out->dtype) +
        " differs from the input's " + sched::dataTypeName(in->dtype));
  std::vector<int64_t> expected = in->shape;
  int64_t rank = static_cast<int64_t>(in->shape.size());
  auto dimCheck = [&](const char *what, int64_t d) -> Status {
    if (d < 0 || d >= rank)
      return Status::error(path + "." + what + ": " + std::to_string(d) +
                           " is out of range for a rank-" +
                           std::to_string(rank) + " tensor");
    return Status::ok();
  };
  switch (op.kind) {
  case OpKind::AllGather:
    if (Status s = dimCheck("dim", op.dim); !s)
      return s;
    expected[op.dim] *= p;
    break;
  case OpKind::ReduceScatter:
    if (Status s = dimCheck("dim", op.dim); !s)
      return s;
    if (expected[op.dim] % p != 0)
      return Status::error(path + ": input dim " + std::to_string(op.dim) +
                           " (" + std::to_string(expected[op.dim]) +
                           ") is not a multiple of the group size " +
                           std::to_string(p));
    expected[op.dim] /= p;
    break;
  case OpKind::Broadcast:
  case OpKind::Reduce:
    if (op.root < 0 || op.root >= p)
      return Status::error(path + ".root: " + std::to_string(op.root) +
                           " is outside the group (0.." +
                           std::to_string(p - 1) + ")");
    break;
  case OpKind::AllToAll:
    if (Status s = dimCheck("split_dim", op.splitDim); !s)
      return s;
    if (Status s = dimCheck("concat_dim", op.concatDim); !s)
      return s;
    if (expected[op.splitDim] % p != 0)
      return Status::error(
          path + ": split_dim size " + std::to_string(expected[op.splitDim]) +
          " is not a multiple of the group size " + std::to_string(p));
    expected[op.splitDim] /= p;
    expected[op.concatDim] *= p;
    break;
  default:
    break;
  }
  if (out->shape != expected)
    return Status::error(path + ".outputs[0]: expected shape " +
                         shapeStr(expected) + ", found " +
                         shapeStr(out->shape));
  return Status::ok();
}

} // namespace

const char *opKindName(OpKind k) { return kOpNames[static_cast<int>(k)]; }

std::optional<OpKind> parseOpKind(std::string_view s) {
  for (int i = 0; i < 7; ++i)
    if (s == kOpNames[i])
      return static_cast<OpKind>(i);
  return std::nullopt;
}

int64_t Tensor::elements() const { return product(shape); }
int64_t Tensor::bytes() const {
  int64_t n = elements();
  auto size = static_cast<int64_t>(sched::dataTypeSize(dtype));
  if (n < 0 || (n > 0 && size > std::numeric_limits<int64_t>::max() / n))
    return -1;
  return n * size;
}

const Tensor *Graph::findTensor(std::string_view n) const {
  for (const Tensor &t : tensors)
    if (t.name == n)
      return &t;
  return nullptr;
}

const Group *Graph::findGroup(std::string_view n) const {
  for (const Group &g : groups)
    if (g.name == n)
      return &g;
  return nullptr;
}

Status validateGraph(const Graph &g) {
  std::set<std::string> names;
  for (size_t i = 0; i < g.tensors.size(); ++i)
    if (!names.insert(g.tensors[i].name).second)
      return Status::error("tensors[" + std::to_string(i) +
                           "]: duplicate tensor " + quote(g.tensors[i].name));
  std::set<std::string> groupNames;
  int64_t world = g.topology ? g.topology->topology.worldSize() : -1;
  for (size_t i = 0; i < g.groups.size(); ++i) {
    const Group &grp = g.groups[i];
    std::string path = "groups[" + std::to_string(i) + "] (" + grp.name + ")";
    if (!groupNames.insert(grp.name).second)
      return Status::error(path + ": duplicate group name");
    if (grp.subgroups.empty() || grp.size() == 0)
      return Status::error(path + ": empty group");
    std::set<int64_t> seen;
    for (const auto &sub : grp.subgroups)
      for (int64_t r : sub) {
        if (!seen.insert(r).second)
          return Status::error(path + ": rank " + std::to_string(r) +
                               " appears more than once");
        if (r < 0 || (world >= 0 && r >= world))
          return Status::error(path + ": rank " + std::to_string(r) +
                               " is outside the topology's " +
                               std::to_string(world) + " ranks");
      }
  }
  // Execution order: every input exists when its op runs.
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (const std::string &o : g.ops[i].outputs) {
      std::string path =
          "ops[" + std::to_string(i) + "] (" + g.ops[i].name + ")";
      if (!g.findTensor(o))
        return Status::error(path + ": unknown output tensor " + quote(o));
      auto [it, fresh] = producer.emplace(o, i);
      if (!fresh)
        return Status::error(path + ": tensor " + quote(o) +
                             " is already produced by ops[" +
                             std::to_string(it->second) + "]");
    }
  std::set<std::string> inputSet(g.inputs.begin(), g.inputs.end());
  for (const std::string &in : g.inputs) {
    if (!g.findTensor(in))
      return Status::error("inputs: unknown tensor " + quote(in));
    if (producer.count(in))
      return Status::error(
          "inputs: tensor " + quote(in) + " is produced by ops[" +
          std::to_string(producer[in]) + "], it cannot be a graph input");
  }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op &op = g.ops[i];
    std::string path = "ops[" + std::to_string(i) + "] (" + op.name + ")";
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const std::string &in = op.inputs[k];
      std::string ip = path + ".inputs[" + std::to_string(k) + "]";
      if (!g.findTensor(in))
        return Status::error(ip + ": unknown tensor " + quote(in));
      auto it = producer.find(in);
      if (it != producer.end() && it->second >= i)
        return Status::error(
            ip + ": tensor " + quote(in) + " is produced by ops[" +
            std::to_string(it->second) + "] (" + g.ops[it->second].name +
            "), which does not run before this op: the graph has a cycle or "
            "is not in execution order");
      if (it == producer.end() && !g.inputs.empty() && !inputSet.count(in))
        return Status::error(ip + ": tensor " + quote(in) +
                             " is neither produced by an op nor a graph "
                             "input");
    }
    if (op.kind != OpKind::Compute) {
      if (Status s = checkCollective(g, op, path); !s)
        return s;
    } else if (op.outputs.empty()) {
      return Status::error(path + ": a compute op needs at least one output "
                                  "(its results order the schedule)");
    }
  }
  // A graph output is a value: an op's output, or a graph input passed
  // through (listed, or derived from the ops' unproduced inputs).
  std::set<std::string> consumed;
  for (const Op &op : g.ops)
    consumed.insert(op.inputs.begin(), op.inputs.end());
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const std::string &o = g.outputs[k];
    std::string path = "outputs[" + std::to_string(k) + "]";
    if (!g.findTensor(o))
      return Status::error(path + ": unknown tensor " + quote(o));
    bool input =
        g.inputs.empty() ? consumed.count(o) != 0 : inputSet.count(o) != 0;
    if (!producer.count(o) && !input)
      return Status::error(path + ": tensor " + quote(o) +
                           " is neither produced by an op nor a graph input");
  }
  return Status::ok();
}

Result<Graph> parseGraph(std::string_view text) {
  json j;
  if (Status s = jsonread::parseObject(text, "", j); !s)
    return Result<Graph>(s);
  Reader rd;
  Graph g;
  if (Status s =
          rd.checkKeys(j, "",
                       {"format", "version", "name", "topology", "groups",
                        "tensors", "ops", "inputs", "outputs"});
      !s)
    return Result<Graph>(s);
  std::string format;
  if (Status s = rd.getString(j, "format", "", format); !s)
    return Result<Graph>(s);
  if (format != kGraphFormat)
    return Result<Graph>::error("format: expected \"" +
                                std::string(kGraphFormat) + "\", found \"" +
                                format + "\"");
  int64_t version = 0;
  if (Status s = jsonread::intField(j, "version", "", 0, jsonread::kNoLimit,
                                    version, true);
      !s)
    return Result<Graph>(s);
  if (version != kGraphVersion)
    return Result<Graph>::error("version: unsupported version " +
                                std::to_string(version) +
                                " (this reader "
                                "understands " +
                                std::to_string(kGraphVersion) + ")");
  if (Status s = rd.getString(j, "name", "", g.name); !s)
    return Result<Graph>(s);
  if (j.contains("topology")) {
    TopologySpec spec;
    if (Status s = rd.readTopology(j["topology"], spec); !s)
      return Result<Graph>(s);
    g.topology = std::move(spec);
  }
  for (const char *key : {"groups", "tensors", "ops"})
    if (!j.contains(key) || !j[key].is_array())
      return Result<Graph>::error(std::string(key) +
                                  ": missing or not an array");
  const json &groups = j["groups"], &tensors = j["tensors"], &ops = j["ops"];
  for (size_t i = 0; i < groups.size(); ++i) {
    Group grp;
    if (Status s =
            rd.readGroup(groups[i], "groups[" + std::to_string(i) + "]", grp);
        !s)
      return Result<Graph>(s);
    g.groups.push_back(std::move(grp));
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    Tensor t;
    if (Status s =
            rd.readTensor(tensors[i], "tensors[" + std::to_string(i) + "]", t);
        !s)
      return Result<Graph>(s);
    g.tensors.push_back(std::move(t));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    Op op;
    if (Status s = rd.readOp(ops[i], "ops[" + std::to_string(i) + "]", op); !s)
      return Result<Graph>(s);
    g.ops.push_back(std::move(op));
  }
  if (Status s = rd.getNames(j, "inputs", "", g.inputs, false); !s)
    return Result<Graph>(s);
  if (Status s = rd.getNames(j, "outputs", "", g.outputs, false); !s)
    return Result<Graph>(s);
  if (Status s = validateGraph(g); !s)
    return Result<Graph>(s);
  return g;
}

Result<Graph> readGraphFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return Result<Graph>::error(path + ": cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  auto g = parseGraph(ss.str());
  if (!g)
    return Result<Graph>::error(path + ": " + g.message());
  return g;
}

std::string writeGraph(const Graph &g) {
  ojson j;
  j["format"] = kGraphFormat;
  j["version"] = kGraphVersion;
  j["name"] = g.name;
  if (g.topology) {
    const TopologySpec &t = *g.topology;
    if (!t.preset.empty() && t.linkParamsJson.empty()) {
      j["topology"] = t.preset;
    } else {
      ojson to = ojson::object();
      if (!t.preset.empty())
        to["preset"] = t.preset;
      if (!t.rankTableJson.empty())
        to["rank_table"] = ojson::parse(t.rankTableJson);
      if (!t.linkParamsJson.empty())
        to["link_params"] = ojson::parse(t.linkParamsJson);
      j["topology"] = to;
    }
  }
  ojson groups = ojson::array();
  for (const Group &grp : g.groups) {
    ojson o;
    o["name"] = grp.name;
    if (grp.subgroups.size() == 1)
      o["ranks"] = grp.subgroups[0];
    else
      o["ranks"] = grp.subgroups;
    groups.push_back(o);
  }
  j["groups"] = groups;
  ojson tensors = ojson::array();
  for (const Tensor &t : g.tensors) {
    ojson o;
    o["name"] = t.name;
    o["shape"] = t.shape;
    o["dtype"] = sched::dataTypeName(t.dtype);
    tensors.push_back(o);
  }
  j["tensors"] = tensors;
  if (!g.inputs.empty())
    j["inputs"] = g.inputs;
  if (!g.outputs.empty())
    j["outputs"] = g.outputs;
  ojson ops = ojson::array();
  for (const Op &op : g.ops) {
    ojson o;
    o["op"] = opKindName(op.kind);
    o["name"] = op.name;
    if (op.kind == OpKind::Compute) {
      if (op.timeUs)
        o["time_us"] = *op.timeUs;
      if (op.flops)
        o["flops"] = *op.flops;
      if (op.bytes)
        o["bytes"] = *op.bytes;
    } else {
      o["group"] = op.group;
      if (op.kind == OpKind::AllReduce || op.kind == OpKind::ReduceScatter ||
          op.kind == OpKind::Reduce)
        o["reduction"] = sched::reduceOpName(op.reduction);
      if (op.kind == OpKind::AllGather || op.kind == OpKind::ReduceScatter)
        o["dim"] = op.dim;
      if (op.kind == OpKind::Broadcast || op.kind == OpKind::Reduce)
        o["root"] = op.root;
      if (op.kind == OpKind::AllToAll) {
        o["split_dim"] = op.splitDim;
        o["concat_dim"] = op.concatDim;
      }
    }
    o["inputs"] = op.inputs;
    o["outputs"] = op.outputs;
    ops.push_back(o);
  }
  j["ops"] = ops;
  return j.dump(1) + "\n";
}

} // namespace hccl::graph
