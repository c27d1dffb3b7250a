//===- VerbsDevice.h - An opened RDMA port ----------------------*- C++ -*-===//
//
// Per communicator: the device context, protection domain, completion
// channel and the chosen port/GID, the registration cache, and one thread
// that sleeps in poll() on
//  - the completion channel: re-arms the CQ and rings the communicator's
//    doorbell, so an executor sleeping on it wakes for every completion
//    (the executor polls the CQs itself);
//  - the async event fd: QP errors, access violations, port and device
//    errors fail the affected pairs (HCCL_E_ROCE_TRANSFER, with
//    ibv_event_type_str);
//  - every pair's bootstrap socket: ABORT frames from peers and EOF (a dead
//    peer).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_VERBSDEVICE_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_VERBSDEVICE_H

#include "transport/verbs/IbvApi.h"
#include "transport/verbs/MrCache.h"
#include "transport/verbs/QpAttrs.h"
#include "transport/verbs/VerbsTransport.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace hccl::rt::verbs {

class VerbsPair;

class VerbsDevice final : public MrRegistrar {
public:
  static StatusOr<std::unique_ptr<VerbsDevice>>
  open(const Config &cfg, Doorbell *bell, int rank,
       VerbsTransport::FailureFn onFailure);
  ~VerbsDevice() override;

  const IbvApi &api() const { return *api_; }
  ibv_context *ctx() const { return ctx_; }
  ibv_pd *pd() const { return pd_; }
  ibv_comp_channel *channel() const { return chan_; }
  const PortAddress &port() const { return port_; }
  const QpSettings &settings() const { return settings_; }
  uint32_t qpsPerConnection() const { return qpsPerConn_; }
  int rank() const { return rank_; }
  Doorbell *bell() const { return bell_; }
  /// "mlx5_0 port 1".
  const std::string &where() const { return where_; }
  std::string describe() const;
  MrCache &mrs() { return *mrs_; }

  /// A registration covering [p, p+len) when the memory has a known
  /// lifetime (a runtime region: HcclMemAlloc, scratch; or a range given to
  /// HcclCommRegister); empty when the bytes must be copied (bounce).
  MrCache::Handle zeroCopy(const void *p, size_t len);
  void onRegister(void *addr, size_t bytes);
  void onDeregister(void *addr, size_t bytes);

  void addPair(VerbsPair *p);
  void removePair(VerbsPair *p);
  /// Stops the event thread (idempotent) and acknowledges every completion
  /// event left in the channel, so CQs can be destroyed.
  void stopEngine();
  void drainEvents();

  /// Set once any link of the communicator failed or a peer aborted: the
  /// goodbye is skipped then (peers' queue pairs may be in the error state
  /// and would never acknowledge it).
  void markBroken() { broken_.store(true); }
  bool broken() const { return broken_.load(); }

  /// "remote access error (IBV_WC status 10)".
  std::string wcStatus(int status) const;

  // MrRegistrar.
  StatusOr<Reg> registerSpan(void *base, size_t len) override;
  void deregister(void *mr) override;

private:
  VerbsDevice() = default;
  void engineLoop();
  void handleAsync(const ibv_async_event &ev);

  const IbvApi *api_ = nullptr;
  ibv_context *ctx_ = nullptr;
  ibv_pd *pd_ = nullptr;
  ibv_comp_channel *chan_ = nullptr;
  PortAddress port_;
  QpSettings settings_;
  uint32_t qpsPerConn_ = 1;
  int rank_ = 0;
  Doorbell *bell_ = nullptr;
  VerbsTransport::FailureFn onFailure_;
  std::string where_;
  std::unique_ptr<MrCache> mrs_;

  std::mutex pairsMu_;
  std::vector<VerbsPair *> pairs_;
  Fd evfd_;
  std::thread engine_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> broken_{false};
  std::mutex engineMu_;
  bool engineStopped_ = false;
};

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_VERBSDEVICE_H
