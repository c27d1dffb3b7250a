//===- LinkRead.cpp - The one reader of link figures ----------------------===//
//
// The rules: bandwidth and reduction throughput finite and > 0; latency
// finite and >= 0 (a zero-latency link is a legitimate model input, e.g. a
// pure-bandwidth study; the dialect's #comm.link accepts it too); ports an
// integer in 1..64.
//
//===----------------------------------------------------------------------===//
#include "LinkRead.h"

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
  if (Status s =
          numberField(j, "cache_bytes", path, 0, false, t.cacheBytes, false);
      !s)
    return s;
  if (Status s = numberField(j, "past_cache_factor", path, 1, false,
                             t.pastCacheFactor, false);
      !s)
    return s;
  if (t.pastCacheFactor > 1000)
    return Status::error(join(path, "past_cache_factor") +
                         ": expected at most 1000");
  if (t.pastCacheFactor != 1 && t.cacheBytes == 0)
    return Status::error(join(path, "past_cache_factor") +
                         ": needs cache_bytes (the size it applies past)");
  if (Status s =
          numberField(j, "cache2_bytes", path, 0, false, t.cache2Bytes, false);
      !s)
    return s;
  if (t.cache2Bytes != 0 && !(t.cache2Bytes > t.cacheBytes && t.cacheBytes > 0))
    return Status::error(join(path, "cache2_bytes") +
                         ": needs cache_bytes, and must be larger (the "
                         "second knee lies above the first)");
  if (Status s = numberField(j, "past_cache2_factor", path, 1, false,
                             t.pastCache2Factor, false);
      !s)
    return s;
  if (t.pastCache2Factor > 1000)
    return Status::error(join(path, "past_cache2_factor") +
                         ": expected at most 1000");
  if (t.pastCache2Factor != 1 && t.cache2Bytes == 0)
    return Status::error(join(path, "past_cache2_factor") +
                         ": needs cache2_bytes (the size it applies past)");
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
