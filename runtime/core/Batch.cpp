//===- Batch.cpp - Sends and receives posted together ---------------------===//
//
// HcclBatchSendRecv and HCCL's group calls: every send and receive of the
// batch is posted before any is waited for, so two ranks that both send
// first cannot deadlock. Messages pair as single HcclSend / HcclRecv do
// (per peer and direction, in issue order), so batched and single calls mix.
//
//===----------------------------------------------------------------------===//
#include "core/Communicator.h"
#include "core/LocalWork.h"
#include "reduce/Copy.h"

namespace hccl::rt {

Status Communicator::batchSendRecv(const std::vector<P2pOp> &ops) {
  HCCL_RT_TRY(guard());
  // To this rank itself: the C API checked that send and receive match.
  const P2pOp *selfSend = nullptr, *selfRecv = nullptr;
  for (const P2pOp &o : ops)
    if (o.peer == rank_)
      (o.send ? selfSend : selfRecv) = &o;
  if (selfSend && selfRecv && selfSend->count > 0 &&
      selfSend->buf != selfRecv->buf)
    moveBytes(selfRecv->buf, selfSend->buf,
              static_cast<size_t>(selfSend->count) *
                  sched::dataTypeSize(selfSend->dt));

  // The batch waits as one call whose number (0) no message carries, so the
  // mismatch check cannot mistake the batch's own messages for another call.
  CallId batch;
  batch.kind = CallKind::SendRecv;
  batch.seq = 0;
  std::vector<std::unique_ptr<SendOp>> sends;
  std::vector<std::unique_ptr<RecvOp>> recvs;
  std::vector<SendOp *> sendPtrs;
  std::vector<RecvOp *> recvPtrs;
  for (const P2pOp &o : ops) {
    if (o.peer == rank_ || o.count == 0)
      continue;
    size_t bytes = static_cast<size_t>(o.count) * sched::dataTypeSize(o.dt);
    CallId c;
    c.kind = CallKind::SendRecv;
    c.count = o.count;
    c.dtype = static_cast<uint8_t>(o.dt);
    Status st;
    if (o.send) {
      auto op = std::make_unique<SendOp>();
      op->peer = o.peer;
      op->src = o.buf;
      op->bytes = bytes;
      c.seq = ++p2pSendSeq_[static_cast<size_t>(o.peer)];
      op->hdr.call = c;
      op->hdr.bytes = bytes;
      st = pairs_[static_cast<size_t>(o.peer)]->postSend(*op);
      sendPtrs.push_back(op.get());
      sends.push_back(std::move(op));
    } else {
      auto op = std::make_unique<RecvOp>();
      op->peer = o.peer;
      op->dst = o.buf;
      op->bytes = bytes;
      op->dtype = o.dt;
      c.seq = ++p2pRecvSeq_[static_cast<size_t>(o.peer)];
      op->expect.call = c;
      op->expect.bytes = bytes;
      st = pairs_[static_cast<size_t>(o.peer)]->postRecv(*op);
      recvPtrs.push_back(op.get());
      recvs.push_back(std::move(op));
    }
    if (!st.isOk())
      return failCall(c, 0, st);
  }
  if (sendPtrs.empty() && recvPtrs.empty())
    return Status::ok();
  LocalWork none;
  Binding b; // Int8: the wait counts bytes
  LazyDeadline dl(static_cast<int64_t>(cfg_.execTimeoutSec));
  return waitFor(batch, sendPtrs, recvPtrs, none, b, dl, 0);
}

} // namespace hccl::rt
