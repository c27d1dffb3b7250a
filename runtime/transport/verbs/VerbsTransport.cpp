//===- VerbsTransport.cpp - RoCE transport as the communicator sees it ----===//
#include "transport/verbs/VerbsTransport.h"
#include "common/Log.h"
#include "transport/verbs/VerbsDevice.h"
#include "transport/verbs/VerbsPair.h"

#include <atomic>

namespace hccl::rt {

StatusOr<std::unique_ptr<VerbsTransport>>
VerbsTransport::open(const Config &cfg, Doorbell *bell, int rank,
                     FailureFn onFailure) {
  auto dev = verbs::VerbsDevice::open(cfg, bell, rank, std::move(onFailure));
  if (!dev)
    return dev.status();
  std::unique_ptr<VerbsTransport> t(new VerbsTransport());
  t->dev_ = dev.take();
  return t;
}

StatusOr<std::unique_ptr<VerbsTransport>>
VerbsTransport::openOrFallback(const Config &cfg, bool require, Doorbell *bell,
                               int rank, FailureFn onFailure,
                               std::string &whyNot) {
  auto t = open(cfg, bell, rank, std::move(onFailure));
  if (t) {
    HCCL_LOG(Info, "verbs transport on " + (*t)->describe());
    return t;
  }
  if (t.status().code() == HCCL_E_PARA)
    return t.status();
  whyNot = t.status().message();
  // HCCL_TRANSPORT=verbs: every link's negotiation fails with this reason,
  // on this rank and (in the peer's offer) on its peers.
  if (require)
    return std::unique_ptr<VerbsTransport>();
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true))
    HCCL_LOG(Warn, "verbs (RoCE) transport unavailable: " + whyNot +
                       "; links between hosts use TCP");
  return std::unique_ptr<VerbsTransport>();
}

VerbsTransport::~VerbsTransport() = default;

std::string VerbsTransport::describe() const { return dev_->describe(); }

StatusOr<std::unique_ptr<Pair>> VerbsTransport::connect(Fd fd, int peer,
                                                        const Deadline &dl) {
  auto p = std::make_unique<verbs::VerbsPair>(*dev_, peer, std::move(fd));
  Status st = p->connect(dl);
  if (!st.isOk())
    return st;
  dev_->addPair(p.get());
  return std::unique_ptr<Pair>(std::move(p));
}

void VerbsTransport::onRegister(void *addr, size_t bytes) {
  dev_->onRegister(addr, bytes);
}
void VerbsTransport::onDeregister(void *addr, size_t bytes) {
  dev_->onDeregister(addr, bytes);
}

} // namespace hccl::rt
