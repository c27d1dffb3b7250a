//===- VerbsTransport.h - RoCE as the communicator sees it ------*- C++ -*-===//
//
// The communicator's view of the verbs transport (no <infiniband/verbs.h>
// here): open the RDMA device once per communicator, turn bootstrap sockets
// into verbs pairs, and hear about user memory registrations.
//
// Transport choice between hosts is negotiated per link on the bootstrap
// socket (negotiateLink): each side offers "verbs" (it has a usable device)
// or "tcp" (with the reason); both verbs gives a VerbsPair built on that
// socket, anything else a TcpPair (HCCL_TRANSPORT=verbs makes it an error).
// So ranks with and without RDMA devices still form one communicator.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_VERBSTRANSPORT_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_VERBSTRANSPORT_H

#include "common/Deadline.h"
#include "common/Futex.h"
#include "common/Socket.h"
#include "common/Status.h"
#include "config/Config.h"
#include "transport/Transport.h"

#include <functional>
#include <memory>
#include <string>

namespace hccl::rt {

namespace verbs {
class VerbsDevice;
} // namespace verbs

class VerbsTransport {
public:
  /// Same contract as TcpEngine's: a broken link, reported from the
  /// transport's thread; `pending` when operations wait on it.
  using FailureFn = std::function<void(int peer, const Status &, bool pending)>;

  /// Opens the first usable RDMA port (HCCL_IB_HCA, HCCL_RDMA_GID_INDEX) of
  /// the library HCCL_IB_LIB names. Errors: HCCL_E_NOT_SUPPORT (no library,
  /// no device, no active port), HCCL_E_PARA (a setting that cannot be met).
  static StatusOr<std::unique_ptr<VerbsTransport>>
  open(const Config &cfg, Doorbell *bell, int rank, FailureFn onFailure);
  /// open(); when that fails, stores the reason in `whyNot` and returns
  /// nullptr, after logging once per process (HCCL_TRANSPORT=auto) that
  /// links between hosts use TCP. With `require` (HCCL_TRANSPORT=verbs) the
  /// link negotiations then fail, naming the reason on both ends. Invalid
  /// settings (HCCL_E_PARA) stay errors.
  static StatusOr<std::unique_ptr<VerbsTransport>>
  openOrFallback(const Config &cfg, bool require, Doorbell *bell, int rank,
                 FailureFn onFailure, std::string &whyNot);
  ~VerbsTransport();
  VerbsTransport(const VerbsTransport &) = delete;
  VerbsTransport &operator=(const VerbsTransport &) = delete;

  /// "fakeroce0 port 1, GID 3 ::ffff:10.1.2.1 (RoCE v2)".
  std::string describe() const;
  /// Builds the queue pairs to `peer` over an established bootstrap socket
  /// (exchange, INIT -> RTR -> RTS, ready handshake). HCCL_E_ROCE_CONNECT
  /// on failure.
  StatusOr<std::unique_ptr<Pair>> connect(Fd fd, int peer, const Deadline &dl);
  /// HcclCommRegister / HcclCommDeregister ranges: registered once, sent
  /// zero-copy.
  void onRegister(void *addr, size_t bytes);
  void onDeregister(void *addr, size_t bytes);

private:
  VerbsTransport() = default;
  std::unique_ptr<verbs::VerbsDevice> dev_;
};

/// Agrees with the peer on this socket's transport (see above). Returns the
/// verbs pair, or nullptr when the link is TCP (fd untouched otherwise).
StatusOr<std::unique_ptr<Pair>> negotiateLink(VerbsTransport *verbs, Fd &fd,
                                              int peer, bool requireVerbs,
                                              const std::string &whyNoVerbs,
                                              const Deadline &dl);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_VERBSTRANSPORT_H
