//===- hccl.h - HCCL's C API on the bundled host runtime -----------------===//
//
// Source and binary compatible with Huawei HCCL's hccl.h (the version and
// the call-by-call status are in docs/compatibility.md): the communication
// operators here, communicator management in hccl_comm.h, types in
// hccl_types.h; <acl/acl.h> is the bundled host ACL stand-in. libhccl runs
// it all on host memory across processes and threads: shared memory between
// ranks of one host, TCP (or RoCE) between hosts.
//
// Every call validates its arguments: null pointers, unknown data types or
// operators, counts whose byte size overflows, out-of-range roots or ranks
// give HCCL_E_PARA (HCCL_E_PTR for a null communicator or buffer) and a
// message (HcclGetLastErrorMessage), never a crash. A NULL stream runs the
// call synchronously; an ACL / host stream queues it, in issue order.
//
// The extensions of this runtime (host streams, shareable memory, launcher
// bootstrap, split) are declared in hccl/hccl_host.h, included below.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_H_
#define HCCL_H_

#include <acl/acl.h>
#include <hccl/hccl_comm.h>
#include <hccl/hccl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

// Counts are elements. In-place calls pass the same buffer as send and
// receive buffer (all-gather: sendBuf == recvBuf + rank * sendCount;
// reduce-scatter: recvBuf == sendBuf + rank * recvCount).

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
                         HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                         aclrtStream stream);

/// In place: the root's `buf` is sent, every rank's `buf` receives.
HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType,
                         uint32_t root, HcclComm comm, aclrtStream stream);

/// recvCount elements per rank; sendBuf holds rankSize * recvCount.
HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                             HcclDataType dataType, HcclReduceOp op,
                             HcclComm comm, aclrtStream stream);

/// Rank i receives the reduction of every rank's sendBuf[sendDispls[i] ..
/// + sendCounts[i]) (uint64_t arrays of rankSize, in elements; the same on
/// every rank); recvCount must be sendCounts[rank].
HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts,
                              const void *sendDispls, void *recvBuf,
                              uint64_t recvCount, HcclDataType dataType,
                              HcclReduceOp op, HcclComm comm,
                              aclrtStream stream);

/// The root's sendBuf holds rankSize * recvCount elements; rank i receives
/// block i. sendBuf is read on the root only (may be NULL elsewhere).
HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                       HcclDataType dataType, uint32_t root, HcclComm comm,
                       aclrtStream stream);

/// sendCount elements per rank; recvBuf holds rankSize * sendCount.
HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                         HcclDataType dataType, HcclComm comm,
                         aclrtStream stream);

/// Rank i's sendCount elements land at recvBuf + recvDispls[i] on every
/// rank; recvCounts[i] (uint64_t arrays of rankSize, the same on every rank)
/// must equal rank i's sendCount.
HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                          const void *recvCounts, const void *recvDispls,
                          HcclDataType dataType, HcclComm comm,
                          aclrtStream stream);

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType,
                    uint32_t destRank, HcclComm comm, aclrtStream stream);
HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType,
                    uint32_t srcRank, HcclComm comm, aclrtStream stream);

/// sendCountMatrix: rankSize x rankSize uint64_t, row-major, [i][j] =
/// elements rank i sends to rank j (the same matrix on every rank). Blocks
/// are contiguous in rank order in both buffers.
HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
                          HcclDataType sendType, const void *recvBuf,
                          HcclDataType recvType, HcclComm comm,
                          aclrtStream stream);

/// sendCounts, sdispls, recvCounts, rdispls: arrays of rankSize uint64_t, in
/// elements. sendCounts[j] on rank i must equal recvCounts[i] on rank j.
HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts,
                         const void *sdispls, HcclDataType sendType,
                         const void *recvBuf, const void *recvCounts,
                         const void *rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream);

/// sendCount elements to every rank, recvCount from every rank; HCCL requires
/// sendCount == recvCount and sendType == recvType.
HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount,
                        HcclDataType sendType, const void *recvBuf,
                        uint64_t recvCount, HcclDataType recvType,
                        HcclComm comm, aclrtStream stream);

/// recvBuf is written on the root only (may be NULL elsewhere).
HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count,
                      HcclDataType dataType, HcclReduceOp op, uint32_t root,
                      HcclComm comm, aclrtStream stream);

/// The items' sends and receives run together, so their order cannot
/// deadlock. As in HCCL: at most one send and one receive per peer; a send
/// to this rank itself needs the matching receive (a copy).
HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
                             HcclComm comm, aclrtStream stream);

#ifdef __cplusplus
} // extern "C"
#endif

#include <hccl/hccl_host.h>

#endif // HCCL_H_
