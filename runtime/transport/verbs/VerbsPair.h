//===- VerbsPair.h - Pair over RC queue pairs (RoCE) ------------*- C++ -*-===//
//
// One peer: HCCL_RDMA_QPS_PER_CONNECTION RC queue pairs sharing a send and
// a receive CQ, the receive slot ring the peer writes into, a bounce ring
// for sources that are not registered, and the bootstrap socket (ABORT and
// liveness). Protocol.h describes the wire.
//
// Everything happens on the calling threads under one mutex: the executor
// posts and polls in postSend/postRecv/progress(); health(), peekMismatch()
// and liveness() poll too, so errors and a peer's BYE are seen even on a
// pair the executor is not waiting for. A completion with an error status
// fails the pair with HCCL_E_ROCE_TRANSFER, naming the peer, the queue pair
// and ibv_wc_status_str.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_VERBS_VERBSPAIR_H
#define HCCL_RUNTIME_TRANSPORT_VERBS_VERBSPAIR_H

#include "common/Socket.h"
#include "transport/Transport.h"
#include "transport/verbs/MrCache.h"
#include "transport/verbs/Protocol.h"

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

namespace hccl::rt::verbs {

class VerbsDevice;

class VerbsPair final : public Pair {
public:
  VerbsPair(VerbsDevice &dev, int peer, Fd sock);
  ~VerbsPair() override;

  /// Creates the queue pairs and memory, exchanges ConnInfo on the socket,
  /// moves the QPs INIT -> RTR -> RTS and waits for the peer's "ready".
  Status connect(const Deadline &dl);

  const char *kind() const override { return "verbs"; }
  Status postSend(SendOp &op) override;
  Status postRecv(RecvOp &op) override;
  Status progress(bool &moved) override;
  Status health(const CallId &current) override;
  Status liveness() override;
  Status peekMismatch(const CallId &current) override;
  void cancelAll() override;
  void notifyAbort(const Status &why) override;
  void closeGraceful() override;

  // Event thread side.
  int sockFd() const { return sock_.get(); }
  bool socketDone() const { return sockDone_.load(); }
  /// Reads what the socket has (ABORT, EOF); sets `failure`/`pending` when
  /// the communicator must hear about it.
  void onSocketReadable(Status &failure, bool &pending);
  /// An async event hit this pair (or its device).
  void onAsyncError(const Status &st, bool &pending);
  bool ownsQp(const void *qp) const;
  bool ownsCq(const void *cq) const;

  struct Stats {
    uint64_t zeroCopyChunks =
        0; ///< chunks sent straight from a registered source
    uint64_t bounceChunks = 0; ///< chunks copied into the bounce ring first
    uint64_t creditWrites = 0;
    uint64_t chunksReceived = 0;
  };
  Stats stats() const;
  /// The device's registration cache (shared by the communicator's pairs).
  MrCache::Stats registrations() const;
  uint32_t queuePairs() const { return static_cast<uint32_t>(qps_.size()); }

private:
  Status progressLocked(bool &moved);
  Status pollSend(bool &moved);
  Status pollRecv(bool &moved);
  Status consume(bool &moved);
  Status pump(bool &moved);
  Status sendCredit();
  Status postRecvBuffer(uint32_t qpIndex, uint32_t buf);
  Status wcFailure(const struct ibv_wc &wc, const char *what);
  void noteFlush(const Status &st);
  Status probeIfIdle();
  Status peekLocked(const CallId &current);
  Status remoteState(bool pending);
  void moveQpsToError();
  void releaseOp(SendOp *op);
  std::string qpName(uint32_t qpNum) const;

  VerbsDevice &dev_;
  Fd sock_;
  mutable std::mutex mu_;
  std::mutex sockMu_; ///< writes on the socket (ABORT)

  struct ibv_cq *scq_ = nullptr, *rcq_ = nullptr;
  std::vector<struct ibv_qp *> qps_;
  std::vector<uint32_t> qpNums_;
  // Memory: receive slots (remote-writable), bounce slots, control block
  // (headers for zero-copy sends, receive buffers for SEND, BYE source),
  // credit page (remote-writable word + local source word).
  char *ring_ = nullptr, *bounce_ = nullptr, *ctrl_ = nullptr,
       *credit_ = nullptr;
  size_t ringBytes_ = 0, ctrlBytes_ = 0, creditBytes_ = 0;
  struct ibv_mr *ringMr_ = nullptr, *bounceMr_ = nullptr, *ctrlMr_ = nullptr,
                *creditMr_ = nullptr;
  ConnInfo peerInfo_;

  // Send side.
  std::deque<SendOp *> sends_;
  size_t firstUnposted_ = 0; ///< index into sends_
  std::map<SendOp *, MrCache::Handle> opMr_;
  struct Inflight {
    SendOp *op = nullptr;
    bool busy = false;
  };
  std::vector<Inflight> inflight_; ///< by slot
  uint64_t posted_ = 0;            ///< chunks posted
  uint64_t creditsKnown_ = 0;      ///< peer's consumed count
  // Receive side.
  struct Arrival {
    bool present = false;
    bool header = false;
    uint32_t bytes = 0;
  };
  std::vector<Arrival> arrived_;
  uint64_t consumed_ = 0, creditSent_ = 0;
  int creditsInFlight_ = 0;
  std::deque<RecvOp *> recvs_;
  bool expectHeader_ = true;

  // State.
  Status failed_;
  int64_t lastActivityUs_ = 0; ///< last completion of any kind
  bool probeInFlight_ = false;
  int64_t flushAtUs_ = 0; ///< a flushed completion seen, cause pending
  Status flushed_;
  bool cancelled_ = false;
  bool qpsErrored_ = false;
  bool peerBye_ = false;
  bool byePosted_ = false, byeDone_ = false;
  bool sockEof_ = false;
  std::atomic<bool> sockDone_{false};
  bool peerAborted_ = false;
  std::string abortText_;
  std::string sockIn_;
  bool abortSent_ = false;

  Stats stats_;
};

} // namespace hccl::rt::verbs

#endif // HCCL_RUNTIME_TRANSPORT_VERBS_VERBSPAIR_H
