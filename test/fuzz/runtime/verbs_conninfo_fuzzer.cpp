//===- verbs_conninfo_fuzzer.cpp - RoCE set-up data from a peer -----------===//
//
// What the verbs transport reads from a peer over the bootstrap socket
// before it touches a queue pair (transport/verbs/Protocol.h): device,
// port address, queue pair numbers, ring and credit addresses and keys.
// Oracle: a refusal is an HCCL_E_ROCE_CONNECT naming the peer; what decodes
// is in range (24-bit queue pair numbers and PSNs, an MTU ibverbs has) and
// encodes back to itself.
//
//===----------------------------------------------------------------------===//
#include "transport/verbs/Protocol.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace hccl::rt::verbs;

namespace {
bool same(const ConnInfo &a, const ConnInfo &b) {
  if (a.qps.size() != b.qps.size())
    return false;
  for (size_t i = 0; i < a.qps.size(); ++i)
    if (a.qps[i].qpn != b.qps[i].qpn || a.qps[i].psn != b.qps[i].psn)
      return false;
  return a.device == b.device && a.port.port == b.port.port &&
         a.port.ethernet == b.port.ethernet && a.port.lid == b.port.lid &&
         a.port.gidIndex == b.port.gidIndex && a.port.gid == b.port.gid &&
         a.port.mtu == b.port.mtu && a.ringAddr == b.ringAddr &&
         a.ringKey == b.ringKey && a.slots == b.slots &&
         a.slotBytes == b.slotBytes && a.creditAddr == b.creditAddr &&
         a.creditKey == b.creditKey;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string s(reinterpret_cast<const char *>(data), size);
  auto c = ConnInfo::decode(s, 5);
  if (!c) {
    if (c.status().code() != HCCL_E_ROCE_CONNECT ||
        c.status().message().find("rank 5") == std::string::npos)
      abort();
    return 0;
  }
  if (c->qps.empty() || c->port.mtu < IBV_MTU_256 ||
      c->port.mtu > IBV_MTU_4096 || c->port.port == 0)
    abort();
  for (const QpEndpoint &q : c->qps)
    if (q.qpn > 0xffffff || q.psn > 0xffffff)
      abort();
  auto back = ConnInfo::decode(c->encode(), 5);
  if (!back || !same(*back, *c))
    abort();
  return 0;
}
