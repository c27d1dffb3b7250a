//===- Transport.cpp - Wire headers and receive application --------------===//
#include "transport/Transport.h"
#include "reduce/Copy.h"
#include "reduce/Nontemporal.h"
#include "reduce/Reduce.h"

namespace hccl::rt {

const char *callKindName(CallKind k) {
  switch (k) {
  case CallKind::AllReduce:
    return "allreduce";
  case CallKind::ReduceScatter:
    return "reducescatter";
  case CallKind::AllGather:
    return "allgather";
  case CallKind::Broadcast:
    return "broadcast";
  case CallKind::Reduce:
    return "reduce";
  case CallKind::AllToAll:
    return "alltoall";
  case CallKind::AllToAllV:
    return "alltoallv";
  case CallKind::Barrier:
    return "barrier";
  case CallKind::SendRecv:
    return "send/recv";
  case CallKind::Internal:
    return "internal";
  case CallKind::Plan:
    return "plan";
  }
  return "unknown";
}

std::string CallId::str() const {
  // Plan calls carry their group's hash in the high half (Collectives.cpp).
  uint64_t number = kind == CallKind::Plan ? seq & 0xffffffffull : seq;
  std::string s = std::string(callKindName(kind)) + " #" +
                  std::to_string(number) + " (count " + std::to_string(count);
  auto dt = static_cast<sched::DataType>(dtype);
  if (sched::dataTypeSize(dt) != 0)
    s += std::string(", ") + sched::dataTypeName(dt);
  if (kind == CallKind::AllReduce || kind == CallKind::ReduceScatter ||
      kind == CallKind::Reduce)
    s += std::string(", ") +
         sched::reduceOpName(static_cast<sched::ReduceOp>(op));
  if (kind == CallKind::Broadcast || kind == CallKind::Reduce)
    s += ", root " + std::to_string(root);
  if (kind == CallKind::SendRecv)
    s += ", peer pair";
  if (kind != CallKind::SendRecv && kind != CallKind::Internal &&
      kind != CallKind::Barrier && algo < sched::kNumAlgorithms)
    s += std::string(", ") +
         sched::algorithmName(static_cast<sched::Algorithm>(algo));
  return s + ")";
}

std::string describeMismatch(int peer, const WireHeader &want,
                             const WireHeader &got) {
  if (got.magic != WireHeader::kMagic)
    return "corrupt message from rank " + std::to_string(peer) + " (bad magic)";
  if (got.call != want.call)
    return "mismatched calls: this rank is in " + want.call.str() +
           " but rank " + std::to_string(peer) + " sent data for " +
           got.call.str();
  return "mismatched calls: in " + want.call.str() +
         " this rank expects message " + std::to_string(want.ordinal) + " of " +
         std::to_string(want.bytes) + " bytes from rank " +
         std::to_string(peer) + " but got message " +
         std::to_string(got.ordinal) + " of " + std::to_string(got.bytes) +
         " bytes";
}

bool applyIncoming(RecvOp &op, size_t off, const void *data, size_t len) {
  // A zero-count receive (all-to-all-v, scatter: a rank with no block) may
  // have null buffers, which memcpy may not be given even for 0 bytes
  // (UBSan in the sanitizer leg, HcclApi.ScatterFromEveryRootInAndOutOfPlace).
  if (len == 0)
    return true;
  char *dst = static_cast<char *>(op.dst) + off;
  if (op.pastCache)
    op.pastCacheBytes += len;
  if (op.acc == nullptr) {
    if (op.nontemporal || op.pastCache)
      copyNontemporal(dst, data, len);
    else
      copyBytes(dst, data, len);
    return true;
  }
  size_t es = sched::dataTypeSize(op.dtype);
  const char *acc = static_cast<const char *>(op.acc) + off;
  const void *srcs[2] = {acc, data};
  if (op.also) // the tee: ours in cache (unless past it), the peer's streamed
    return reduceManyTee(dst, op.also + off, srcs, 2, len / es, op.dtype, op.op,
                         op.pastCache);
  if (op.nontemporal || op.pastCache)
    return reduceManyNontemporal(dst, srcs, 2, len / es, op.dtype, op.op);
  return reduceMany(dst, srcs, 2, len / es, op.dtype, op.op);
}

} // namespace hccl::rt
