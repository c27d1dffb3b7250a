//===- Communicator.h - A group of ranks and its state ----------*- C++ -*-===//
//
// A Communicator is created collectively (rendezvous, then one Pair per peer:
// shm for peers on this host; to other hosts verbs (RoCE) when both ends have
// an RDMA device, tcp otherwise), executes collectives by running
// step programs from lib/schedule (Executor.cpp), and is destroyed
// collectively-but-independently: each rank says BYE to its peers and
// releases its sockets, threads and shared memory.
//
// Failures: the first error that breaks the communicator (a dead peer, a
// timeout, mismatched calls) is recorded as the async error, every peer is
// told (shm abort record / tcp ABORT frame), and every later call fails with
// it. Calls are serialised per communicator in ticket order (the order in
// which they were issued, whatever stream they run on).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_COMMUNICATOR_H
#define HCCL_RUNTIME_CORE_COMMUNICATOR_H

#include "bootstrap/Listener.h"
#include "common/Deadline.h"
#include "common/Status.h"
#include "config/Config.h"
#include "core/AlgorithmPolicy.h"
#include "core/IssueOrder.h"
#include "core/LocalWork.h"
#include "core/ProgramCache.h"
#include "core/RankInfo.h"
#include "core/TeePlan.h"
#include "hccl-mlir/schedule/Program.h"
#include "hccl-mlir/schedule/Topology.h"
#include "transport/Transport.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hccl::rt {

class Segment;
class TcpEngine;
class VerbsTransport;
class Region;

/// How to build a communicator.
struct CommInit {
  int nRanks = 1;
  int rank = 0;
  Uid uid;
  /// The communicator's key: its members prove it to each other's
  /// listeners (bootstrap/Auth.h). Children derive theirs from it.
  Key key;
  /// The key of the listener holding the rendezvous (the root's).
  Key rootKey;
  /// Rendezvous address (where rank 0 listens for this communicator).
  SockAddr root;
  /// Rank 0: the socket to hold the rendezvous on.
  std::shared_ptr<Listener> rendezvous;
  /// Optional: use this socket as the communicator's own listener (its key
  /// must be `key`).
  std::shared_ptr<Listener> listener;
  Config cfg;
  /// From a rank table: the cluster layout and this rank's server id.
  /// Children get their parent's topology here.
  std::optional<sched::Topology> rankTable;
  /// The members' ranks on `rankTable` in this communicator's rank order
  /// (empty: 0..nRanks-1).
  std::vector<int64_t> topologyRanks;
  /// With `rankTable` from a parent: whether its ranks share cores
  /// (AlgorithmPolicy::sharedCores), which a child inherits as it inherits
  /// the parent's pricing of them.
  bool sharedCores = false;
  std::string server;
  std::string name;
  /// Overall init deadline (default: HCCL_CONNECT_TIMEOUT from now).
  std::optional<Deadline> deadline;
  /// Non-root ranks: give up reaching the root after this long (0 = the
  /// whole deadline), so a caller can retry with a fresher root address.
  int64_t connectAttemptMs = 0;
};

/// Buffers and element semantics bound to a program run.
struct Binding {
  const void *input = nullptr;
  void *output = nullptr;
  sched::DataType dtype = sched::DataType::Int8;
  sched::ReduceOp op = sched::ReduceOp::Sum;
  /// Group-local rank -> communicator rank (empty = identity).
  const std::vector<int64_t> *group = nullptr;
  /// Send header-only messages for zero counts (all-to-all-v: counts are the
  /// user's, so pairing must be exact).
  bool keepEmpty = false;
  /// The whole call's output bytes when this is one piece of it
  /// (runCollective); 0: the program's own.
  size_t callOutputBytes = 0;
};

class Communicator {
public:
  static StatusOr<std::unique_ptr<Communicator>> create(CommInit init);
  ~Communicator();
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const Config &config() const { return cfg_; }
  const std::string &name() const { return name_; }
  /// "shm" / "tcp" / "self" for the link to `peer` (tests, diagnostics).
  const char *linkKind(int peer) const;
  /// The pair to `peer` (nullptr for self; tests inspect transports).
  const Pair *pairFor(int peer) const;

  /// Calls run in issue order (a ticket each, core/IssueOrder.h).
  IssueOrder &order() { return order_; }
  /// Blocks until every issued call has finished.
  void waitIdle() { order_.waitIdle(); }

