//===- P2pBatch.cpp - point-to-point calls held until something needs them ===//

#include "P2pBatch.h"

#include "HcclError.h"
#include "Tensors.h"

#include <c10/util/Exception.h>

#include <map>
#include <utility>

namespace hccl_torch {

c10::intrusive_ptr<HcclWork> P2pBatch::add(int rank, bool send, int peer,
                                           at::Tensor buf, at::Tensor dst) {
  auto work = c10::make_intrusive<HcclWork>(
      rank, send ? c10d::OpType::SEND : c10d::OpType::RECV,
      std::vector<at::Tensor>{dst}, nullptr);
  // The work keeps this batch alive only while it is held (flush clears
  // held_, and so the cycle).
  std::weak_ptr<P2pBatch> self = weak_from_this();
  work->setIssue([self] {
    if (auto b = self.lock())
      b->flush();
  });
  std::lock_guard<std::mutex> lock(mu_);
  TORCH_CHECK(worker_ != nullptr, "hccl: ", send ? "send" : "recv",
              " on a process group that is being destroyed");
  held_.push_back({work, send, peer, std::move(buf), std::move(dst)});
  return work;
}

void P2pBatch::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (held_.empty())
    return;
  std::vector<Op> ops = std::move(held_);
  held_.clear();
  // HcclBatchSendRecv takes at most one send to and one receive from each
  // peer: the k-th send to (receive from) a peer goes into batch k. The
  // runtime pairs messages per peer and direction in issue order, batched
  // or not, so issuing batch 0, 1, ... keeps the order the caller gave.
  std::vector<std::vector<HcclSendRecvItem>> batches;
  std::map<std::pair<int, bool>, size_t> seen;
  for (const Op &o : ops) {
    size_t k = seen[{o.peer, o.send}]++;
    if (k == batches.size())
      batches.emplace_back();
    Buffer b = bufferOf(o.buf);
    batches[k].push_back({o.send ? HCCL_SEND : HCCL_RECV, b.ptr, b.count,
                          b.type, static_cast<uint32_t>(o.peer)});
  }
  // The first work runs every batch; each work then completes in order,
  // with the batches' error if they failed.
  auto error = std::make_shared<std::exception_ptr>();
  auto all = std::make_shared<decltype(batches)>(std::move(batches));
  HcclComm comm = comm_;
  for (size_t i = 0; i < ops.size(); ++i) {
    Op &o = ops[i];
    bool first = i == 0;
    at::Tensor buf = o.buf, dst = o.dst;
    bool copy = !o.send && !buf.is_same(dst);
    o.work->setBody([=]() mutable {
      if (first) {
        try {
          for (auto &items : *all)
            hcclCheck(HcclBatchSendRecv(items.data(),
                                        static_cast<uint32_t>(items.size()),
                                        comm, nullptr),
                      "HcclBatchSendRecv");
        } catch (...) {
          *error = std::current_exception();
        }
      }
      if (*error)
        std::rethrow_exception(*error);
      if (copy)
        dst.copy_(buf);
    });
    worker_->enqueue(o.work);
  }
}

void P2pBatch::close() {
  flush();
  std::lock_guard<std::mutex> lock(mu_);
  worker_ = nullptr;
}

} // namespace hccl_torch
