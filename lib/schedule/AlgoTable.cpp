//===- AlgoTable.cpp - Algorithm choices measured elsewhere ---------------===//
#include "hccl-mlir/schedule/AlgoTable.h"

#include "hccl-mlir/schedule/JsonRead.h"

#include <algorithm>

namespace hccl::sched {

using namespace jsonread;

const AlgoTableEntry *AlgoTable::lookup(Collective c, int64_t ranks,
                                        double bytes) const {
  const AlgoTableEntry *best = nullptr, *smallest = nullptr;
  for (const AlgoTableEntry &e : entries) {
    if (e.collective != c || e.ranks != ranks)
      continue;
    if (!smallest || e.bytes < smallest->bytes)
      smallest = &e;
    if (e.bytes <= bytes && (!best || e.bytes > best->bytes))
      best = &e;
  }
  return best ? best : smallest;
}

std::vector<std::pair<double, double>>
AlgoTable::simulatedTimes(Collective c, int64_t ranks) const {
  std::vector<std::pair<double, double>> pts;
  for (const AlgoTableEntry &e : entries) {
    if (e.collective != c || e.ranks != ranks)
      continue;
    if (e.simUs < 0)
      return {};
    pts.emplace_back(e.bytes, e.simUs * 1e-6);
  }
  std::sort(pts.begin(), pts.end());
  return pts;
}

double interpolateTime(const std::vector<std::pair<double, double>> &points,
                       double bytes) {
  if (bytes <= points.front().first || points.size() == 1)
    return points.front().second;
  size_t i = 1;
  while (i + 1 < points.size() && points[i].first < bytes)
    ++i;
  const auto &[b0, t0] = points[i - 1];
  const auto &[b1, t1] = points[i];
  return t0 + (t1 - t0) * (bytes - b0) / (b1 - b0);
}

namespace {

Status algorithmField(const Json &o, const char *key, const std::string &path,
                      Algorithm &out, bool required) {
  std::string name;
  bool had = o.contains(key);
  if (Status s = stringField(o, key, path, name, required); !s)
    return s;
  if (!had)
    return Status::ok();
  std::optional<Algorithm> a = parseAlgorithm(name);
  if (!a)
    return Status::error(join(path, key) + ": unknown algorithm '" + name +
                         "' (expected " + algorithmNameList() + ")");
  out = *a;
  return Status::ok();
}

} // namespace

Result<AlgoTable> parseAlgoTable(std::string_view text) {
  using R = Result<AlgoTable>;
  Json doc;
  if (Status s = parseObject(text, "algorithm table", doc); !s)
    return R(s);
  if (Status s = object(doc, "",
                        {"format", "version", "topology", "source", "entries"});
      !s)
    return R(s);
  std::string format;
  if (Status s = stringField(doc, "format", "", format, true); !s)
    return R(s);
  if (format != "hccl-mlir.algo-table")
    return R::error("format: expected \"hccl-mlir.algo-table\", found \"" +
                    format + "\"");
  int64_t version = 0;
  if (Status s = intField(doc, "version", "", 1, 1, version, true); !s)
    return R(s);
  AlgoTable t;
  if (Status s = stringField(doc, "topology", "", t.topology, true); !s)
    return R(s);
  std::string source;
  if (Status s = stringField(doc, "source", "", source, false); !s)
    return R(s);
  Json::const_iterator it;
  bool present = false;
  if (Status s = field(doc, "entries", "", true, it, present); !s)
    return R(s);
  if (!it->is_array())
    return R::error("entries: expected an array, found " + describe(*it));
  for (size_t i = 0; i < it->size(); ++i) {
    const Json &e = (*it)[i];
    std::string path = at("entries", i);
    if (Status s =
            object(e, path,
                   {"collective", "ranks", "bytes", "algorithm", "level0",
                    "level1", "sim_us", "model_us", "model_algorithm"});
        !s)
      return R(s);
    AlgoTableEntry entry;
    std::string coll;
    if (Status s = stringField(e, "collective", path, coll, true); !s)
      return R(s);
    std::optional<Collective> c = parseCollective(coll);
    if (!c)
      return R::error(join(path, "collective") + ": unknown collective '" +
                      coll + "' (expected " + collectiveNameList() + ")");
    entry.collective = *c;
    if (Status s = intField(e, "ranks", path, 1, 1 << 20, entry.ranks, true);
        !s)
      return R(s);
    if (Status s = numberField(e, "bytes", path, 0, false, entry.bytes, true);
        !s)
      return R(s);
    if (Status s = algorithmField(e, "algorithm", path, entry.algorithm, true);
        !s)
      return R(s);
    // What the tuner saw: sim_us prices buckets (simulatedTimes), the
    // rest is for readers.
    double us = 0;
    std::string label;
    if (Status s = numberField(e, "sim_us", path, 0, false, entry.simUs, false);
        !s)
      return R(s);
    if (Status s = numberField(e, "model_us", path, 0, false, us, false); !s)
      return R(s);
    if (Status s = stringField(e, "model_algorithm", path, label, false); !s)
      return R(s);
    bool hier = entry.algorithm == Algorithm::Hierarchical;
    if (Status s = algorithmField(e, "level0", path, entry.level0, hier); !s)
      return R(s);
    if (Status s = algorithmField(e, "level1", path, entry.level1, hier); !s)
      return R(s);
    for (const AlgoTableEntry &o : t.entries)
      if (o.collective == entry.collective && o.ranks == entry.ranks &&
          o.bytes == entry.bytes)
        return R::error(path + ": a second entry for " + coll + " on " +
                        std::to_string(entry.ranks) + " ranks at " +
                        Json(entry.bytes).dump() + " bytes");
    t.entries.push_back(entry);
  }
  return t;
}

} // namespace hccl::sched
