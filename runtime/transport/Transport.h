//===- Transport.h - One small interface for every transport ----*- C++ -*-===//
//
// A communicator holds one Pair per peer (Gloo's shape). A pair moves whole
// messages, in order, in each direction: the k-th send posted on one side
// matches the k-th receive posted on the other. Operations are asynchronous:
// the executor posts SendOps and RecvOps, then calls progress() on the pairs
// it waits for until the ops report done; when nothing moves it sleeps on the
// communicator's doorbell, which every transport rings when it completes
// something.
//
// A receive either copies the incoming bytes to `dst` or reduces them into
// `dst` (dst = acc op incoming, elementwise, `acc` may equal `dst`), so a
// transport that sees data piece by piece can reduce one piece while the next
// is still in flight.
//
// Every message carries a WireHeader describing the call it belongs to; a
// receiver that finds a header different from what it expects reports
// mismatched calls instead of misinterpreting bytes.
//
// Transports: shm/ (same host: slotted FIFO, or zero-copy reads of peers'
// registered memory), tcp/ (non-blocking sockets + a progress thread). A
// verbs/ transport plugs in beside them by implementing Pair.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_TRANSPORT_TRANSPORT_H
#define HCCL_RUNTIME_TRANSPORT_TRANSPORT_H

#include "common/Status.h"
#include "hccl-mlir/schedule/Types.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace hccl::rt {

/// What kind of call a message belongs to.
enum class CallKind : uint8_t {
  AllReduce = 0,
  ReduceScatter,
  AllGather,
  Broadcast,
  Reduce,
  AllToAll,
  AllToAllV,
  Barrier,
  SendRecv, ///< HcclSend/HcclRecv: numbered per pair, not per communicator
  Internal, ///< runtime-internal exchanges (split, plans)
  Plan,     ///< a plan loaded from the compiler
};
const char *callKindName(CallKind k);

/// Identifies one call on the wire (32 bytes). Two ranks taking part in the
/// same call produce identical CallIds.
struct CallId {
  uint64_t seq = 0;   ///< call number (per communicator; per pair for p2p)
  uint64_t count = 0; ///< element count as HCCL defines it for the call
  uint64_t extra = 0; ///< e.g. a hash of all-to-all-v tables
  uint32_t root = 0;
  CallKind kind = CallKind::AllReduce;
  uint8_t dtype = 0;
  uint8_t op = 0;
  uint8_t algo = 0;

  bool operator==(const CallId &o) const {
    return seq == o.seq && count == o.count && extra == o.extra &&
           root == o.root && kind == o.kind && dtype == o.dtype && op == o.op &&
           algo == o.algo;
  }
  bool operator!=(const CallId &o) const { return !(*this == o); }
  /// "allreduce #12 (count 1024, fp32, sum, root 0, algo ring)".
  std::string str() const;
};
static_assert(sizeof(CallId) == 32, "wire layout");

/// Precedes every message.
struct WireHeader {
  CallId call;
  uint64_t bytes = 0;   ///< payload size of this message
  uint32_t ordinal = 0; ///< index of this message among the call's messages
                        ///< from this sender to this receiver
  uint32_t magic = kMagic;
  static constexpr uint32_t kMagic = 0x4843434cu; // "HCCL"
};
static_assert(sizeof(WireHeader) == 48, "wire layout");

/// Explains why `got` does not match `want` (for mismatch errors).
std::string describeMismatch(int peer, const WireHeader &want,
                             const WireHeader &got);

/// A message to send. `src` must stay valid and unmodified until done.
struct SendOp {
  int peer = -1; ///< communicator rank (set by the executor, diagnostics)
  const void *src = nullptr;
  size_t bytes = 0;
  WireHeader hdr;
  /// Set by the executor where it may help (shm, docs/runtime.md "The
  /// tee"): the destination of this rank's receive with ordinal teeOrdinal
  /// from the same peer, offered to the peer to write its reduction of this
  /// message into, in the pass that writes its own copy. Null: no offer.
  /// (The executor sets both after posting the step's ops: transports read
  /// them in progress(), never in postSend().)
  void *teeDst = nullptr;
  uint32_t teeOrdinal = 0;
  /// The offered receive is of this very step (for a push), not the next.
  bool teeNow = false;
  /// Set by the executor (shm, docs/runtime.md "The push"): a Copy of this
  /// step reads exactly this message's source (LocalWork::Item::push), so
  /// if the peer offered the destination of its receive of this message,
  /// that copy writes it there too and the message goes as a header.
  bool pushCapable = false;
  /// Set by the transport when the step's receive from the peer starts:
  /// whether the copy writes the message into pushDst (the peer's offered
  /// buffer, mapped here) or the peer reads it as usual. Stopped: a push
  /// cut short by the peer's abort; the send never completes.
  enum class Push : uint8_t { Undecided, Push, Pull, Stopped };
  Push push = Push::Undecided;
  char *pushDst = nullptr;
  /// Set by the executor when the copy has written pushDst whole.
  bool pushWritten = false;
  /// Set by Communicator::markLoneSend (shm, docs/runtime.md "The split"):
  /// this send is all its step or HcclSend call does, so this rank may
  /// write a part of the message into the receiver's buffer while the
  /// receiver reads the rest.
  bool splitCapable = false;
  std::atomic<bool> done{false};
  // Transport-private progress state.
  size_t sent = 0;
  uint64_t ticket = 0;
  int mode = 0;
  bool emptyPosted = false;
  /// The split's part, as the peer asked (splitSeq 0: not asked).
  uint64_t splitSeq = 0;
  char *splitDst = nullptr;
  size_t splitBytes = 0, splitWritten = 0;
  bool splitStreamed = false;
};

