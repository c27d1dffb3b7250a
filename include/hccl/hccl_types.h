//===- hccl_types.h - HCCL's C types, for the bundled host runtime -------===//
//
// Binary compatible with Huawei HCCL's hccl_types.h (the version recorded in
// docs/compatibility.md): every enumerator has HCCL's value, every struct
// HCCL's layout, checked by test/unit/runtime/rt_abi_test.cpp against the
// documented values. Differences are of form only:
//  - HCCL declares its constants as `const uint32_t` (a C++ header); here
//    they are the same `const` objects in C++ and macros in C, so that C
//    programs can use the header too;
//  - the stream and memory-handle types come from <acl/acl.h>, which the
//    bundled ACL stand-in provides (include/acl, docs/compatibility.md).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TYPES_H_
#define HCCL_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes.
typedef enum {
  HCCL_SUCCESS = 0,              /**< success */
  HCCL_E_PARA = 1,               /**< parameter error */
  HCCL_E_PTR = 2,                /**< empty pointer */
  HCCL_E_MEMORY = 3,             /**< memory error */
  HCCL_E_INTERNAL = 4,           /**< internal error */
  HCCL_E_NOT_SUPPORT = 5,        /**< not supported */
  HCCL_E_NOT_FOUND = 6,          /**< resource not found */
  HCCL_E_UNAVAIL = 7,            /**< resource unavailable */
  HCCL_E_SYSCALL = 8,            /**< system call failed */
  HCCL_E_TIMEOUT = 9,            /**< timeout */
  HCCL_E_OPEN_FILE_FAILURE = 10, /**< cannot open a file */
  HCCL_E_TCP_CONNECT = 11,       /**< TCP connect failed */
  HCCL_E_ROCE_CONNECT = 12,      /**< RoCE connect failed */
  HCCL_E_TCP_TRANSFER = 13,      /**< TCP transfer failed */
  HCCL_E_ROCE_TRANSFER = 14,     /**< RoCE transfer failed */
  HCCL_E_RUNTIME = 15,           /**< runtime call failed */
  HCCL_E_DRV = 16,               /**< driver call failed */
  HCCL_E_PROFILING = 17,         /**< profiling call failed */
  HCCL_E_CCE = 18,               /**< CCE call failed */
  HCCL_E_NETWORK = 19,           /**< network call failed */
  HCCL_E_AGAIN = 20,             /**< try again */
  HCCL_E_REMOTE = 21,            /**< error on a remote rank (error CQE) */
  HCCL_E_SUSPENDING = 22,        /**< the communicator is suspended */
  HCCL_E_OPRETRY_FAIL = 23,      /**< operator retry failed */
  HCCL_E_OOM = 24,               /**< out of memory */
  HCCL_E_IN_STATUS = 1041,       /**< the error is in the status */
  HCCL_E_RESERVED                /**< reserved (1042) */
} HcclResult;

/// Communicator handle.
typedef void *HcclComm;
/// Connection handle (HCCL's one-sided API; not used by this runtime).
typedef void *HcclConn;
/// Symmetric-memory window handle (HcclCommSymWin*).
typedef void *HcclCommSymWindow;

/// Reduction operators.
typedef enum {
  HCCL_REDUCE_SUM = 0,       /**< sum */
  HCCL_REDUCE_PROD = 1,      /**< product */
  HCCL_REDUCE_MAX = 2,       /**< maximum */
  HCCL_REDUCE_MIN = 3,       /**< minimum */
  HCCL_REDUCE_RESERVED = 255 /**< reserved */
} HcclReduceOp;

/// Data types. The host runtime computes INT8 .. BFP16 (0..11); the others
/// are HCCL's numbers, answered with HCCL_E_NOT_SUPPORT.
typedef enum {
  HCCL_DATA_TYPE_INT8 = 0,      /**< int8 */
  HCCL_DATA_TYPE_INT16 = 1,     /**< int16 */
  HCCL_DATA_TYPE_INT32 = 2,     /**< int32 */
  HCCL_DATA_TYPE_FP16 = 3,      /**< IEEE half */
  HCCL_DATA_TYPE_FP32 = 4,      /**< float */
  HCCL_DATA_TYPE_INT64 = 5,     /**< int64 */
  HCCL_DATA_TYPE_UINT64 = 6,    /**< uint64 */
  HCCL_DATA_TYPE_UINT8 = 7,     /**< uint8 */
  HCCL_DATA_TYPE_UINT16 = 8,    /**< uint16 */
  HCCL_DATA_TYPE_UINT32 = 9,    /**< uint32 */
  HCCL_DATA_TYPE_FP64 = 10,     /**< double */
  HCCL_DATA_TYPE_BFP16 = 11,    /**< bfloat16 */
  HCCL_DATA_TYPE_INT128 = 12,   /**< int128 (not supported here) */
  HCCL_DATA_TYPE_HIF8 = 14,     /**< hif8 (not supported here) */
  HCCL_DATA_TYPE_FP8E4M3 = 15,  /**< fp8e4m3 (not supported here) */
  HCCL_DATA_TYPE_FP8E5M2 = 16,  /**< fp8e5m2 (not supported here) */
  HCCL_DATA_TYPE_FP8E8M0 = 17,  /**< fp8e8m0 (not supported here) */
  HCCL_DATA_TYPE_RESERVED = 255 /**< reserved */
} HcclDataType;

