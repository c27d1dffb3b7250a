//===- FakeVerbs.h - Internals of the fake libibverbs -----------*- C++ -*-===//
//
// libfakeverbs.so exports the libibverbs functions the runtime's verbs
// transport loads with dlopen, and fills ibv_context::ops (post_send,
// post_recv, poll_cq, req_notify_cq) as a provider does. It emulates RC
// queue pairs between processes of one machine:
//
//  - a "fabric" directory in /dev/shm (FAKEVERBS_FABRIC names it) lists the
//    devices (their GID tables) and queue pairs of every process; a QP
//    number is the index of its directory entry;
//  - each QP owns two inbound rings in a memfd (requests, and responses to
//    its own requests); the connected peer imports the memfd through a pidfd
//    and is the rings' only producer;
//  - each opened context runs a "NIC" thread: it transmits posted work
//    requests (segments of at most 64 KiB), executes incoming requests
//    against this process's memory regions (rkey, bounds and access checks),
//    acknowledges them, produces completions and completion-channel events,
//    and expires the RC retry timer (timeout x (retry_cnt + 1)) when the
//    peer does not answer;
//  - FAKEVERBS_FAULT injects faults (FakeOptions.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TEST_FAKEVERBS_FAKEVERBS_H
#define HCCL_TEST_FAKEVERBS_FAKEVERBS_H

#include <infiniband/verbs.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#define FV_EXPORT extern "C" __attribute__((visibility("default")))

