//===- VCollectiveApi.cpp - C API: scatter and the vector collectives -----===//
//
// HcclScatter, HcclAllGatherV, HcclReduceScatterV and HcclAlltoAllVC are
// all-to-all-v exchanges with particular count tables (each rank knows its
// own row and column), so they reuse its generator and executor instead of
// algorithms of their own:
//  - scatter: the root sends block j to rank j, the others send nothing;
//  - all-gather-v: every rank sends its block to every rank, which places it
//    at recvDispls[i];
//  - reduce-scatter-v: rank j receives block j of every rank and reduces
//    them in rank order 0..p-1 (deterministic, and order-preserving as
//    HCCL_DETERMINISTIC=strict wants);
//  - all-to-all-vc: the count matrix gives both tables, blocks contiguous in
//    rank order.
// A rank's own block never travels: in place it is already there,
// otherwise it is copied (all-to-all-v's diagonal).
//
//===----------------------------------------------------------------------===//
#include "capi/ApiSupport.h"
#include "reduce/Reduce.h"

#include <cstring>

using namespace hccl::rt;
using namespace hccl::rt::capi;
namespace sched = hccl::sched;

namespace {

/// The tables of one all-to-all-v exchange.
struct Tables {
  std::vector<uint64_t> sc, sd, rc, rd;
  explicit Tables(size_t p) : sc(p, 0), sd(p, 0), rc(p, 0), rd(p, 0) {}
};

HcclResult runAllToAllV(const char *fn, const CallCtx &x, const void *in,
                        void *out, Tables t, sched::DataType dt) {
  Communicator *c = x.comm;
  return dispatch(fn, c, x.stream, [=] {
    return c->allToAllV(in, t.sc.data(), t.sd.data(), out, t.rc.data(),
                        t.rd.data(), dt);
  });
}

/// Reads a uint64_t table of `p` entries, each a count of `t` that fits.
Status readTable(const void *arr, size_t p, HcclDataType t, const char *name,
                 std::vector<uint64_t> &out) {
  if (arr == nullptr)
    return Status(HCCL_E_PTR, std::string(name) + " is NULL");
  auto *v = static_cast<const uint64_t *>(arr);
  out.assign(v, v + p);
  for (size_t j = 0; j < p; ++j)
    HCCL_RT_TRY(checkBytes(
        out[j], t, 2,
        (std::string(name) + "[" + std::to_string(j) + "]").c_str()));
  return Status::ok();
}

} // namespace