/// A message to receive: dst = incoming (acc == nullptr) or acc op incoming.
struct RecvOp {
  int peer = -1; ///< communicator rank (set by the executor, diagnostics)
  void *dst = nullptr;
  const void *acc = nullptr;
  size_t bytes = 0;
  sched::DataType dtype = sched::DataType::Int8;
  sched::ReduceOp op = sched::ReduceOp::Sum;
  /// Write dst with non-temporal stores (reduce/Nontemporal.h): set by the
  /// executor when another rank's core reads dst next.
  bool nontemporal = false;
  /// Set by the executor when dst is the output of a call past the cache
  /// (core/Executor.cpp, pastCache) and no rank reads it later in the call
  /// but through a tee: dst streams, the tee's own copy too.
  bool pastCache = false;
  /// Bytes written into dst under pastCache (tests count them).
  size_t pastCacheBytes = 0;
  /// Set by the executor: this rank's message with ordinal teeOrdinal to the
  /// same peer is dst, whole and unchanged, so a peer's offer (SendOp's
  /// teeDst) for that ordinal may be taken.
  bool teeable = false;
  uint32_t teeOrdinal = 0;
  WireHeader expect;
  std::atomic<bool> done{false};
  // Transport-private progress state.
  size_t received = 0;
  int mode = 0;
  /// A second destination of the reduction (a peer's offered buffer).
  char *also = nullptr;
  /// The split: the number of this rank's ask for the peer's part (0: none).
  uint64_t splitSeq = 0;
};

/// Applies incoming bytes [off, off+len) of a receive to its destination.
/// `len` and `off` are multiples of the element size.
bool applyIncoming(RecvOp &op, size_t off, const void *data, size_t len);

/// One peer.
class Pair {
public:
  explicit Pair(int peer) : peer_(peer) {}
  virtual ~Pair() = default;
  Pair(const Pair &) = delete;
  Pair &operator=(const Pair &) = delete;

  int peer() const { return peer_; }
  /// "shm" or "tcp" (diagnostics, tests).
  virtual const char *kind() const = 0;
  /// True when the transport reads registered memory of the peer directly.
  virtual bool zeroCopyCapable() const { return false; }
  /// True when the executor's progress() moves the data, so that it pays to
  /// spin in it (shm, verbs, and tcp, whose engine thread stands in only
  /// while the executor sleeps); false for a transport whose own thread
  /// moves everything and rings the doorbell: spinning would take the CPU
  /// from the thread doing the work.
  virtual bool needsCallerProgress() const { return true; }
  /// The CPU the peer's executor last ran on, when it shares this host's
  /// scheduler (shm); -1 otherwise or when not known.
  virtual int peerCpu() const { return -1; }
  /// The executor stops calling progress() for now: it is about to sleep,
  /// or its call is over. A transport with a thread of its own hands the
  /// pair back to it.
  virtual void idle() {}

  /// Queue operations; they complete in posting order per direction.
  virtual Status postSend(SendOp &op) = 0;
  virtual Status postRecv(RecvOp &op) = 0;
  /// Advances this pair's operations on the calling (executor) thread; sets
  /// `moved` when anything progressed. An error fails the whole call.
  virtual Status progress(bool &moved) = 0;
  /// Cheap liveness check, called while waiting on this peer: a dead peer,
  /// a closed connection or a message of a different call waiting here.
  virtual Status health(const CallId &current) = 0;
  /// Only the last part of health(): a message of the current call number
  /// but a different call waiting here (checked on every pair while
  /// waiting, since a mismatched peer may send where nobody listens).
  virtual Status peekMismatch(const CallId &current) = 0;
  /// Thread-safe liveness only (no call context): ok, or why the peer is
  /// gone. A peer that left through HcclCommDestroy is not an error here.
  virtual Status liveness() = 0;
  /// Drops every queued operation (after a failure; the ops' memory is about
  /// to be released).
  virtual void cancelAll() = 0;
  /// Tells the peer that this rank aborted the communicator (best effort).
  virtual void notifyAbort(const Status &why) = 0;
  /// Graceful shutdown: the peer learns this side left on purpose.
  virtual void closeGraceful() = 0;

private:
  int peer_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_TRANSPORT_TRANSPORT_H
