//===- rendezvous_fuzzer.cpp - Bootstrap messages: reply and rank infos ---===//
//
// What a rank reads during init once the handshake is done: the root's
// reply (the table of rank descriptions, or its verdict) and each rank's
// description. The first byte chooses the communicator size (1..16), the
// rest is the message. A reply that decodes has exactly that many entries;
// a failure is an error status; every description decodes or is refused,
// and what decodes encodes back to itself.
//
//===----------------------------------------------------------------------===//
#include "bootstrap/Rendezvous.h"
#include "core/RankInfo.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace hccl::rt;

namespace {
bool sameInfo(const RankInfo &a, const RankInfo &b) {
  return a.rank == b.rank && a.hostId == b.hostId && a.hostname == b.hostname &&
         a.pid == b.pid && a.ip == b.ip && a.port == b.port &&
         a.segFd == b.segFd && a.nSlots == b.nSlots &&
         a.slotBytes == b.slotBytes && a.server == b.server &&
         a.settings == b.settings;
}

/// Decodes one description; returns whether it decoded.
bool description(const std::string &s, std::vector<RankInfo> *out) {
  auto r = RankInfo::decode(s);
  if (!r) {
    if (r.status().isOk() || r.status().message().empty())
      abort();
    return false;
  }
  auto back = RankInfo::decode(r->encode());
  if (!back || !sameInfo(*back, *r))
    abort();
  out->push_back(r.take());
  return true;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  int nRanks = 1 + data[0] % 16;
  std::string msg(reinterpret_cast<const char *>(data + 1), size - 1);
  std::vector<RankInfo> infos;
  // A hello's payload: one rank's description.
  (void)description(msg, &infos);
  infos.clear();
  auto table = decodeRendezvousReply(msg, nRanks);
  if (!table) {
    if (table.status().isOk())
      abort(); // a failure that reads as success
    return 0;
  }
  if (table->size() != static_cast<size_t>(nRanks))
    abort();
  bool all = true;
  for (const auto &e : *table)
    all = description(e, &infos) && all;
  if (all)
    (void)checkSettingsAgree(infos);
  return 0;
}
