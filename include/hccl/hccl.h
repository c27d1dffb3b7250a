//===- hccl.h - HCCL-compatible C API of the bundled host runtime --------===//
//
// Source-compatible with Huawei HCCL's hccl.h for communicator creation, the
// collectives, point-to-point calls and error queries, executed by the
// bundled runtime (libhccl) on host memory across processes: shared memory
// between ranks of one host, TCP between hosts.
//
// Extensions, all prefixed Hccl and documented in docs/runtime.md:
//  - host streams (HcclStreamCreate ...): the `aclrtStream stream` argument of
//    every collective is such a stream or NULL (synchronous);
//  - HcclMemAlloc / HcclMemFree: buffers that same-host peers read directly
//    (zero-copy), like device memory under HCCL;
//  - HcclCommInitFromEnv: bootstrap from mpirun / torchrun variables;
//  - HcclCommSplit: NCCL-style sub-communicators by colour and key;
//  - HcclGetLastErrorMessage: the one-line message of the calling thread's
//    last failed call.
//
// Every call validates its arguments: null pointers, unknown data types or
// operators, counts whose byte size overflows, out-of-range roots or ranks
// give HCCL_E_PARA (HCCL_E_PTR for a null communicator or buffer) and a
// message, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_H_
#define HCCL_H_

#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Communicators
//===----------------------------------------------------------------------===//

/// Fills `rootInfo` with this process's rendezvous address (HCCL_IF_IP /
/// HCCL_SOCKET_IFNAME choose the interface, HCCL_IF_BASE_PORT the port range)
/// and a fresh unique id. Call on the root rank only, then give the blob to
/// every rank. The root keeps listening until its HcclCommInitRootInfo.
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);

/// Creates the communicator of `nRanks` ranks; this process is `rank`. Every
/// rank passes the same root info. Fails with HCCL_E_TIMEOUT after
/// HCCL_CONNECT_TIMEOUT seconds when ranks are missing, naming them.
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                uint32_t rank, HcclComm *comm);
HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks,
                                      const HcclRootInfo *rootInfo,
                                      uint32_t rank,
                                      const HcclCommConfig *config,
                                      HcclComm *comm);

/// Creates the communicator described by an HCCL rank table JSON file
/// (version 1.0). Rank 0's server and HCCL_IF_BASE_PORT give the rendezvous
/// address; `rank` is this process's rank_id.
HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
                                   HcclComm *comm);
HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                         HcclCommConfig *config,
                                         HcclComm *comm);

/// Extension: creates the world communicator from the launcher's variables:
/// OMPI_COMM_WORLD_RANK/SIZE (Open MPI), PMI_RANK/PMI_SIZE (MPICH, Intel
/// MPI) or RANK/WORLD_SIZE (torchrun), with the rendezvous at
/// MASTER_ADDR:MASTER_PORT, or through the file named by HCCL_ROOT_INFO_FILE
/// (rank 0 writes its root info there, the others wait for it).
HcclResult HcclCommInitFromEnv(HcclComm *comm);

/// Creates a sub-communicator of `comm` holding the world ranks
/// `rankIds[0..rankNum)`; this process is `subCommRankId` in it. Every member
/// calls with the same ranks and `subCommId` (non-members do not call).
HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum,
                                   uint32_t *rankIds, uint64_t subCommId,
                                   uint32_t subCommRankId,
                                   HcclCommConfig *config, HcclComm *subComm);

/// Extension (NCCL's ncclCommSplit): every rank of `comm` calls; ranks with
/// the same `color` form a communicator, ordered by (`key`, old rank). A
/// negative colour opts out and yields *newComm == NULL.
HcclResult HcclCommSplit(HcclComm comm, int color, int key, HcclComm *newComm);

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);

/// Waits for the communicator's queued work, then releases everything it
/// holds: connections, threads, shared memory (nothing is left in /dev/shm).
HcclResult HcclCommDestroy(HcclComm comm);

/// Initialises a config to "everything from the environment".
static inline void HcclCommConfigInit(HcclCommConfig *config) {
  typedef struct {
    size_t size;
    uint32_t magicWord;
    uint32_t version;
    uint64_t reserved;
  } HcclCommConfigInfo;
  if (config == 0)
    return;
  HcclCommConfigInfo *info = (HcclCommConfigInfo *)config;
  info->size = sizeof(HcclCommConfig);
  info->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
  info->version = HCCL_COMM_CONFIG_VERSION;
  info->reserved = 0;
  config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
  config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
  config->hcclCommName[0] = '\0';
  config->hcclUdi[0] = '\0';
  config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
  config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
  config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
  config->hcclWorldRankID = 0;
  config->hcclJobID = 0;
}

