//===- P2pBatch.h - point-to-point calls held until something needs them --===//
//
// c10d's isend / irecv are asynchronous in any order: every rank may post
// its receives before its sends (torch's batch_isend_irecv with such a
// list). The group's Worker runs one blocking runtime call at a time, so a
// receive run as soon as it is issued would wait for a send queued behind
// it, on every rank. Point-to-point calls are therefore held here and
// issued together as HcclBatchSendRecv calls (whose sends and receives are
// posted together) when something needs one of them: a wait, a poll or the
// future of one of their works, the next collective of the group (which
// keeps the issue order), or the group's end.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TORCH_P2PBATCH_H
#define HCCL_TORCH_P2PBATCH_H

#include "Work.h"

#include "hccl/hccl.h"

#include <memory>
#include <mutex>
#include <vector>

namespace hccl_torch {

class P2pBatch : public std::enable_shared_from_this<P2pBatch> {
public:
  P2pBatch(HcclComm comm, Worker *worker) : comm_(comm), worker_(worker) {}

  /// Holds a send of `buf` to `peer`, or a receive into `buf` from `peer`
  /// that is then copied into `dst` (the caller's tensor, when `buf` is its
  /// contiguous copy). Returns the work, which issues what is held when it
  /// is waited for or polled.
  c10::intrusive_ptr<HcclWork> add(int rank, bool send, int peer,
                                   at::Tensor buf, at::Tensor dst);
  /// Queues what is held on the worker (nothing when nothing is held).
  void flush();
  /// Flushes, then refuses further calls (the group is ending).
  void close();

private:
  struct Op {
    c10::intrusive_ptr<HcclWork> work;
    bool send;
    int peer;
    at::Tensor buf, dst;
  };
  std::mutex mu_;
  HcclComm comm_;
  Worker *worker_; // null once closed
  std::vector<Op> held_;
};

} // namespace hccl_torch

#endif // HCCL_TORCH_P2PBATCH_H