namespace fv {

//===----------------------------------------------------------------------===//
// Options (environment)
//===----------------------------------------------------------------------===//

enum class FaultKind { None, CqeError, RemAccess, QpError, Stall, PortError };

struct GidEnt {
  uint8_t raw[16] = {0};
  uint32_t type = IBV_GID_TYPE_ROCE_V2;
};

struct Options {
  std::string fabric = "default";
  std::string host;                 ///< fake host identity
  std::vector<std::string> devices; ///< device names
  std::vector<std::string> portDown;
  bool customGids = false;
  std::vector<GidEnt> gids; ///< FAKEVERBS_GID_TABLE (else derived per device)
  FaultKind fault = FaultKind::None;
  uint64_t faultAfter = 0;
  std::string error; ///< non-empty: invalid environment, one line
};

/// Reads FAKEVERBS_* (and HCCL_FAKE_HOST_ID for the host identity).
Options readOptions();
const char *faultName(FaultKind k);

//===----------------------------------------------------------------------===//
// Fabric: the shared directory, rings and doorbells
//===----------------------------------------------------------------------===//

constexpr uint32_t kMaxDevEntries = 256;
constexpr uint32_t kMaxQpEntries = 4096;
constexpr uint32_t kQpnBase = 0x100; ///< QP numbers 0 and 1 are special in IB
constexpr uint32_t kMaxGids = 16;

struct alignas(64) CtxEntry {
  std::atomic<uint32_t> state; ///< 0 free, 1 claimed, 2 ready
  int32_t pid;
  std::atomic<uint32_t> seq;      ///< NIC doorbell (futex word)
  std::atomic<uint32_t> sleeping; ///< the NIC thread sleeps on seq
  uint32_t node;                  ///< device identity (routing)
  uint32_t nGids;
  uint8_t gids[kMaxGids][16];
};

struct alignas(64) QpEntry {
  std::atomic<uint32_t> state; ///< 0 free, 1 claimed, 2 ready
  int32_t pid;
  int32_t fd; ///< memfd with the QP's inbound rings, in the owner
  uint32_t ctxSlot;
  uint32_t node;
  uint64_t ringBytes;
};

struct Directory {
  CtxEntry ctx[kMaxDevEntries];
  QpEntry qp[kMaxQpEntries];
};

/// A single-producer single-consumer ring of packets in shared memory.
struct alignas(64) RingHdr {
  std::atomic<uint64_t> head; ///< bytes produced
  char pad0[56];
  std::atomic<uint64_t> tail; ///< bytes consumed
  char pad1[56];
  uint64_t cap;
  /// Set by a producer that found no room; the consumer rings the
  /// producer's doorbell (context slot `producerSlot`) after popping.
  std::atomic<uint32_t> waiting;
  uint32_t producerSlot;
};

enum PktType : uint32_t {
  kPad = 0,
  kWrite,
  kWriteImm,
  kSend,
  kSendImm,
  kAck,
  kNak,
  kRnr,
};

struct Pkt {
  uint32_t type;
  uint32_t len; ///< payload bytes following this header
  uint32_t srcQpn;
  uint32_t psn; ///< requester's PSN of this request
  uint64_t msn; ///< request number on the requester's QP
  uint64_t raddr;
  uint64_t total;  ///< request length
  uint64_t offset; ///< of this segment within the request
  uint32_t rkey;
  uint32_t imm;    ///< as posted (network order)
  uint32_t status; ///< NAK: the requester's completion status
  uint32_t pad;
};
static_assert(sizeof(Pkt) == 64, "packet header is one cache line");

constexpr uint64_t kSegBytes = 64 * 1024;
constexpr uint64_t kReqRingBytes = 2 * 1024 * 1024;
constexpr uint64_t kRspRingBytes = 64 * 1024;

/// Views of a ring.
struct Ring {
  RingHdr *h = nullptr;
  char *data = nullptr;
  /// Room for one packet of `payload` bytes (and a pad if it would wrap).
  bool canPush(uint64_t payload) const;
  /// canPush, or registers this producer (context slot) to be rung when the
  /// consumer makes room and checks once more.
  bool canPushOrWait(uint64_t payload, uint32_t mySlot);
  /// Consumer side: rings a waiting producer.
  void notifyProducer(class Fabric *f);
  /// Reserves, fills the header, returns where the payload goes; publish()
  /// makes it visible.
  char *begin(const Pkt &p, uint64_t &at);
  void publish(uint64_t at, const Pkt &p);
  /// The next packet (skipping pads) or nullptr.
  const Pkt *front();
  void pop();
  bool empty() const {
    return h->head.load(std::memory_order_acquire) == h->tail.load();
  }
};

/// The process-wide mapping of the fabric directory.
class Fabric {
public:
  /// Maps /dev/shm/hccl-fakeverbs-<name> (created on first use).
  static Fabric *get(const std::string &name, std::string &err);
  Directory *dir() const { return dir_; }
  /// Claims a context entry; returns its index or -1.
  int claimCtx(uint32_t node, const std::vector<GidEnt> &gids);
  void releaseCtx(int slot);
  int claimQp(); ///< entry index, -1 when full
  void releaseQp(int slot);
  /// Node owning `gid`, or 0 when no live device has it.
  uint32_t nodeOfGid(const uint8_t gid[16]) const;
  /// Rings the NIC doorbell of context slot `slot`.
  void ring(uint32_t slot);

private:
  Directory *dir_ = nullptr;
};

bool pidAlive(int pid);
void futexWait(std::atomic<uint32_t> *w, uint32_t expect, int64_t timeoutUs);
void futexWake(std::atomic<uint32_t> *w);

//===----------------------------------------------------------------------===//
// Verbs objects (each embeds the public struct first)
//===----------------------------------------------------------------------===//

struct Context;

struct Device {
  ibv_device dev; // first
  int index = 0;
  std::string name;
  uint32_t node = 0;
  std::vector<GidEnt> gids;
  bool portDown = false;
};

struct Pd {
  ibv_pd pd; // first
  Context *c = nullptr;
};

struct Mr {
  ibv_mr mr; // first
  Pd *pd = nullptr;
  int access = 0;
};

struct Channel {
  ibv_comp_channel ch; // first
  int wfd = -1;        ///< write end of the event pipe (ch.fd is the read end)
};

struct Cq {
  ibv_cq cq; // first
  Context *c = nullptr;
  std::mutex mu;
  std::deque<ibv_wc> q;
  int cap = 0;
  Channel *chan = nullptr;
  bool armed = false;
  uint64_t events = 0; ///< events written to the channel
  uint64_t acked = 0;
  bool overflowed = false;
};

struct SendWqe {
  uint64_t wrId = 0;
  ibv_wr_opcode opcode = IBV_WR_SEND;
  bool signaled = false;
  std::vector<ibv_sge> sges;
  uint64_t total = 0;
  uint64_t raddr = 0;
  uint32_t rkey = 0;
  uint32_t imm = 0;
  uint64_t msn = 0;
  uint64_t sent = 0; ///< bytes transmitted
  bool transmitted = false;
  bool injectError = false; ///< FAKEVERBS_FAULT=cqe_error chose this one
};

struct RecvWqe {
  uint64_t wrId = 0;
  std::vector<ibv_sge> sges;
  uint64_t total = 0;
};

struct Qp {
  ibv_qp qp; // first
  Context *c = nullptr;
  Pd *pd = nullptr;
  Cq *scq = nullptr, *rcq = nullptr;
  bool sigAll = false;
  ibv_qp_cap cap{};
  std::mutex mu;
  // Attributes set by ibv_modify_qp.
  ibv_qp_state state = IBV_QPS_RESET;
  uint8_t port = 0;
  int access = 0;
  uint16_t pkeyIndex = 0;
  ibv_mtu mtu = IBV_MTU_1024;
  uint32_t destQpn = 0;
  uint32_t rqPsn = 0, sqPsn = 0;
  ibv_ah_attr ah{};
  uint8_t timeout = 0, retryCnt = 0, rnrRetry = 0, minRnrTimer = 0;
  uint8_t maxRdAtomic = 0, maxDestRdAtomic = 0;
  // Own inbound rings (memfd).
  int slot = -1;
  int memfd = -1;
  void *map = nullptr;
  uint64_t mapBytes = 0;
  Ring reqIn, rspIn;
  // Peer's rings (imported on first transmission).
  bool peerResolved = false, peerUnreachable = false;
  void *peerMap = nullptr;
  uint64_t peerMapBytes = 0;
  uint32_t peerCtxSlot = 0;
  Ring reqOut, rspOut;
  // Requester.
  std::deque<SendWqe> sq;
  size_t txCursor = 0;
  uint64_t nextMsn = 0;
  int64_t lastProgressUs = 0;
  int retries = 0;
  bool rnrWaiting = false; ///< the peer answered receiver-not-ready
  uint64_t rnrDelayUs = 0; ///< its min_rnr_timer
  int rnrRetries = 0;
  // Responder.
  std::deque<RecvWqe> rq;
  uint64_t expectMsn = 0;
  bool rnrSent = false;
  bool sendActive = false; ///< a multi-segment SEND is landing in rq.front()
  bool destroyed = false;
};

struct Context {
  ibv_context ctx; // first
  Device *dev = nullptr;
  Options opt;
  Fabric *fabric = nullptr;
  int ctxSlot = -1;
  int asyncW = -1; ///< write end of the async event pipe
  std::shared_mutex mrMu;
  std::map<uint32_t, Mr *> mrs; ///< by lkey (== rkey)
  std::mutex qpMu;
  std::vector<std::shared_ptr<Qp>> qps;
  std::thread nic;
  std::atomic<bool> stop{false};
  std::atomic<bool> started{false};
  std::mutex startMu;
  std::atomic<bool> portDown{false};
  // Faults.
  std::atomic<uint64_t> requests{0}; ///< work requests transmitted
  bool faultFired = false;
  bool stalled = false;
  uint32_t nextKey = 0;
};

// NIC (Nic.cpp).
void startNic(Context *c);
void stopNic(Context *c);
void kickNic(Context *c);
/// Moves `qp` to the error state (flushing its queues); qp->mu held.
void qpToError(Qp *qp);
/// Adds a completion (qp->mu or the CQ's owner context's lock held as
/// needed); raises IBV_EVENT_CQ_ERR on overflow.
void pushCqe(Cq *cq, const ibv_wc &wc);
void postAsync(Context *c, ibv_event_type type, Qp *qp);
int64_t monoUs();

/// Looks up an MR by key (caller holds c->mrMu shared).
Mr *findMr(Context *c, uint32_t key);

} // namespace fv

#endif // HCCL_TEST_FAKEVERBS_FAKEVERBS_H
