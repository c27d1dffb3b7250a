//===- Protocol.cpp - Connection information exchanged at set-up ----------===//
#include "transport/verbs/Protocol.h"

#include "hccl-mlir/schedule/JsonRead.h"

#include <arpa/inet.h>
#include <limits>
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

// The peer's set-up data comes over the bootstrap socket: every value is
// type- and range-checked before it reaches a queue pair (nlohmann's
// get<uint8_t>() on 257 wraps to 1, get<uint32_t>() on 2.5 truncates).
StatusOr<ConnInfo> ConnInfo::decode(const std::string &s, int peer) {
  namespace jr = sched::jsonread;
  auto bad = [&](const std::string &what) {
    return Status(HCCL_E_ROCE_CONNECT,
                  "rank " + std::to_string(peer) +
                      " sent malformed RoCE connection data: " + what);
  };
  constexpr int64_t kU16 = std::numeric_limits<uint16_t>::max();
  constexpr int64_t kU32 = std::numeric_limits<uint32_t>::max();
  constexpr int64_t kU24 = 0xffffff; // queue pair numbers and PSNs
  const std::string top;
  jr::Json j;
  if (sched::Status st = jr::parseObject(s, top, j); !st)
    return bad(st.message());
  int64_t port = 0, lid = 0, gidIndex = 0, mtu = 0, ringKey = 0, slots = 0,
          slotBytes = 0, creditKey = 0, ringAddr = 0, creditAddr = 0;
  std::string gid;
  ConnInfo c;
  // Addresses are 64-bit; the checked reader's range is int64's, which
  // every user-space virtual address of Linux fits.
  for (sched::Status st :
       {jr::object(j, top,
                   {"device", "port", "ethernet", "lid", "gidIndex", "gid",
                    "mtu", "qps", "ringAddr", "ringKey", "slots", "slotBytes",
                    "creditAddr", "creditKey"}),
        jr::stringField(j, "device", top, c.device, true),
        jr::intField(j, "port", top, 1, 255, port, true),
        jr::intField(j, "lid", top, 0, kU16, lid, true),
        jr::intField(j, "gidIndex", top, 0, kU32, gidIndex, true),
        jr::stringField(j, "gid", top, gid, true),
        jr::intField(j, "mtu", top, IBV_MTU_256, IBV_MTU_4096, mtu, true),
        jr::intField(j, "ringAddr", top, 0, jr::kNoLimit, ringAddr, true),
        jr::intField(j, "ringKey", top, 0, kU32, ringKey, true),
        jr::intField(j, "slots", top, 0, kU32, slots, true),
        jr::intField(j, "slotBytes", top, 0, kU32, slotBytes, true),
        jr::intField(j, "creditAddr", top, 0, jr::kNoLimit, creditAddr, true),
        jr::intField(j, "creditKey", top, 0, kU32, creditKey, true)}) {
    if (!st)
      return bad(st.message());
  }
  auto eth = j.find("ethernet");
  if (eth == j.end() || !eth->is_boolean())
    return bad("ethernet: expected true or false");
  if (inet_pton(AF_INET6, gid.c_str(), c.port.gid.data()) != 1)
    return bad("gid '" + gid + "' is not an IPv6 address");
  auto qps = j.find("qps");
  if (qps == j.end() || !qps->is_array())
    return bad("qps: expected an array of [qpn, psn] pairs");
  for (size_t i = 0; i < qps->size(); ++i) {
    std::vector<int64_t> pair;
    if (sched::Status st =
            jr::intArray((*qps)[i], jr::at("qps", i), 0, kU24, pair);
        !st)
      return bad(st.message());
    if (pair.size() != 2)
      return bad(jr::at("qps", i) + ": expected [qpn, psn]");
    c.qps.push_back(QpEndpoint{static_cast<uint32_t>(pair[0]),
                               static_cast<uint32_t>(pair[1])});
  }
  if (c.qps.empty())
    return bad("no queue pairs");
  c.port.port = static_cast<uint8_t>(port);
  c.port.ethernet = eth->get<bool>();
  c.port.lid = static_cast<uint16_t>(lid);
  c.port.gidIndex = static_cast<uint32_t>(gidIndex);
  c.port.mtu = static_cast<ibv_mtu>(mtu);
  c.ringAddr = static_cast<uint64_t>(ringAddr);
  c.ringKey = static_cast<uint32_t>(ringKey);
  c.slots = static_cast<uint32_t>(slots);
  c.slotBytes = static_cast<uint32_t>(slotBytes);
  c.creditAddr = static_cast<uint64_t>(creditAddr);
  c.creditKey = static_cast<uint32_t>(creditKey);
  return c;
}

} // namespace hccl::rt::verbs
