//===- Protocol.cpp - Connection information exchanged at set-up ----------===//
#include "transport/verbs/Protocol.h"

#include <arpa/inet.h>
#include <nlohmann/json.hpp>

namespace hccl::rt::verbs {

using nlohmann::json;

std::string ConnInfo::encode() const {
  json q = json::array();
  for (const QpEndpoint &e : qps)
    q.push_back({e.qpn, e.psn});
  return json{{"device", device},
              {"port", port.port},
              {"ethernet", port.ethernet},
              {"lid", port.lid},
              {"gidIndex", port.gidIndex},
              {"gid", gidString(port.gid)},
              {"mtu", static_cast<int>(port.mtu)},
              {"qps", q},
              {"ringAddr", ringAddr},
              {"ringKey", ringKey},
              {"slots", slots},
              {"slotBytes", slotBytes},
              {"creditAddr", creditAddr},
              {"creditKey", creditKey}}
      .dump();
}

StatusOr<ConnInfo> ConnInfo::decode(const std::string &s, int peer) {
  auto bad = [&](const std::string &what) {
    return Status(HCCL_E_ROCE_CONNECT,
                  "rank " + std::to_string(peer) +
                      " sent malformed RoCE connection data: " + what);
  };
  json j = json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return bad("not a JSON object");
  ConnInfo c;
  try {
    c.device = j.at("device").get<std::string>();
    c.port.port = j.at("port").get<uint8_t>();
    c.port.ethernet = j.at("ethernet").get<bool>();
    c.port.lid = j.at("lid").get<uint16_t>();
    c.port.gidIndex = j.at("gidIndex").get<uint32_t>();
    std::string gid = j.at("gid").get<std::string>();
    if (inet_pton(AF_INET6, gid.c_str(), c.port.gid.data()) != 1)
      return bad("gid '" + gid + "' is not an IPv6 address");
    int mtu = j.at("mtu").get<int>();
    if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
      return bad("mtu " + std::to_string(mtu));
    c.port.mtu = static_cast<ibv_mtu>(mtu);
    for (const json &e : j.at("qps")) {
      QpEndpoint q;
      q.qpn = e.at(0).get<uint32_t>();
      q.psn = e.at(1).get<uint32_t>();
      if (q.qpn > 0xffffff || q.psn > 0xffffff)
        return bad("queue pair number or PSN over 24 bits");
      c.qps.push_back(q);
    }
    c.ringAddr = j.at("ringAddr").get<uint64_t>();
    c.ringKey = j.at("ringKey").get<uint32_t>();
    c.slots = j.at("slots").get<uint32_t>();
    c.slotBytes = j.at("slotBytes").get<uint32_t>();
    c.creditAddr = j.at("creditAddr").get<uint64_t>();
    c.creditKey = j.at("creditKey").get<uint32_t>();
  } catch (const std::exception &e) {
    return bad(e.what());
  }
  if (c.qps.empty())
    return bad("no queue pairs");
  return c;
}

} // namespace hccl::rt::verbs