  // Collectives and point-to-point (arguments already validated by the C
  // API; these run on the calling thread).
  Status allReduce(const void *in, void *out, uint64_t count,
                   sched::DataType dt, sched::ReduceOp op);
  Status reduceScatter(const void *in, void *out, uint64_t recvCount,
                       sched::DataType dt, sched::ReduceOp op);
  Status allGather(const void *in, void *out, uint64_t sendCount,
                   sched::DataType dt);
  Status broadcast(void *buf, uint64_t count, sched::DataType dt,
                   uint32_t root);
  Status reduce(const void *in, void *out, uint64_t count, sched::DataType dt,
                sched::ReduceOp op, uint32_t root);
  Status allToAll(const void *in, void *out, uint64_t count,
                  sched::DataType dt);
  Status allToAllV(const void *in, const uint64_t *sendCounts,
                   const uint64_t *sdispls, void *out,
                   const uint64_t *recvCounts, const uint64_t *rdispls,
                   sched::DataType dt);
  Status send(const void *buf, uint64_t count, sched::DataType dt, int peer);
  Status recv(void *buf, uint64_t count, sched::DataType dt, int peer);
  Status barrier();
  /// One send or receive of a batch (HcclBatchSendRecv, HcclGroupEnd).
  struct P2pOp {
    bool send = true;
    void *buf = nullptr;
    uint64_t count = 0;
    sched::DataType dt = sched::DataType::Int8;
    int peer = 0; ///< may be this rank: a send and a receive to self copy
  };
  /// Posts every op, then waits for all of them (Batch.cpp): the order of
  /// the ops cannot deadlock.
  Status batchSendRecv(const std::vector<P2pOp> &ops);
  /// Runs a program of a plan (group-local ranks mapped by `group`, empty =
  /// identity; this rank must be a member). With an `owner` (what keeps
  /// `prog` and `group` alive, e.g. the loaded plan) the expanded program is
  /// cached for as long as the owner lives; without one it is expanded on
  /// every call.
  Status runProgram(const sched::Program &prog,
                    const std::vector<int64_t> &group, const void *in,
                    void *out, const std::shared_ptr<const void> &owner = {});

  /// Collective over this communicator: ranks with the same colour form a
  /// new one, ordered by (key, rank); colour < 0 yields nullptr.
  StatusOr<std::unique_ptr<Communicator>> split(int color, int key,
                                                const Config &cfg);
  /// Only the members call: `ranks` (communicator ranks), this rank is
  /// ranks[subRank].
  StatusOr<std::unique_ptr<Communicator>> subComm(const std::vector<int> &ranks,
                                                  uint64_t id, int subRank,
                                                  const Config &cfg);

  /// The error that broke the communicator (ok if none).
  Status asyncError() const;
  /// asyncError() after looking for news: an abort record from a peer, a
  /// peer that died while the communicator was idle.
  Status pollAsyncError();
  /// Records `st` as the communicator's error (first one wins) and, if
  /// `propagate`, tells every peer.
  void fail(const Status &st, bool propagate);

  /// Registration bookkeeping for HcclCommRegister.
  void *registerMemory(void *addr, uint64_t size);
  Status deregisterMemory(void *handle);

  /// Peer regions mapped for zero-copy reads, over all shm pairs (tests).
  size_t mappedPeerRegions() const;
  /// Messages written into peers' buffers through their tee offers, and
  /// messages peers wrote into this rank's, over all shm pairs (tests).
  std::pair<uint64_t, uint64_t> teeCounts() const;
  /// Split parts written into peers' buffers, and receives that peers
  /// completed so, over all shm pairs (tests; ShmPair.h, "The split").
  std::pair<uint64_t, uint64_t> splitCounts() const;
  /// Algorithm of the last collective run (tests, diagnostics).
  sched::Algorithm lastAlgorithm() const { return lastAlgo_; }
  /// Sets this rank's share of the last-level cache, past which a call
  /// streams its output (tests set a small one); the executions (calls, or
  /// pieces of a split call) past it, and the bytes they streamed into
  /// outputs.
  void setCacheShare(size_t bytes) { cachePerLocalRank_ = bytes; }
  uint64_t callsPastCache() const { return callsPastCache_; }
  uint64_t pastCacheBytes() const {
    return pastCacheRecvBytes_ + local_.pastCacheBytes;
  }
  /// Whether the algorithm choice prices ranks sharing cores
  /// (AlgorithmPolicy::sharedCores; tests).
  bool sharesCores() const { return policy_.sharedCores(); }
  /// Expanded programs held (collective shapes and plan programs; tests).
  size_t cachedPrograms() const { return cache_.size(); }
  /// Bytes of the scratch buffer currently held (tests).
  size_t scratchBytes() const;
  /// Listener address (tests).
  const SockAddr &listenAddr() const { return listener_->addr(); }

private:
  Communicator() = default;
  Status init(CommInit &init);
  Status connectPeers(const std::vector<RankInfo> &infos, const Deadline &dl);
  /// A link over a bootstrap socket: verbs when both sides can, else TCP.
  Status addSocketPair(int peer, Fd fd, const Deadline &dl);
  void shutdown();