extern "C" {

HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                       HcclDataType dataType, uint32_t root, HcclComm comm,
                       aclrtStream stream) {
  const char *fn = "HcclScatter";
  return guarded(fn, [&]() -> HcclResult {
    CallCtx x;
    API_TRY(fn, resolveCall(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkRoot(root, x.comm));
    const size_t p = static_cast<size_t>(x.comm->size());
    const uint32_t me = static_cast<uint32_t>(x.comm->rank());
    API_TRY(fn, checkBytes(recvCount, dataType, p, "recvCount"));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", recvCount));
    const uint64_t chunk = recvCount * elemSize(dataType);
    Tables t(p);
    t.rc[root] = recvCount;
    if (me == root) {
      API_TRY(fn, needPtr(sendBuf, "sendBuf (on the root)", recvCount));
      const char *mine = static_cast<const char *>(sendBuf) + root * chunk;
      bool inPlace = recvBuf == mine;
      if (!inPlace && overlaps(sendBuf, chunk * p, recvBuf, chunk))
        return report(fn, errPara("recvBuf overlaps sendBuf (in place, "
                                  "recvBuf must be sendBuf + root * "
                                  "recvCount elements)"));
      for (size_t j = 0; j < p; ++j) {
        t.sc[j] = recvCount;
        t.sd[j] = j * recvCount;
      }
      if (inPlace)
        t.sc[root] = t.rc[root] = 0;
    }
    return runAllToAllV(fn, x, me == root ? sendBuf : nullptr, recvBuf,
                        std::move(t), static_cast<sched::DataType>(dataType));
  });
}

HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                          const void *recvCounts, const void *recvDispls,
                          HcclDataType dataType, HcclComm comm,
                          aclrtStream stream) {
  const char *fn = "HcclAllGatherV";
  return guarded(fn, [&]() -> HcclResult {
    CallCtx x;
    API_TRY(fn, resolveCall(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    const size_t p = static_cast<size_t>(x.comm->size());
    const size_t me = static_cast<size_t>(x.comm->rank());
    Tables t(p);
    API_TRY(fn, readTable(recvCounts, p, dataType, "recvCounts", t.rc));
    API_TRY(fn, readTable(recvDispls, p, dataType, "recvDispls", t.rd));
    API_TRY(fn, checkBytes(sendCount, dataType, 1, "sendCount"));
    if (t.rc[me] != sendCount)
      return report(fn, errPara("recvCounts[" + std::to_string(me) +
                                "] = " + std::to_string(t.rc[me]) +
                                " differs from this rank's sendCount " +
                                std::to_string(sendCount)));
    uint64_t extent = 0, total = 0;
    for (size_t j = 0; j < p; ++j) {
      extent = std::max(extent, t.rd[j] + t.rc[j]);
      total += t.rc[j];
    }
    API_TRY(fn, checkBytes(extent, dataType, 1, "receive extent"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", sendCount));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", total));
    const size_t es = elemSize(dataType);
    const char *mine = static_cast<const char *>(recvBuf) + t.rd[me] * es;
    bool inPlace = sendBuf == mine;
    if (!inPlace && overlaps(sendBuf, sendCount * es, recvBuf, extent * es))
      return report(fn, errPara("sendBuf overlaps recvBuf (in place, sendBuf "
                                "must be recvBuf + recvDispls[rank] "
                                "elements)"));
    for (size_t j = 0; j < p; ++j)
      t.sc[j] = sendCount; // sd[j] = 0: the same block to everyone
    if (inPlace)
      t.sc[me] = t.rc[me] = 0;
    return runAllToAllV(fn, x, sendBuf, recvBuf, std::move(t),
                        static_cast<sched::DataType>(dataType));
  });
}

HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts,
                              const void *sendDispls, void *recvBuf,
                              uint64_t recvCount, HcclDataType dataType,
                              HcclReduceOp op, HcclComm comm,
                              aclrtStream stream) {
  const char *fn = "HcclReduceScatterV";
  return guarded(fn, [&]() -> HcclResult {
    CallCtx x;
    API_TRY(fn, resolveCall(comm, stream, x));
    API_TRY(fn, checkDataType(dataType));
    API_TRY(fn, checkReduceOp(op));
    const size_t p = static_cast<size_t>(x.comm->size());
    const size_t me = static_cast<size_t>(x.comm->rank());
    Tables t(p);
    API_TRY(fn, readTable(sendCounts, p, dataType, "sendCounts", t.sc));
    API_TRY(fn, readTable(sendDispls, p, dataType, "sendDispls", t.sd));
    if (t.sc[me] != recvCount)
      return report(fn, errPara("sendCounts[" + std::to_string(me) +
                                "] = " + std::to_string(t.sc[me]) +
                                " differs from recvCount " +
                                std::to_string(recvCount)));
    API_TRY(fn, checkBytes(recvCount, dataType, p, "recvCount"));
    uint64_t extent = 0, total = 0;
    for (size_t j = 0; j < p; ++j) {
      extent = std::max(extent, t.sd[j] + t.sc[j]);
      total += t.sc[j];
    }
    API_TRY(fn, checkBytes(extent, dataType, 1, "send extent"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", total));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", recvCount));
    const size_t es = elemSize(dataType);
    const char *mine = static_cast<const char *>(sendBuf) + t.sd[me] * es;
    if (recvBuf != mine &&
        overlaps(sendBuf, extent * es, recvBuf, recvCount * es))
      return report(fn, errPara("recvBuf overlaps sendBuf (in place, recvBuf "
                                "must be sendBuf + sendDispls[rank] "
                                "elements)"));
    // Block j of every rank goes to rank j; this rank's own block stays.
    for (size_t i = 0; i < p; ++i) {
      t.rc[i] = i == me ? 0 : recvCount;
      t.rd[i] = i * recvCount;
    }
    t.sc[me] = 0;
    auto dt = static_cast<sched::DataType>(dataType);
    auto rop = static_cast<sched::ReduceOp>(op);
    Communicator *c = x.comm;
    return dispatch(fn, c, x.stream, [=]() -> Status {
      std::vector<char> blocks(static_cast<size_t>(recvCount) * es * p);
      HCCL_RT_TRY(c->allToAllV(sendBuf, t.sc.data(), t.sd.data(), blocks.data(),
                               t.rc.data(), t.rd.data(), dt));
      if (recvCount == 0)
        return Status::ok();
      std::vector<const void *> srcs(p);
      for (size_t i = 0; i < p; ++i)
        srcs[i] = i == me ? static_cast<const void *>(mine)
                          : blocks.data() + i * recvCount * es;
      if (!reduceMany(recvBuf, srcs.data(), static_cast<int>(p),
                      static_cast<size_t>(recvCount), dt, rop))
        return errInternal("reduction kernel refused the data type");
      return Status::ok();
    });
  });
}

HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
                          HcclDataType sendType, const void *recvBuf,
                          HcclDataType recvType, HcclComm comm,
                          aclrtStream stream) {
  const char *fn = "HcclAlltoAllVC";
  return guarded(fn, [&]() -> HcclResult {
    CallCtx x;
    API_TRY(fn, resolveCall(comm, stream, x));
    if (sendCountMatrix == nullptr)
      return report(fn, Status(HCCL_E_PTR, "sendCountMatrix is NULL"));
    API_TRY(fn, checkDataType(sendType));
    API_TRY(fn, checkDataType(recvType));
    if (sendType != recvType)
      return report(fn, errPara("sendType and recvType differ"));
    const size_t p = static_cast<size_t>(x.comm->size());
    const size_t me = static_cast<size_t>(x.comm->rank());
    auto *m = static_cast<const uint64_t *>(sendCountMatrix);
    Tables t(p);
    uint64_t sendTotal = 0, recvTotal = 0;
    for (size_t j = 0; j < p; ++j) {
      uint64_t s = m[me * p + j], r = m[j * p + me];
      std::string at = "sendCountMatrix[";
      API_TRY(fn, checkBytes(
                      s, sendType, 2,
                      (at + std::to_string(me) + "][" + std::to_string(j) + "]")
                          .c_str()));
      API_TRY(fn, checkBytes(
                      r, sendType, 2,
                      (at + std::to_string(j) + "][" + std::to_string(me) + "]")
                          .c_str()));
      t.sc[j] = s;
      t.sd[j] = sendTotal;
      t.rc[j] = r;
      t.rd[j] = recvTotal;
      sendTotal += s;
      recvTotal += r;
    }
    API_TRY(fn, checkBytes(sendTotal, sendType, 1, "send total"));
    API_TRY(fn, checkBytes(recvTotal, sendType, 1, "receive total"));
    API_TRY(fn, needPtr(sendBuf, "sendBuf", sendTotal));
    API_TRY(fn, needPtr(recvBuf, "recvBuf", recvTotal));
    const size_t es = elemSize(sendType);
    if (overlaps(sendBuf, sendTotal * es, recvBuf, recvTotal * es))
      return report(fn, errPara("sendBuf and recvBuf overlap (all-to-all-vc "
                                "is not in place)"));
    return runAllToAllV(fn, x, sendBuf, const_cast<void *>(recvBuf),
                        std::move(t), static_cast<sched::DataType>(sendType));
  });
}

} // extern "C"
