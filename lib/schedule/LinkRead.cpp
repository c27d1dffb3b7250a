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

using json = nlohmann::json;

std::string join(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

/// What was found instead, for error messages.
std::string found(const json &v) {
  if (!v.is_number())
    return v.type_name();
  if (!std::isfinite(v.get<double>()))
    return "a number out of range";
  return v.dump();
}

Status number(const json &v, const std::string &where, bool zeroOk,
              double &out) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) ||
      !(zeroOk ? v.get<double>() >= 0 : v.get<double>() > 0))
    return Status::error(where + ": expected a " +
                         (zeroOk ? "number >= 0" : "positive number") +
                         ", found " + found(v));
  out = v.get<double>();
  return Status::ok();
}

Status readLink(const json &j, const std::string &path, LinkParams &link) {
  if (!j.is_object())
    return Status::error(path + ": expected an object, found " + j.type_name());
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string &k = it.key();
    const json &v = it.value();
    std::string where = join(path, k);
    Status s;
    if (k == "class") {
      if (!v.is_string())
        return Status::error(where + ": expected a string, found " +
                             v.type_name());
      auto c = parseLinkClass(v.get<std::string>());
      if (!c)
        return Status::error(where + ": unknown link class '" +
                             v.get<std::string>() +
                             "' (expected hccs, pcie, roce, tcp or shm)");
      link.cls = *c;
    } else if (k == "bandwidth_gbps") {
      s = number(v, where, false, link.bandwidthGBps);
    } else if (k == "latency_us") {
      s = number(v, where, true, link.latencyUs);
    } else if (k == "ports") {
      if (!v.is_number_integer() || v.get<long long>() < 1 ||
          v.get<long long>() > 64)
        return Status::error(where + ": expected an integer in 1..64, found " +
                             found(v));
      link.ports = v.get<int>();
    } else {
      return Status::error(where + ": unknown key (expected class, "
                                   "bandwidth_gbps, latency_us, ports)");
    }
    if (!s)
      return s;
  }
  return Status::ok();
}

} // namespace

bool isLinkField(const std::string &key) {
  return key == "intra" || key == "inter" || key == "intra_shape" ||
         key == "reduce_gbps";
}

Status readLinkFields(const json &j, const std::string &path, Topology &t) {
  std::pair<const char *, LinkParams *> links[] = {{"intra", &t.intra},
                                                   {"inter", &t.inter}};
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
  if (auto it = j.find("reduce_gbps"); it != j.end())
    return number(*it, join(path, "reduce_gbps"), false, t.reduceGBps);
  return Status::ok();
}

} // namespace hccl::sched::detail