/// Process-wide settings of HcclSetConfig / HcclGetConfig.
typedef enum {
  HCCL_DETERMINISTIC = 0, /**< 0 off, 1 on, 2 strict (order-preserving) */
  HCCL_CONFIG_RESERVED
} HcclConfig;

union HcclConfigValue {
  int32_t value;
};
#ifndef __cplusplus
typedef union HcclConfigValue HcclConfigValue;
#endif

// HCCL's constants. C++: const objects, as in HCCL; C: macros.
#ifdef __cplusplus
const uint32_t HCCL_ROOT_INFO_BYTES = 4108;
const uint32_t COMM_NAME_MAX_LENGTH = 128;
const uint32_t BUFFER_NAME_MAX_LENGTH = 128;
const uint32_t UDI_MAX_LENGTH = 128;
const uint32_t HCCL_COMM_ALGO_MAX_LENGTH = 1600;
const uint32_t HCCL_COMM_RETRY_ENABLE_MAX_LENGTH = 50;
const uint32_t HCCL_COMM_RETRY_PARAMS_MAX_LENGTH = 128;
const uint32_t HCCL_COMM_CONFIG_INFO_BYTES = 24;
const uint32_t HCCL_COMM_CONFIG_MAGIC_WORD = 0xf0f0f0f0;
const uint32_t HCCL_COMM_CONFIG_VERSION = 10;
const uint32_t HCCL_COMM_DEFAULT_BUFFSIZE = 200;
const uint32_t HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET = 0xffffffff;
const uint32_t HCCL_COMM_DEFAULT_DETERMINISTIC = 0;
const uint32_t HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET = 0xffffffff;
const uint32_t HCCL_COMM_DEFAULT_OP_EXPANSION_MODE = 0;
const uint32_t HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET = 0xffffffff;
const uint32_t HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET = 0xffffffff;
const int32_t HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET = (int32_t)0xffffffff;
const uint32_t HCCL_COMM_QOS_CONFIG_NOT_SET = 0xffffffff;
const uint64_t HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE = 16ULL;
#else
#define HCCL_ROOT_INFO_BYTES 4108u
#define COMM_NAME_MAX_LENGTH 128u
#define BUFFER_NAME_MAX_LENGTH 128u
#define UDI_MAX_LENGTH 128u
#define HCCL_COMM_ALGO_MAX_LENGTH 1600u
#define HCCL_COMM_RETRY_ENABLE_MAX_LENGTH 50u
#define HCCL_COMM_RETRY_PARAMS_MAX_LENGTH 128u
#define HCCL_COMM_CONFIG_INFO_BYTES 24u
#define HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0u
#define HCCL_COMM_CONFIG_VERSION 10u
#define HCCL_COMM_DEFAULT_BUFFSIZE 200u
#define HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DEFAULT_DETERMINISTIC 0u
#define HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DEFAULT_OP_EXPANSION_MODE 0u
#define HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET ((int32_t)0xffffffff)
#define HCCL_COMM_QOS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE 16ull
#endif

