//===- Choice.h - Which transport carries a link ----------------*- C++ -*-===//
//
// HCCL_TRANSPORT and where the peer runs decide it: a peer on this host
// gets shared memory unless tcp or verbs is forced; every other link goes
// over its bootstrap socket, which negotiates verbs (RoCE) when both ends
// have a usable device and HCCL_TRANSPORT allows it, and TCP otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_CHOICE_H
#define HCCL_RUNTIME_TRANSPORT_CHOICE_H

#include "common/Status.h"
#include "config/Config.h"

#include <string>

namespace hccl::rt {

enum class LinkTransport { Shm, Socket };

struct PeerPlace {
  int rank = 0;
  bool sameHost = false;
  std::string host;   ///< the peer's host name, for messages
  std::string myHost; ///< ours
};

/// The transport of the link to `peer`; HCCL_E_PARA when
/// HCCL_TRANSPORT=shm and the peer runs on another host.
StatusOr<LinkTransport> chooseLinkTransport(TransportKind kind,
                                            const PeerPlace &peer);

/// Socket links offer verbs first (auto, verbs); with verbs forced there is
/// no TCP fallback.
inline bool socketLinksTryVerbs(TransportKind kind) {
  return kind == TransportKind::Auto || kind == TransportKind::Verbs;
}
inline bool verbsRequired(TransportKind kind) {
  return kind == TransportKind::Verbs;
}

} // namespace hccl::rt

#endif // HCCL_RUNTIME_TRANSPORT_CHOICE_H
