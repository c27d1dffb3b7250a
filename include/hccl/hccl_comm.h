//===- hccl_comm.h - HCCL's communicator management, host runtime --------===//
//
// HCCL's communicator calls with HCCL's prototypes (docs/compatibility.md
// names the header version and says, call by call, what the host runtime
// does). Calls that only mean something on an NPU return HCCL_E_NOT_SUPPORT
// with a message; the others work on host memory across processes (shared
// memory on one host, TCP or RoCE between hosts) and across threads.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <acl/acl.h>
#include <hccl/hccl_types.h>

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Creates the communicator described by an HCCL rank table JSON file
/// (versions 1.0, 1.2, 2.0 and the group_list form); `rank` is this
/// process's rank_id. Rank 0's server (its host_ip, server_id when that is
/// an address, or HCCL_IF_IP) hosts the rendezvous on HCCL_IF_BASE_PORT.
HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
                                   HcclComm *comm);
HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                         HcclCommConfig *config,
                                         HcclComm *comm);

/// Creates a sub-communicator of `*comm` holding the world ranks
/// `rankIds[0..rankNum)`; this process is `subCommRankId` in it. Every member
/// calls with the same ranks and `subCommId` (non-members do not call).
HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum,
                                   uint32_t *rankIds, uint64_t subCommId,
                                   uint32_t subCommRankId,
                                   HcclCommConfig *config, HcclComm *subComm);

/// Fills `rootInfo` with this process's rendezvous address (HCCL_IF_IP /
/// HCCL_SOCKET_IFNAME choose the interface, HCCL_IF_BASE_PORT the port range)
/// and a fresh id and key. Any one rank calls it (as hccl_test's -r does),
/// then gives the blob to every rank; that process keeps listening until one
/// of its ranks calls HcclCommInitRootInfo.
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);

/// Creates the communicator of `nRanks` ranks; this process (or thread) is
/// `rank`. Every rank passes the same root info. Fails with HCCL_E_TIMEOUT
/// after HCCL_CONNECT_TIMEOUT seconds when ranks are missing, naming them.
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                uint32_t rank, HcclComm *comm);
HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks,
                                      const HcclRootInfo *rootInfo,
                                      uint32_t rank,
                                      const HcclCommConfig *config,
                                      HcclComm *comm);

/// Process-wide defaults for communicators created afterwards (only
/// HCCL_DETERMINISTIC: 0, 1 or 2); they take precedence over the variable.
HcclResult HcclSetConfig(HcclConfig config, union HcclConfigValue configValue);
HcclResult HcclGetConfig(HcclConfig config, union HcclConfigValue *configValue);

/// Copies the communicator's name (COMM_NAME_MAX_LENGTH bytes at most,
/// NUL included) to `commName`.
HcclResult HcclGetCommName(HcclComm comm, char *commName);
/// The live communicator of this process named `commName`.
HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm);

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

/// Waits for the communicator's queued work, then releases everything it
/// holds: connections, threads, shared memory (nothing is left in /dev/shm).
HcclResult HcclCommDestroy(HcclComm comm);

/// One process, `ndev` ranks as threads: comms[i] is rank i, for the
/// "device" devices[i] (distinct numbers >= 0). Destroy each comm.
HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);

/// The error that broke the communicator (a dead or failed peer, a timeout,
/// mismatched calls), or HCCL_SUCCESS. Once set, further calls on the
/// communicator fail with it.
HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);

/// HCCL's text for a result code ("parameter error"), "unknow error" for
/// codes outside HcclResult.
const char *HcclGetErrorString(HcclResult code);

/// A number greater than every HcclCommConfigCapability this library reads.
uint32_t HcclGetCommConfigCapability(void);

/// Initialises a config to "everything from the environment" (HCCL's
/// defaults; the size and version tell the library what the caller has).
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
  config->aclGraphZeroCopyEnable = 0;
  config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
  config->hcclAlgo[0] = '\0';
  config->hcclRetryEnable[0] = '\0';
  config->hcclRetryParams[0] = '\0';
  config->hcclBufferName[0] = '\0';
  config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
  config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
}

/// Suspends the communicator: it finishes the work already queued, then
/// every call on it fails with HCCL_E_SUSPENDING until HcclCommResume.
HcclResult HcclCommSuspend(HcclComm comm);

typedef HcclResult (*HcclCommStateCallback)(HcclComm comm,
                                            HcclCommStatePhase state,
                                            void *args);
/// Process-wide callback run before and after every HcclCommDestroy and
/// HcclCommResume; one per `regName` (a new one replaces it, NULL removes).
HcclResult HcclCommRegCommStateCallback(const char *regName,
                                        HcclCommStateCallback cb, void *args);

/// Ends a suspension (HcclCommSuspend). A communicator broken by a failed
/// peer stays broken: it returns the error that broke it.
HcclResult HcclCommResume(HcclComm comm);
/// READY or SUSPENDING for the communicator named `commId`.
HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status);

/// Zero-copy memory (hccl_test -z): a virtual range reserved with
/// aclrtReserveMemAddress is given to the communicator; memory mapped into
/// it with aclrtMapMem and activated may then be used as collective buffers.
/// `alignment`, `offset` and `flags` must be 0, as in HCCL.
HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size,
                                  size_t alignment, uint64_t flags);
HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr);
HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size,
                                      size_t offset, aclrtDrvMemHandle handle,
                                      uint64_t flags);
HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr);

/// NPU only (switching a device's NIC): HCCL_E_NOT_SUPPORT.
HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks,
                                    bool *useBackup, uint32_t nRanks);

/// Groups: between HcclGroupStart and the matching HcclGroupEnd (they
/// nest), HcclSend / HcclRecv of this thread are collected and issued
/// together at the outermost HcclGroupEnd, so their order cannot deadlock
/// (as HcclBatchSendRecv); other calls run at once.
HcclResult HcclGroupStart(void);
HcclResult HcclGroupEnd(void);
HcclResult HcclGroupStatusGet(bool *isGroupEnabled);

/// Symmetric memory windows: NPU only, HCCL_E_NOT_SUPPORT.
HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
                                  HcclCommSymWindow *winHandle, uint32_t flag);
HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
                             HcclCommSymWindow *winHandle, size_t *offset);

typedef enum {
  HCCL_OP_EXPANSION_MODE_INVALID = -1,
  HCCL_OP_EXPANSION_MODE_AI_CPU = 0,
  HCCL_OP_EXPANSION_MODE_AIV = 1,
  HCCL_OP_EXPANSION_MODE_HOST = 2,
  HCCL_OP_EXPANSION_MODE_HOST_TS = 3,
  HCCL_OP_EXPANSION_MODE_CCU_MS = 4,
  HCCL_OP_EXPANSION_MODE_CCU_SCHED = 5,
  HCCL_OP_EXPANSION_AIV_ONLY = 6
} HcclOpExpansionMode;

typedef enum {
  HCCL_CONFIG_TYPE_INVALID = -1,
  HCCL_CONFIG_TYPE_OP_EXPANSION_MODE = 0
} HcclConfigType;

typedef HcclOpExpansionMode HcclConfigTypeOpExpansionMode;

/// HCCL_CONFIG_TYPE_OP_EXPANSION_MODE: writes HCCL_OP_EXPANSION_MODE_HOST
/// (an HcclOpExpansionMode; infoLen must hold one).
HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType,
                             uint32_t infoLen, void *info);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // HCCL_COMM_H_
