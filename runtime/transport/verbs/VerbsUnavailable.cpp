//===- VerbsUnavailable.cpp - Builds without <infiniband/verbs.h> ---------===//
//
// The verbs transport needs rdma-core's headers to build (not its library:
// that is loaded at run time). Without them every link between hosts is
// TCP, and HCCL_TRANSPORT=verbs says why.
//
//===----------------------------------------------------------------------===//
#include "common/Log.h"
#include "transport/verbs/VerbsTransport.h"

#include <atomic>

namespace hccl::rt {

namespace verbs {
class VerbsDevice {};
} // namespace verbs

StatusOr<std::unique_ptr<VerbsTransport>>
VerbsTransport::open(const Config &, Doorbell *, int, FailureFn) {
  return Status(HCCL_E_NOT_SUPPORT, "this libhccl was built without "
                                    "<infiniband/verbs.h> (install rdma-core's "
                                    "libibverbs-dev and rebuild)");
}

StatusOr<std::unique_ptr<VerbsTransport>>
VerbsTransport::openOrFallback(const Config &cfg, bool require, Doorbell *bell,
                               int rank, FailureFn onFailure,
                               std::string &whyNot) {
  auto t = open(cfg, bell, rank, std::move(onFailure));
  whyNot = t.status().message();
  if (require) // every link's negotiation reports it
    return std::unique_ptr<VerbsTransport>();
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true))
    HCCL_LOG(Warn, "verbs (RoCE) transport unavailable: " + whyNot +
                       "; links between hosts use TCP");
  return std::unique_ptr<VerbsTransport>();
}

VerbsTransport::~VerbsTransport() = default;
std::string VerbsTransport::describe() const { return "none"; }
StatusOr<std::unique_ptr<Pair>> VerbsTransport::connect(Fd, int,
                                                        const Deadline &) {
  return Status(HCCL_E_NOT_SUPPORT, "verbs transport not built");
}
void VerbsTransport::onRegister(void *, size_t) {}
void VerbsTransport::onDeregister(void *, size_t) {}

} // namespace hccl::rt