//===----------------------------------------------------------------------===//
// Collectives. Counts are elements. In-place calls pass the same buffer as
// send and receive buffer (all-gather: sendBuf == recvBuf + rank * sendCount;
// reduce-scatter: recvBuf == sendBuf + rank * recvCount).
//===----------------------------------------------------------------------===//

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
                         HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                         aclrtStream stream);

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType,
                         uint32_t root, HcclComm comm, aclrtStream stream);

/// recvCount elements per rank; sendBuf holds rankSize * recvCount.
HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                             HcclDataType dataType, HcclReduceOp op,
                             HcclComm comm, aclrtStream stream);

/// sendCount elements per rank; recvBuf holds rankSize * sendCount.
HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                         HcclDataType dataType, HcclComm comm,
                         aclrtStream stream);

/// recvBuf is written on the root only (may be NULL elsewhere).
HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count,
                      HcclDataType dataType, HcclReduceOp op, uint32_t root,
                      HcclComm comm, aclrtStream stream);

/// sendCount elements to every rank, recvCount from every rank; HCCL requires
/// sendCount == recvCount and sendType == recvType.
HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount,
                        HcclDataType sendType, const void *recvBuf,
                        uint64_t recvCount, HcclDataType recvType,
                        HcclComm comm, aclrtStream stream);

/// sendCounts, sdispls, recvCounts, rdispls: arrays of rankSize uint64_t, in
/// elements. sendCounts[j] on rank i must equal recvCounts[i] on rank j.
HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts,
                         const void *sdispls, HcclDataType sendType,
                         const void *recvBuf, const void *recvCounts,
                         const void *rdispls, HcclDataType recvType,
                         HcclComm comm, aclrtStream stream);

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType,
                    uint32_t destRank, HcclComm comm, aclrtStream stream);
HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType,
                    uint32_t srcRank, HcclComm comm, aclrtStream stream);

HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// The error that broke the communicator (a dead or failed peer, a timeout,
/// mismatched calls), or HCCL_SUCCESS. Once set, further calls on the
/// communicator fail with it.
HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);

/// Static name and meaning of a result code ("HCCL_E_PARA: parameter error").
const char *HcclGetErrorString(HcclResult code);

/// Extension: the one-line message of the calling thread's last failed call
/// ("" if none). Valid until the thread's next failed call.
const char *HcclGetLastErrorMessage(void);

//===----------------------------------------------------------------------===//
// Host streams (extension; stands in for aclrtCreateStream & co.)
//===----------------------------------------------------------------------===//

/// An ordered asynchronous queue served by one runtime thread: calls enqueued
/// on it run in order, overlapping the caller's own work.
HcclResult HcclStreamCreate(aclrtStream *stream);
/// Waits until everything enqueued has run; returns the first error any of it
/// hit since the previous synchronize (and clears it).
HcclResult HcclStreamSynchronize(aclrtStream stream);
/// HCCL_SUCCESS if the stream is idle, HCCL_E_AGAIN if work is pending.
HcclResult HcclStreamQuery(aclrtStream stream);
/// Enqueues a host function (like aclrtLaunchHostFunc).
HcclResult HcclStreamLaunchHostFunc(aclrtStream stream, void (*fn)(void *),
                                    void *userData);
/// Synchronizes, then destroys the stream and its thread.
HcclResult HcclStreamDestroy(aclrtStream stream);

//===----------------------------------------------------------------------===//
// Memory for zero-copy transfers (extension)
//===----------------------------------------------------------------------===//

/// Allocates `size` bytes (page aligned, zeroed) that same-host peers can
/// read directly, so transfers from it skip the intermediate copy.
HcclResult HcclMemAlloc(void **ptr, uint64_t size);
/// Frees memory from HcclMemAlloc (NULL is a no-op).
HcclResult HcclMemFree(void *ptr);

/// Registers [addr, addr+size) with the communicator (HCCL/NCCL-style
/// registration). Memory from HcclMemAlloc is then read by peers directly;
/// other memory is accepted and served through the single-copy path.
/// `flag` must be HCCL_REGISTER_DEFAULT.
HcclResult HcclCommRegister(HcclComm comm, void *addr, uint64_t size,
                            void **handle, uint32_t flag);
HcclResult HcclCommDeregister(HcclComm comm, void *handle);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // HCCL_H_
