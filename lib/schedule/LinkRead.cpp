//===- LinkRead.cpp - The one reader of link figures ----------------------===//
//
// The rules: bandwidth and reduction throughput finite and > 0; latency
// finite and >= 0 (a zero-latency link is a legitimate model input, e.g. a
// pure-bandwidth study; the dialect's #comm.link accepts it too); ports an
// integer in 1..64.
//
//===----------------------------------------------------------------------===//
#include "LinkRead.h"

#include <cmath>
#include <utility>

namespace hccl::sched::detail {
namespace {

using namespace jsonread;

Status readLink(const Json &j, const std::string &path, LinkParams &link) {
  if (Status s =
          object(j, path, {"class", "bandwidth_gbps", "latency_us", "ports"});
      !s)
    return s;
  std::string cls;
  if (Status s = stringField(j, "class", path, cls, false); !s)
    return s;
  if (j.contains("class")) {
    auto c = parseLinkClass(cls);
    if (!c)
      return Status::error(join(path, "class") + ": unknown link class '" +
                           cls + "' (expected hccs, pcie, roce, tcp or shm)");
    link.cls = *c;
  }
  int64_t ports = link.ports;
  if (Status s = numberField(j, "bandwidth_gbps", path, 0, true,
                             link.bandwidthGBps, false);
      !s)
    return s;
  if (Status s =
          numberField(j, "latency_us", path, 0, false, link.latencyUs, false);
      !s)
    return s;
  if (Status s = intField(j, "ports", path, 1, 64, ports, false); !s)
    return s;
  link.ports = static_cast<int>(ports);
  return Status::ok();
}

std::string bytesText(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15
             ? std::to_string(static_cast<int64_t>(v))
             : Json(v).dump();
}

/// One number, or an array of 1..kMaxCacheKnees numbers, each >= lo (> lo
/// when strict).
Status numbers(const Json &j, const char *key, const std::string &path,
               double lo, bool strict, std::vector<double> &out) {
  const Json &v = j.at(key);
  if (!v.is_array()) {
    double x = 0;
    if (Status s = number(v, join(path, key), lo, strict, x); !s)
      return s;
    out = {x};
    return Status::ok();
  }
  if (v.empty() || v.size() > Topology::kMaxCacheKnees)
    return Status::error(join(path, key) + ": expected a number or 1.." +
                         std::to_string(Topology::kMaxCacheKnees) +
                         " numbers, one per knee");
  for (size_t i = 0; i < v.size(); ++i) {
    double x = 0;
    if (Status s = number(v[i], join(path, key) + "[" + std::to_string(i) + "]",
                          lo, strict, x);
        !s)
      return s;
    out.push_back(x);
  }
  return Status::ok();
}

/// cache_bytes / past_cache_factor: one knee as two numbers (cache_bytes 0:
/// none), or several as two arrays of equal length, bytes ascending. When
/// present they replace the topology's knees.
Status readCacheKnees(const Json &j, const std::string &path, Topology &t) {
  bool hasBytes = j.contains("cache_bytes");
  bool hasFactor = j.contains("past_cache_factor");
  if (!hasBytes && !hasFactor)
    return Status::ok();
  if (!hasBytes)
    return Status::error(join(path, "past_cache_factor") +
                         ": needs cache_bytes (the size it applies past)");
  std::vector<double> bytes, factors;
  if (Status s = numbers(j, "cache_bytes", path, 0, false, bytes); !s)
    return s;
  if (hasFactor) {
    if (Status s = numbers(j, "past_cache_factor", path, 1, false, factors); !s)
      return s;
  } else {
    factors.assign(bytes.size(), 1.0);
  }
  if (factors.size() != bytes.size())
    return Status::error(join(path, "past_cache_factor") + ": " +
                         std::to_string(factors.size()) + " factors for " +
                         std::to_string(bytes.size()) +
                         " knees in cache_bytes (one each)");
  // The one-knee form's `cache_bytes: 0` (factor 1) is no knee.
  if (bytes.size() == 1 && bytes[0] == 0 && factors[0] == 1) {
    t.cacheKnees.clear();
    return Status::ok();
  }
  bool list = j.at("cache_bytes").is_array();
  auto at = [&](const char *key, size_t i) {
    return join(path, key) + (list ? "[" + std::to_string(i) + "]" : "");
  };
  std::vector<CacheKnee> knees;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (factors[i] > 1000)
      return Status::error(at("past_cache_factor", i) +
                           ": expected at most 1000");
    if (bytes[i] == 0)
      return Status::error(at("cache_bytes", i) +
                           ": a knee needs bytes above 0 (the size its "
                           "factor applies past)");
    if (i > 0 && !(bytes[i] > bytes[i - 1]))
      return Status::error(join(path, "cache_bytes") +
                           ": the knees must ascend (" + bytesText(bytes[i]) +
                           " after " + bytesText(bytes[i - 1]) + ")");
    knees.push_back({bytes[i], factors[i]});
  }
  t.cacheKnees = std::move(knees); // only a whole, valid list replaces them
  return Status::ok();
}

} // namespace

Status readLinkFields(const Json &j, const std::string &path, Topology &t) {
  std::pair<const char *, LinkParams *> links[] = {
      {"intra", &t.intra}, {"inter", &t.inter}, {"scaleup", &t.scaleUp}};
  for (auto [key, link] : links)
    if (auto it = j.find(key); it != j.end())
      if (Status s = readLink(*it, join(path, key), *link); !s)
        return s;
  if (auto it = j.find("intra_shape"); it != j.end()) {
    auto sh = it->is_string() ? parseIntraShape(it->get<std::string>())
                              : std::nullopt;
    if (!sh)
      return Status::error(join(path, "intra_shape") +
                           ": expected \"mesh\" or \"ring\"");
    t.intraShape = *sh;
  }
  if (Status s =
          numberField(j, "reduce_gbps", path, 0, true, t.reduceGBps, false);
      !s)
    return s;
  if (Status s = numberField(j, "collective_overhead_us", path, 0, false,
                             t.collectiveOverheadUs, false);
      !s)
    return s;
  if (Status s = numberField(j, "collective_wakeup_us", path, 0, false,
                             t.collectiveWakeupUs, false);
      !s)
    return s;
  if (Status s = numberField(j, "collective_wakeup_idle_us", path, 0, false,
                             t.collectiveWakeupIdleUs, false);
      !s)
    return s;
  if (Status s = readCacheKnees(j, path, t); !s)
    return s;
  if (Status s = numberField(j, "compute_steal_us_per_mb", path, 0, false,
                             t.computeStealUsPerMB, false);
      !s)
    return s;
  if (t.computeStealUsPerMB > 1e6)
    return Status::error(join(path, "compute_steal_us_per_mb") +
                         ": expected at most 1e6");
  return Status::ok();
}

} // namespace hccl::sched::detail
