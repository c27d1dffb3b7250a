//===- FakeOptions.cpp - FAKEVERBS_* environment of the fake ibverbs ------===//
//
//   FAKEVERBS_FABRIC     name of the shared directory (processes that should
//                        reach each other use the same); [A-Za-z0-9_-]+,
//                        default "default"
//   FAKEVERBS_HOST       fake host identity, which derives the GIDs (default
//                        HCCL_FAKE_HOST_ID, else the host name)
//   FAKEVERBS_DEVICES    comma-separated device names, or "none" (default
//                        fakeroce0)
//   FAKEVERBS_PORT_DOWN  comma-separated devices whose port 1 is down
//   FAKEVERBS_GID_TABLE  ';'-separated GID table: TYPE/ADDR with TYPE ib, v1
//                        or v2 and ADDR an IPv6 literal, host4 (this host's
//                        ::ffff:10.x.y.z) or host6 (its fe80:: address); or
//                        "empty" for an unused index
//   FAKEVERBS_FAULT      KIND[:after=N]: cqe_error, rem_access, qp_error,
//                        stall, port_error; fires at the N-th work request
//                        this process transmits (default 0)
//
// An invalid value makes ibv_get_device_list fail (EINVAL) after one line
// on stderr naming the variable.
//
//===----------------------------------------------------------------------===//
#include "FakeVerbs.h"

#include <arpa/inet.h>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unistd.h>

namespace fv {
namespace {

std::string env(const char *name) {
  const char *v = ::getenv(name);
  return v ? v : "";
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    out.push_back(item);
  return out;
}

bool validName(const std::string &s) {
  if (s.empty() || s.size() > 63)
    return false;
  for (char ch : s)
    if (!(isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-'))
      return false;
  return true;
}

} // namespace

const char *faultName(FaultKind k) {
  switch (k) {
  case FaultKind::None:
    return "none";
  case FaultKind::CqeError:
    return "cqe_error";
  case FaultKind::RemAccess:
    return "rem_access";
  case FaultKind::QpError:
    return "qp_error";
  case FaultKind::Stall:
    return "stall";
  case FaultKind::PortError:
    return "port_error";
  }
  return "?";
}

Options readOptions() {
  Options o;
  std::string f = env("FAKEVERBS_FABRIC");
  if (!f.empty()) {
    if (!validName(f)) {
      o.error = "FAKEVERBS_FABRIC=" + f + ": expected 1..63 of [A-Za-z0-9_-]";
      return o;
    }
    o.fabric = f;
  }
  o.host = env("FAKEVERBS_HOST");
  if (o.host.empty())
    o.host = env("HCCL_FAKE_HOST_ID");
  if (o.host.empty()) {
    char buf[256] = {0};
    ::gethostname(buf, sizeof(buf) - 1);
    o.host = buf;
  }
  std::string d = env("FAKEVERBS_DEVICES");
  if (d.empty())
    d = "fakeroce0";
  if (d != "none") {
    for (const std::string &n : split(d, ',')) {
      if (!validName(n)) {
        o.error =
            "FAKEVERBS_DEVICES=" + d + ": '" + n + "' is not a device name";
        return o;
      }
      o.devices.push_back(n);
    }
  }
  for (const std::string &n : split(env("FAKEVERBS_PORT_DOWN"), ','))
    if (!n.empty())
      o.portDown.push_back(n);

  std::string g = env("FAKEVERBS_GID_TABLE");
  if (!g.empty()) {
    o.customGids = true;
    for (const std::string &e : split(g, ';')) {
      GidEnt ent;
      if (e == "empty") {
        o.gids.push_back(ent);
        continue;
      }
      size_t slash = e.find('/');
      std::string type = e.substr(0, slash);
      std::string addr = slash == std::string::npos ? "" : e.substr(slash + 1);
      if (type == "ib")
        ent.type = IBV_GID_TYPE_IB;
      else if (type == "v1")
        ent.type = IBV_GID_TYPE_ROCE_V1;
      else if (type == "v2")
        ent.type = IBV_GID_TYPE_ROCE_V2;
      else {
        o.error =
            "FAKEVERBS_GID_TABLE: entry '" + e + "': type must be ib, v1 or v2";
        return o;
      }
      if (addr == "host4" || addr == "host6") {
        // Filled per device (the node is known there): mark with a tag.
        ent.raw[0] = addr == "host4" ? 0xF4 : 0xF6;
        ent.raw[1] = 0xFA;
        ent.raw[2] = 0xCE;
      } else if (inet_pton(AF_INET6, addr.c_str(), ent.raw) != 1) {
        o.error = "FAKEVERBS_GID_TABLE: entry '" + e + "': '" + addr +
                  "' is not an IPv6 address, host4 or host6";
        return o;
      }
      o.gids.push_back(ent);
    }
    if (o.gids.size() > kMaxGids) {
      o.error = "FAKEVERBS_GID_TABLE: at most " + std::to_string(kMaxGids) +
                " entries";
      return o;
    }
  }

  std::string fault = env("FAKEVERBS_FAULT");
  if (!fault.empty()) {
    std::vector<std::string> parts = split(fault, ':');
    const std::string &k = parts[0];
    if (k == "cqe_error")
      o.fault = FaultKind::CqeError;
    else if (k == "rem_access")
      o.fault = FaultKind::RemAccess;
    else if (k == "qp_error")
      o.fault = FaultKind::QpError;
    else if (k == "stall")
      o.fault = FaultKind::Stall;
    else if (k == "port_error")
      o.fault = FaultKind::PortError;
    else {
      o.error = "FAKEVERBS_FAULT=" + fault +
                ": expected cqe_error, rem_access, qp_error, stall or "
                "port_error[:after=N]";
      return o;
    }
    for (size_t i = 1; i < parts.size(); ++i) {
      const std::string &p = parts[i];
      char *end = nullptr;
      if (p.rfind("after=", 0) == 0 && p.size() > 6) {
        unsigned long long n = std::strtoull(p.c_str() + 6, &end, 10);
        if (*end == 0) {
          o.faultAfter = n;
          continue;
        }
      }
      o.error = "FAKEVERBS_FAULT=" + fault + ": '" + p + "' is not after=N";
      return o;
    }
  }
  return o;
}

} // namespace fv
