//===- Choice.cpp - Which transport carries a link ------------------------===//
#include "transport/Choice.h"

namespace hccl::rt {

StatusOr<LinkTransport> chooseLinkTransport(TransportKind kind,
                                            const PeerPlace &peer) {
  if (kind == TransportKind::Shm && !peer.sameHost)
    return errPara("HCCL_TRANSPORT=shm but rank " + std::to_string(peer.rank) +
                   " runs on host " + peer.host + ", not on this host (" +
                   peer.myHost + ")");
  if (peer.sameHost && kind != TransportKind::Tcp &&
      kind != TransportKind::Verbs)
    return LinkTransport::Shm;
  return LinkTransport::Socket;
}

} // namespace hccl::rt