  /// Picks (cached) and runs the program for a collective call.
  Status runCollective(sched::Collective coll, CallKind kind, uint64_t count,
                       sched::DataType dt, sched::ReduceOp op, int64_t root,
                       const void *in, void *out, uint64_t extra = 0,
                       const sched::GenerateRequest *custom = nullptr,
                       size_t callOutputBytes = 0);
  StatusOr<std::shared_ptr<const CompiledProgram>>
  programFor(const ProgramKey &key, const sched::GenerateRequest &req);
  /// A plan program checked against this communicator and expanded for
  /// this rank (runProgram).
  StatusOr<std::shared_ptr<const CompiledProgram>>
  expandPlanProgram(const sched::Program &prog,
                    const std::vector<int64_t> &group);
  /// The split (transport/shm/ShmPair.h): marks `s`, a send that is all
  /// its step or call does, splitCapable where that pays.
  void markLoneSend(SendOp &s) const;
  /// Executes one rank's program.
  Status execute(const CompiledProgram &cp, const Binding &b,
                 const CallId &call);
  Status waitFor(const CallId &call, const std::vector<SendOp *> &sends,
                 const std::vector<RecvOp *> &recvs, LocalWork &local,
                 const Binding &b, LazyDeadline &dl, int64_t step);
  /// Hands the pairs of the current wait back to their transport threads.
  void idleTouched();
  /// Records a failure of the current call, cancels every queued transfer
  /// and returns the error to report.
  Status failCall(const CallId &call, size_t step, const Status &cause);
  Status checkAborted();
  Status ensureScratch(size_t bytes);
  Status ensureSpare(size_t bytes);
  CallId nextCall(CallKind kind, uint64_t count, sched::DataType dt,
                  sched::ReduceOp op, uint32_t root, sched::Algorithm algo,
                  uint64_t extra);
  Status guard();

  Config cfg_;
  std::string name_;
  Uid uid_;
  Key key_;
  int rank_ = 0;
  int size_ = 1;
  std::shared_ptr<Listener> listener_;
  std::unique_ptr<Segment> seg_;
  std::vector<RankInfo> infos_;
  std::vector<std::unique_ptr<Pair>> pairs_;
  std::unique_ptr<TcpEngine> tcp_;
  std::unique_ptr<VerbsTransport> verbs_; ///< null: no RDMA device in use
  std::string noVerbs_;                   ///< why (for HCCL_TRANSPORT=verbs)
  AlgorithmPolicy policy_;
  bool oversubscribed_ = false; ///< WaitPolicy::oversubscribed, at init
  /// This rank's share of the host's last-level cache (common/CacheSize.h):
  /// a call whose output exceeds it streams that too. 0: never.
  size_t cachePerLocalRank_ = 0;
  uint64_t callsPastCache_ = 0;
  uint64_t pastCacheRecvBytes_ = 0;
  bool anyZeroCopyPair_ = false; ///< some peer is a zero-copy shm pair
  /// Element-wise collectives run in kNetPieceBytes pieces (data crosses
  /// sockets or other hosts); the same on every rank, since it follows the
  /// agreed HCCL_TRANSPORT and the host layout.
  bool netPieces_ = false;

  IssueOrder order_;

  // Executor state (guarded by the turn).
  uint64_t collSeq_ = 0;
  std::vector<uint64_t> p2pSendSeq_, p2pRecvSeq_;
  ProgramCache cache_;
  /// The last program programFor() returned (generated or a cache hit),
  /// and its key.
  ProgramKey lastKey_;
  std::shared_ptr<const CompiledProgram> lastProgram_;
  std::unique_ptr<Region> scratch_;
  std::unique_ptr<Region> spare_; ///< stands in for a NULL output buffer
  std::unique_ptr<SendOp[]> sendPool_;
  std::unique_ptr<RecvOp[]> recvPool_;
  size_t sendCap_ = 0, recvCap_ = 0;
  /// The current step's posted ops and local work (execute()), kept so
  /// that a call does not allocate them again once they have grown.
  std::vector<SendOp *> postedSends_;
  std::vector<RecvOp *> postedRecvs_;
  LocalWork local_;
  /// The current step's tee plan and the ops it marked (core/TeePlan.h).
  TeePlan teePlan_;
  std::vector<SendOp *> teeSends_;
  std::vector<RecvOp *> teeRecvs_;
  /// Per op of the current step (when the tee plan looked at it): its
  /// SendOp or RecvOp, and its LocalWork item (-1: none). For the push.
  std::vector<SendOp *> stepSend_;
  std::vector<RecvOp *> stepRecv_;
  std::vector<int32_t> stepItem_;
  std::vector<uint32_t> sendOrd_, recvOrd_;
  std::map<uint64_t, uint64_t> planSeq_; ///< per group of a plan program
  uint64_t splitCount_ = 0;
  sched::Algorithm lastAlgo_ = sched::Algorithm::Ring;
  std::vector<int> touched_;

  // Failure state.
  mutable std::mutex failMu_;
  std::atomic<bool> failed_{false};
  Status failure_;

  // Registrations.
  std::mutex regMu_;
  std::vector<std::pair<void *, uint64_t>> registrations_;
  bool destroyed_ = false;
  std::atomic<bool> closing_{false};
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_COMMUNICATOR_H
