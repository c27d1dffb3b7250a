//===- GroupApi.cpp - C API: HcclBatchSendRecv and group calls ------------===//
//
// Both issue sends and receives that run together (Communicator::
// batchSendRecv), so their order cannot deadlock. HcclBatchSendRecv checks
// its items as HCCL does: at most one send and one receive per peer, and a
// send to this rank itself only with the matching receive. Groups collect
// this thread's HcclSend / HcclRecv calls (checked when made) and issue one
// batch per communicator and stream at the outermost HcclGroupEnd, in the
// order the communicators were first used.
//
//===----------------------------------------------------------------------===//
#include "capi/ApiSupport.h"

#include <cstring>

using namespace hccl::rt;
using namespace hccl::rt::capi;
namespace sched = hccl::sched;

namespace {

struct Deferred {
  Communicator *comm;
  HostStream *stream;
  Communicator::P2pOp op;
};

struct GroupState {
  int depth = 0;
  std::vector<Deferred> ops;
};
thread_local GroupState tlsGroup;

HcclResult issueBatch(const char *fn, Communicator *c, HostStream *s,
                      std::vector<Communicator::P2pOp> ops) {
  return dispatch(fn, c, s,
                  [c, ops = std::move(ops)] { return c->batchSendRecv(ops); });
}

} // namespace

namespace hccl::rt::capi {

bool inGroup() { return tlsGroup.depth > 0; }

void groupAdd(Communicator *c, HostStream *s, const Communicator::P2pOp &op) {
  tlsGroup.ops.push_back({c, s, op});
}

} // namespace hccl::rt::capi

extern "C" {

HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
                             HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclBatchSendRecv";
  return guarded(fn, [&]() -> HcclResult {
    CallCtx x;
    API_TRY(fn, resolveCall(comm, stream, x));
    if (sendRecvInfo == nullptr)
      return report(fn, Status(HCCL_E_PTR, "sendRecvInfo is NULL"));
    const uint32_t p = static_cast<uint32_t>(x.comm->size());
    const uint32_t me = static_cast<uint32_t>(x.comm->rank());
    if (itemNum == 0 || itemNum > 2 * p)
      return report(fn, errPara("itemNum " + std::to_string(itemNum) +
                                " is outside 1.." + std::to_string(2 * p) +
                                " (one send and one receive per rank)"));
    std::vector<const HcclSendRecvItem *> sendTo(p, nullptr),
        recvFrom(p, nullptr);
    std::vector<Communicator::P2pOp> ops;
    for (uint32_t i = 0; i < itemNum; ++i) {
      const HcclSendRecvItem &it = sendRecvInfo[i];
      std::string at = "item " + std::to_string(i);
      if (it.sendRecvType != HCCL_SEND && it.sendRecvType != HCCL_RECV)
        return report(fn, errPara(at + ": sendRecvType " +
                                  std::to_string(it.sendRecvType) +
                                  " is neither HCCL_SEND nor HCCL_RECV"));
      API_TRY(fn, checkDataType(it.dataType).withContext(at));
      API_TRY(fn,
              checkBytes(it.count, it.dataType, 1, (at + ": count").c_str()));
      API_TRY(fn, needPtr(it.buf, (at + ": buf").c_str(), it.count));
      if (it.remoteRank >= p)
        return report(fn, errPara(at + ": remoteRank " +
                                  std::to_string(it.remoteRank) +
                                  " is outside 0.." + std::to_string(p - 1)));
      bool send = it.sendRecvType == HCCL_SEND;
      auto &slot = (send ? sendTo : recvFrom)[it.remoteRank];
      if (slot)
        return report(fn, errPara(at + ": a second " +
                                  (send ? std::string("send to")
                                        : std::string("receive from")) +
                                  " rank " + std::to_string(it.remoteRank) +
                                  " (one of each per rank)"));
      slot = &it;
      ops.push_back({send, it.buf, it.count,
                     static_cast<sched::DataType>(it.dataType),
                     static_cast<int>(it.remoteRank)});
    }
    const HcclSendRecvItem *ss = sendTo[me], *sr = recvFrom[me];
    if ((ss != nullptr) != (sr != nullptr))
      return report(fn, errPara(std::string("a ") +
                                (ss ? "send to" : "receive from") +
                                " this rank itself needs the matching " +
                                (ss ? "receive" : "send")));
    if (ss && (ss->count != sr->count || ss->dataType != sr->dataType))
      return report(fn, errPara("the send to this rank itself and its "
                                "receive differ in count or data type"));
    return issueBatch(fn, x.comm, x.stream, std::move(ops));
  });
}

HcclResult HcclGroupStart(void) {
  ++tlsGroup.depth;
  return HCCL_SUCCESS;
}

HcclResult HcclGroupEnd(void) {
  const char *fn = "HcclGroupEnd";
  return guarded(fn, [&]() -> HcclResult {
    if (tlsGroup.depth == 0)
      return report(fn, errPara("HcclGroupEnd without HcclGroupStart"));
    if (--tlsGroup.depth > 0)
      return HCCL_SUCCESS;
    std::vector<Deferred> ops;
    ops.swap(tlsGroup.ops);
    HcclResult first = HCCL_SUCCESS;
    std::vector<bool> done(ops.size(), false);
    for (size_t i = 0; i < ops.size(); ++i) {
      if (done[i])
        continue;
      std::vector<Communicator::P2pOp> batch;
      for (size_t j = i; j < ops.size(); ++j)
        if (!done[j] && ops[j].comm == ops[i].comm &&
            ops[j].stream == ops[i].stream) {
          batch.push_back(ops[j].op);
          done[j] = true;
        }
      // The communicator may have been destroyed meanwhile.
      Communicator *c;
      HcclResult rc = HCCL_SUCCESS;
      if (Status st = resolveActiveComm(ops[i].comm, &c); !st.isOk())
        rc = report(fn, st);
      else
        rc = issueBatch(fn, c, ops[i].stream, std::move(batch));
      if (first == HCCL_SUCCESS)
        first = rc;
    }
    return first;
  });
}

HcclResult HcclGroupStatusGet(bool *isGroupEnabled) {
  if (isGroupEnabled == nullptr)
    return report("HcclGroupStatusGet",
                  Status(HCCL_E_PTR, "isGroupEnabled is NULL"));
  *isGroupEnabled = tlsGroup.depth > 0;
  return HCCL_SUCCESS;
}

} // extern "C"
