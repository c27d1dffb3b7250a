//===- CollectiveApi.cpp - C API: collectives and point-to-point ----------===//
//
// Each entry point checks its arguments completely before anything is
// queued (so a bad call fails at once with HCCL_E_PARA / HCCL_E_PTR and a
// message), then runs the call now (NULL stream) or enqueues it.
//
//===----------------------------------------------------------------------===//
#include "capi/ApiSupport.h"

using namespace hccl::rt;
using namespace hccl::rt::capi;
namespace sched = hccl::sched;

namespace {

using Ctx = CallCtx;
Status resolve(HcclComm comm, aclrtStream stream, Ctx &ctx) {
  return resolveCall(comm, stream, ctx);
}

} // namespace

extern "C" {

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
                         HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                         aclrtStream stream) {
  const char *fn = "HcclAllReduce";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkReduceOp(op));
    API_TRY(fn, checkBytes(count, dataType, 1, "count"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", count));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", count));
    uint64_t bytes = count * elemSize(dataType);
    if (sendBuf != recvBuf && overlaps(sendBuf, bytes, recvBuf, bytes))
      return report(
          fn,
          errPara("sendBuf and recvBuf overlap (an in-place call passes the "
                  "same pointer twice)"));
    auto dt = static_cast<sched::DataType>(dataType);
    auto rop = static_cast<sched::ReduceOp>(op);
    Communicator *c = x.comm;
    return dispatch(fn, c, x.stream, [=] {
      return c->allReduce(sendBuf, recvBuf, count, dt, rop);
    });
  });
}

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType,
                         uint32_t root, HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclBroadcast";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkBytes(count, dataType, 1, "count"));
    API_TRY(fn, needPtr(buf, "buf", count));
    API_TRY(fn, checkRoot(root, x.comm));
    auto dt = static_cast<sched::DataType>(dataType);
    Communicator *c = x.comm;
    return dispatch(fn, c, x.stream,
                    [=] { return c->broadcast(buf, count, dt, root); });
  });
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                             HcclDataType dataType, HcclReduceOp op,
                             HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclReduceScatter";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkReduceOp(op));
    API_TRY(fn, checkBytes(recvCount, dataType,
                           static_cast<uint64_t>(x.comm->size()), "recvCount"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", recvCount));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", recvCount));
    uint64_t chunk = recvCount * elemSize(dataType);
    uint64_t total = chunk * static_cast<uint64_t>(x.comm->size());
    const char *inPlace = static_cast<const char *>(sendBuf) +
                          static_cast<uint64_t>(x.comm->rank()) * chunk;
    if (recvBuf != inPlace && overlaps(sendBuf, total, recvBuf, chunk))
      return report(
          fn, errPara("recvBuf overlaps sendBuf (in place, recvBuf must be "
                      "sendBuf + rank * recvCount elements)"));
    auto dt = static_cast<sched::DataType>(dataType);
    auto rop = static_cast<sched::ReduceOp>(op);
    Communicator *c = x.comm;
    return dispatch(fn, c, x.stream, [=] {
      return c->reduceScatter(sendBuf, recvBuf, recvCount, dt, rop);
    });
  });
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                         HcclDataType dataType, HcclComm comm,
                         aclrtStream stream) {
  const char *fn = "HcclAllGather";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkBytes(sendCount, dataType,
                           static_cast<uint64_t>(x.comm->size()), "sendCount"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", sendCount));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", sendCount));
    uint64_t chunk = sendCount * elemSize(dataType);
    uint64_t total = chunk * static_cast<uint64_t>(x.comm->size());
    const char *inPlace = static_cast<const char *>(recvBuf) +
                          static_cast<uint64_t>(x.comm->rank()) * chunk;
    if (sendBuf != inPlace && overlaps(sendBuf, chunk, recvBuf, total))
      return report(
          fn, errPara("sendBuf overlaps recvBuf (in place, sendBuf must be "
                      "recvBuf + rank * sendCount elements)"));
    auto dt = static_cast<sched::DataType>(dataType);
    Communicator *c = x.comm;
    return dispatch(fn, c, x.stream, [=] {
      return c->allGather(sendBuf, recvBuf, sendCount, dt);
    });
  });
}

HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count,
                      HcclDataType dataType, HcclReduceOp op, uint32_t root,
                      HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclReduce";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkReduceOp(op));
    API_TRY(fn, checkBytes(count, dataType, 1, "count"));
    API_TRY(fn, checkRoot(root, x.comm));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", count));
    bool isRoot = root == static_cast<uint32_t>(x.comm->rank());
    if (isRoot)
      API_TRY(fn, needPtr(recvBuf, "recvBuf (on the root)", count));
    uint64_t bytes = count * elemSize(dataType);
    if (recvBuf && sendBuf != recvBuf &&
        overlaps(sendBuf, bytes, recvBuf, bytes))
      return report(fn, errPara("sendBuf and recvBuf overlap"));
    auto dt = static_cast<sched::DataType>(dataType);
    auto rop = static_cast<sched::ReduceOp>(op);
    Communicator *c = x.comm;
    void *out = isRoot ? recvBuf : nullptr;
    return dispatch(fn, c, x.stream, [=] {
      return c->reduce(sendBuf, out, count, dt, rop, root);
    });
  });
}

HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount,
                        HcclDataType sendType, const void *recvBuf,
                        uint64_t recvCount, HcclDataType recvType,
                        HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclAlltoAll";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(sendType));
    API_TRY(fn, checkDataType(recvType));
    if (sendType != recvType)
      return report(
          fn, errPara("sendType and recvType differ (" +
                      std::to_string(static_cast<int>(sendType)) + " vs " +
                      std::to_string(static_cast<int>(recvType)) + ")"));
    if (sendCount != recvCount)
      return report(fn, errPara("sendCount " + std::to_string(sendCount) +
                                " differs from recvCount " +
                                std::to_string(recvCount)));
    API_TRY(fn, checkBytes(sendCount, sendType,
                           static_cast<uint64_t>(x.comm->size()), "sendCount"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", sendCount));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", recvCount));
    uint64_t total =
        sendCount * elemSize(sendType) * static_cast<uint64_t>(x.comm->size());
    if (overlaps(sendBuf, total, recvBuf, total))
      return report(
          fn,
          errPara("sendBuf and recvBuf overlap (all-to-all is not in place)"));
    auto dt = static_cast<sched::DataType>(sendType);
    Communicator *c = x.comm;
    void *out = const_cast<void *>(recvBuf);
    return dispatch(fn, c, x.stream,
                    [=] { return c->allToAll(sendBuf, out, sendCount, dt); });
  });
}

HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts,
                         const void *sdispls, HcclDataType sendType,
                         const void *recvBuf, const void *recvCounts,
                         const void *rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclAlltoAllV";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    if (!sendCounts || !sdispls || !recvCounts || !rdispls)
      return report(fn,
                    Status(HCCL_E_PTR, std::string(!sendCounts   ? "sendCounts"
                                                   : !sdispls    ? "sdispls"
                                                   : !recvCounts ? "recvCounts"
                                                                 : "rdispls") +
                                           " is NULL"));
    API_TRY(fn, checkDataType(sendType));
    API_TRY(fn, checkDataType(recvType));
    if (sendType != recvType)
      return report(fn, errPara("sendType and recvType differ"));
    const size_t p = static_cast<size_t>(x.comm->size());
    auto *sc = static_cast<const uint64_t *>(sendCounts);
    auto *sd = static_cast<const uint64_t *>(sdispls);
    auto *rc = static_cast<const uint64_t *>(recvCounts);
    auto *rd = static_cast<const uint64_t *>(rdispls);
    uint64_t sendExtent = 0, recvExtent = 0, sendTotal = 0, recvTotal = 0;
    for (size_t j = 0; j < p; ++j) {
      std::string at = "[" + std::to_string(j) + "]";
      for (auto [v, name] :
           {std::pair<uint64_t, const char *>{sc[j], "sendCounts"},
            {sd[j], "sdispls"},
            {rc[j], "recvCounts"},
            {rd[j], "rdispls"}})
        API_TRY(fn,
                checkBytes(v, sendType, 2, (std::string(name) + at).c_str()));
      sendExtent = std::max(sendExtent, sd[j] + sc[j]);
      recvExtent = std::max(recvExtent, rd[j] + rc[j]);
      sendTotal += sc[j];
      recvTotal += rc[j];
    }
    API_TRY(fn, checkBytes(sendExtent, sendType, 1, "send extent"));
    API_TRY(fn, checkBytes(recvExtent, sendType, 1, "receive extent"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", sendTotal));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", recvTotal));
    size_t es = elemSize(sendType);
    if (overlaps(sendBuf, sendExtent * es, recvBuf, recvExtent * es))
      return report(
          fn,
          errPara(
              "sendBuf and recvBuf overlap (all-to-all-v is not in place)"));
    std::vector<uint64_t> a(sc, sc + p), b(sd, sd + p), cc(rc, rc + p),
        d(rd, rd + p);
    auto dt = static_cast<sched::DataType>(sendType);
    Communicator *c = x.comm;
    void *out = const_cast<void *>(recvBuf);
    return dispatch(fn, c, x.stream, [=] {
      return c->allToAllV(sendBuf, a.data(), b.data(), out, cc.data(), d.data(),
                          dt);
    });
  });
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType,
                    uint32_t destRank, HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclSend";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkBytes(count, dataType, 1, "count"));
    API_TRY(fn, checkPeer(destRank, x.comm, "destRank"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", count));
    auto dt = static_cast<sched::DataType>(dataType);
    Communicator *c = x.comm;
    if (inGroup()) {
      groupAdd(c, x.stream, {true, sendBuf, count, dt, int(destRank)});
      return HCCL_SUCCESS;
    }
    return dispatch(fn, c, x.stream, [=] {
      return c->send(sendBuf, count, dt, static_cast<int>(destRank));
    });
  });
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType,
                    uint32_t srcRank, HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclRecv";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkBytes(count, dataType, 1, "count"));
    API_TRY(fn, checkPeer(srcRank, x.comm, "srcRank"));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", count));
    auto dt = static_cast<sched::DataType>(dataType);
    Communicator *c = x.comm;
    if (inGroup()) {
      groupAdd(c, x.stream, {false, recvBuf, count, dt, int(srcRank)});
      return HCCL_SUCCESS;
    }
    return dispatch(fn, c, x.stream, [=] {
      return c->recv(recvBuf, count, dt, static_cast<int>(srcRank));
    });
  });
}

HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
  const char *fn = "HcclBarrier";
  return guarded(fn, [&]() -> HcclResult {
    Ctx x;
    API_TRY(fn, resolve(comm, stream, x));
    Communicator *c = x.comm;
    return dispatch(fn, c, x.stream, [=] { return c->barrier(); });
  });
}

} // extern "C"