/// Root info: produced by HcclGetRootInfo on any one rank and given to
/// every rank (e.g. through MPI_Bcast or a file).
typedef struct HcclRootInfoDef {
  char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

/// Per-communicator configuration. Initialise with HcclCommConfigInit: the
/// first 24 bytes hold {size_t size; uint32_t magic; uint32_t version;
/// uint64_t reserved}, and the library reads only the fields the caller's
/// version has (older and newer callers both work). Fields left at
/// *_NOT_SET take the environment's value. What each field does on the
/// host runtime: docs/compatibility.md.
typedef struct HcclCommConfigDef {
  char reserved[HCCL_COMM_CONFIG_INFO_BYTES];
  uint32_t hcclBufferSize;                 /**< v1: MB, like HCCL_BUFFSIZE */
  uint32_t hcclDeterministic;              /**< v1: 0 off, 1 on, 2 strict */
  char hcclCommName[COMM_NAME_MAX_LENGTH]; /**< v2 */
  char hcclUdi[UDI_MAX_LENGTH];            /**< v3: user-defined info */
  uint32_t hcclOpExpansionMode;            /**< v4: 0 default .. */
  uint32_t hcclRdmaTrafficClass;           /**< v5: like HCCL_RDMA_TC */
  uint32_t hcclRdmaServiceLevel;           /**< v5: like HCCL_RDMA_SL */
  uint32_t hcclWorldRankID;                /**< v6 */
  uint64_t hcclJobID;                      /**< v6 */
  uint8_t aclGraphZeroCopyEnable;          /**< v7: 0 or 1 */
  int32_t hcclExecTimeOut;                 /**< v8: s, like HCCL_EXEC_TIMEOUT */
  char hcclAlgo[HCCL_COMM_ALGO_MAX_LENGTH]; /**< v8: like HCCL_ALGO */
  char hcclRetryEnable[HCCL_COMM_RETRY_ENABLE_MAX_LENGTH]; /**< v8 */
  char hcclRetryParams[HCCL_COMM_RETRY_PARAMS_MAX_LENGTH]; /**< v8 */
  char hcclBufferName[BUFFER_NAME_MAX_LENGTH];             /**< v9 */
  uint32_t hcclQos;                                        /**< v10 */
  uint64_t hcclSymWinMaxMemSizePerRank;                    /**< v10: GB */
} HcclCommConfig;

/// HcclGetCommConfigCapability() returns a number greater than each
/// capability it supports.
typedef enum {
  HCCL_COMM_CONFIG_BUFFER_SIZE = 0,
  HCCL_COMM_CONFIG_DETERMINISTIC = 1,
  HCCL_COMM_CONFIG_COMM_NAME = 2,
  HCCL_COMM_CONFIG_OP_EXPANSION_MODE = 3,
  HCCL_COMM_CONFIG_SUPPORT_INIT_BY_ENV = 4,
  HCCL_COMM_CONFIG_WORLD_RANKID = 5,
  HCCL_COMM_CONFIG_JOBID = 6,
  HCCL_COMM_CONFIG_ACLGRAPH_ZEROCOPY_ENABLE = 7,
  HCCL_COMM_CONFIG_EXEC_TIMEOUT = 8,
  HCCL_COMM_CONFIG_ALGO = 9,
  HCCL_COMM_CONFIG_RETRY = 10,
  HCCL_COMM_CONFIG_BUFFER_NAME = 11,
  HCCL_COMM_CONFIG_RESERVED
} HcclCommConfigCapability;

/// One item of HcclBatchSendRecv.
typedef enum {
  HCCL_SEND = 0,
  HCCL_RECV = 1,
  HCCL_SEND_RECV_RESERVED
} HcclSendRecvType;

typedef struct HcclSendRecvItemDef {
  HcclSendRecvType sendRecvType;
  void *buf;
  uint64_t count;
  HcclDataType dataType;
  uint32_t remoteRank;
} HcclSendRecvItem;

/// Operation kinds (HCCL's numbering; used in logs and profiling).
typedef enum {
  HCCL_CMD_INVALID = 0,
  HCCL_CMD_BROADCAST = 1,
  HCCL_CMD_ALLREDUCE,
  HCCL_CMD_REDUCE,
  HCCL_CMD_SEND,
  HCCL_CMD_RECEIVE,
  HCCL_CMD_ALLGATHER,
  HCCL_CMD_REDUCE_SCATTER,
  HCCL_CMD_ALLTOALLV,
  HCCL_CMD_ALLTOALLVC,
  HCCL_CMD_ALLTOALL,
  HCCL_CMD_GATHER,
  HCCL_CMD_SCATTER,
  HCCL_CMD_BATCH_SEND_RECV,
  HCCL_CMD_BATCH_PUT,
  HCCL_CMD_BATCH_GET,
  HCCL_CMD_ALLGATHER_V,
  HCCL_CMD_REDUCE_SCATTER_V,
  HCCL_CMD_BATCH_WRITE,
  HCCL_CMD_HALF_ALLTOALLV = 20,
  HCCL_CMD_ALL,
  HCCL_CMD_FINALIZE = 100,
  HCCL_CMD_INTER_GROUP_SYNC,
  HCCL_CMD_INIT,
  HCCL_CMD_BARRIER,
  HCCL_CMD_MAX
} HcclCMDType;

/// HcclCommGetStatus.
typedef enum {
  HCCL_COMM_STATUS_READY = 0,
  HCCL_COMM_STATUS_SUSPENDING = 1,
  HCCL_COMM_STATUS_INVALID = 254,
  HCCL_COMM_STATUS_RESERVED = 255
} HcclCommStatus;

/// When an HcclCommRegCommStateCallback callback runs.
typedef enum {
  HCCL_COMM_STATE_PHASE_INVALID = -1,
  HCCL_COMM_STATE_PHASE_DESTROY_PRE = 0,
  HCCL_COMM_STATE_PHASE_DESTROY_POST = 1,
  HCCL_COMM_STATE_PHASE_RESUME_PRE = 2,
  HCCL_COMM_STATE_PHASE_RESUME_POST = 3
} HcclCommStatePhase;

/// Flags for HcclCommRegister (an extension of this runtime).
#define HCCL_REGISTER_DEFAULT 0u

#ifdef __cplusplus
} // extern "C"
#endif

#endif // HCCL_TYPES_H_
