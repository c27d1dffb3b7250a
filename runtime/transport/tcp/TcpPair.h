//===- TcpPair.h - Pair over a non-blocking TCP connection ------*- C++ -*-===//
//
// One connection per peer, moved in both directions at once with
// non-blocking sockets, so two ranks sending large messages to each other
// never deadlock. While a call waits on the pair, the executor does the
// socket I/O itself in progress() (as tcp-exchange-bench does: no thread
// hand-offs per chunk, and the staged chunk is reduced while it is still in
// cache); when the executor sleeps or between calls, the pair's TcpEngine
// thread (one per communicator, epoll) takes over and rings the doorbell.
// onEvents() does the I/O for either thread, under the pair's mutex.
//  - sends go straight from the source buffer to the socket (header+payload
//    in one sendmsg);
//  - plain receives are read straight into the destination;
//  - reducing receives are read into a small staging ring that the executor
//    drains, reducing chunk i while the engine reads chunk i+1.
// A header that arrives before its receive is posted is parked (the engine
// stops reading that socket), so nothing is buffered without bound.
//
// Control frames between messages: ABORT (the peer gave up, with its reason)
// and BYE (the peer destroyed its communicator on purpose).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_TCP_TCPPAIR_H
#define HCCL_RUNTIME_TRANSPORT_TCP_TCPPAIR_H

#include "common/Futex.h"
#include "common/Socket.h"
#include "transport/Transport.h"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hccl::rt {

class TcpEngine;

class TcpPair final : public Pair {
public:
  TcpPair(int peer, Fd fd, TcpEngine *engine, size_t chunkBytes, int nChunks);
  ~TcpPair() override;

  const char *kind() const override { return "tcp"; }
  Status postSend(SendOp &op) override;
  Status postRecv(RecvOp &op) override;
  Status progress(bool &moved) override;
  void idle() override;
  Status health(const CallId &current) override;
  Status liveness() override;
  Status peekMismatch(const CallId &current) override;
  void cancelAll() override;
  void notifyAbort(const Status &why) override;
  void closeGraceful() override;

  // Engine side (engine thread, and the executor while it serves the pair).
  int fd() const { return fd_.get(); }
  /// True while the executor does this pair's I/O: the engine leaves the
  /// socket alone (disarmed) until idle() hands it back.
  bool callerServing() const {
    return callerServing_.load(std::memory_order_acquire);
  }
  /// Does whatever I/O the socket allows. Returns the epoll interest wanted
  /// next; sets `failure` when the connection broke.
  /// `pending` tells whether operations were queued on the pair when it
  /// failed (the communicator fails at once then, else lazily).
  uint32_t onEvents(uint32_t events, Status &failure, bool &completed,
                    bool &pending);
  uint32_t interest();
  /// True once a queued BYE has been written (or the socket is gone).
  bool byeSent();
  /// True once the peer said BYE, closed, or the connection is gone.
  bool peerGone();
  /// Half-closes the sending side after BYE (so the peer reads EOF).
  void halfClose();

private:
  bool readHeader(Status &failure);
  bool discardSome(Status &failure);
  Status peekLocked(const CallId &current);
  bool readPayload(Status &failure, bool &completed);
  bool writeSome(Status &failure, bool &completed);
  void fail(Status st);

  struct Chunk {
    RecvOp *op = nullptr;
    size_t offset = 0;
    size_t len = 0;
  };

  Fd fd_;
  TcpEngine *engine_;
  std::mutex mu_;
  std::deque<SendOp *> sends_;
  std::deque<RecvOp *> recvs_; ///< ops the engine still has to read
  Status failed_;
  bool peerBye_ = false;
  bool sentBye_ = false;
  bool wantBye_ = false;
  bool wantAbort_ = false;
  bool abortSent_ = false;
  HcclResult abortCode_ = HCCL_E_REMOTE;
  std::string abortText_;
  bool peerEof_ = false;
  bool peerAborted_ = false;
  bool protocolError_ = false; ///< mismatched header: reported, connection kept
  bool cancelled_ =
      false;            ///< after a failure: finish/drop messages, no new ops
  WireHeader padHdr_{}; ///< header of a send cut short by cancelAll
  size_t padSent_ = 0, padTotal_ = 0;
  size_t discardLeft_ = 0; ///< payload bytes to read and drop
  bool rdhupSeen_ = false;
  std::string ctrlOut_; ///< control frame being written
  size_t ctrlSent_ = 0;
  bool shutdownDone_ = false;

  // Read state.
  WireHeader hdr_{};
  size_t hdrGot_ = 0;
  bool hdrReady_ = false;
  bool wakeExecutor_ = false; ///< a header-only message completed
  std::string ctrlIn_;        ///< ABORT text being read
  size_t payloadGot_ = 0;
  RecvOp *cur_ = nullptr;

  // Staging ring for reducing receives (single producer: engine; single
  // consumer: executor).
  size_t chunkBytes_;
  int nChunks_;
  std::unique_ptr<char[]> staging_;
  std::vector<Chunk> chunks_;
  std::atomic<uint64_t> filled_{0};
  std::atomic<uint64_t> drained_{0};
  std::atomic<bool> callerServing_{false};
  std::atomic<uint64_t> ioCalls_{
      0};                    ///< payload send/recv calls that moved bytes
  size_t fillGot_ = 0;       ///< bytes in the chunk being filled
  bool stagingFull_ = false; ///< engine waits for the executor to drain (mu_)
};

/// The progress thread of one communicator's TCP pairs.
class TcpEngine {
public:
  using FailureFn = std::function<void(int peer, const Status &, bool pending)>;
  static StatusOr<std::unique_ptr<TcpEngine>> create(Doorbell *bell,
                                                     FailureFn onFailure);
  ~TcpEngine();

  Status add(TcpPair *pair);
  /// Wakes the thread to re-evaluate interests (new ops, drained chunks).
  void kick();
  Doorbell *bell() const { return bell_; }
  /// Sends pending BYEs and waits for the peers' (up to `ms` for both), so
  /// that closing resets no connection; then stops the thread.
  void stop(int64_t ms);

private:
  TcpEngine(Doorbell *bell, FailureFn f)
      : bell_(bell), onFailure_(std::move(f)) {}
  void run();

  Doorbell *bell_;
  FailureFn onFailure_;
  Fd epfd_;
  Fd evfd_;
  std::mutex mu_;
  std::vector<TcpPair *> pairs_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> draining_{false};
  std::unique_ptr<std::thread> thread_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_TRANSPORT_TCP_TCPPAIR_H
