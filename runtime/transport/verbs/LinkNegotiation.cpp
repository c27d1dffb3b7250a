//===- LinkNegotiation.cpp - Per-link choice between verbs and TCP --------===//
//
// Built whether or not the verbs transport is, so that every build speaks
// the same bootstrap protocol: "HCCL-LINK verbs <device>" or
// "HCCL-LINK tcp <reason>" from each side, then verbs set-up or TCP data.
//
//===----------------------------------------------------------------------===//
#include "transport/verbs/VerbsTransport.h"

namespace hccl::rt {

namespace {
constexpr const char *kPrefix = "HCCL-LINK ";
} // namespace

StatusOr<std::unique_ptr<Pair>> negotiateLink(VerbsTransport *verbs, Fd &fd,
                                              int peer, bool requireVerbs,
                                              const std::string &whyNoVerbs,
                                              const Deadline &dl) {
  std::string offer =
      std::string(kPrefix) +
      (verbs ? "verbs " + verbs->describe() : "tcp " + whyNoVerbs);
  HCCL_RT_TRY(
      sendFrame(fd.get(), offer, dl)
          .withContext("offering a transport to rank " + std::to_string(peer)));
  auto got = recvFrame(fd.get(), dl);
  if (!got)
    return got.status().withContext("waiting for rank " + std::to_string(peer) +
                                    "'s transport offer");
  const std::string &theirs = *got;
  if (theirs.compare(0, std::string(kPrefix).size(), kPrefix) != 0)
    return Status(HCCL_E_INTERNAL,
                  "rank " + std::to_string(peer) +
                      " sent no transport offer (different runtime version?)");
  std::string rest = theirs.substr(std::string(kPrefix).size());
  bool theyVerbs = rest.compare(0, 6, "verbs ") == 0;
  if (verbs && theyVerbs)
    return verbs->connect(std::move(fd), peer, dl);
  if (requireVerbs) {
    std::string why = !verbs ? "this rank: " + whyNoVerbs
                             : "rank " + std::to_string(peer) + ": " +
                                   (rest.size() > 4 ? rest.substr(4) : rest);
    return Status(HCCL_E_NOT_SUPPORT,
                  "HCCL_TRANSPORT=verbs but the link to rank " +
                      std::to_string(peer) + " cannot use RDMA (" + why + ")");
  }
  return std::unique_ptr<Pair>();
}

} // namespace hccl::rt
