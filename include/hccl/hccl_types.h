//===- hccl_types.h - HCCL-compatible C types of the bundled runtime -----===//
//
// Source-compatible with Huawei HCCL's hccl_types.h for everything the
// bundled host runtime implements: result codes, reduction operators and
// data types numbered exactly as HCCL numbers them, the opaque communicator
// and root-info handles, and the communicator configuration struct.
//
// `aclrtStream` is HCCL's stream type (an ACL runtime stream). This runtime
// has no NPU: a stream here is a host stream created by HcclStreamCreate
// (an ordered asynchronous queue), and NULL means "run synchronously".
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TYPES_H_
#define HCCL_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes, numbered as HCCL numbers HcclResult.
typedef enum {
  HCCL_SUCCESS = 0,              /**< success */
  HCCL_E_PARA = 1,               /**< parameter error */
  HCCL_E_PTR = 2,                /**< null pointer */
  HCCL_E_MEMORY = 3,             /**< memory error */
  HCCL_E_INTERNAL = 4,           /**< internal error */
  HCCL_E_NOT_SUPPORT = 5,        /**< feature not supported */
  HCCL_E_NOT_FOUND = 6,          /**< resource not found */
  HCCL_E_UNAVAIL = 7,            /**< resource unavailable */
  HCCL_E_SYSCALL = 8,            /**< system call failed */
  HCCL_E_TIMEOUT = 9,            /**< timeout */
  HCCL_E_OPEN_FILE_FAILURE = 10, /**< cannot open file */
  HCCL_E_TCP_CONNECT = 11,       /**< TCP connect failed */
  HCCL_E_ROCE_CONNECT = 12,      /**< RoCE connect failed */
  HCCL_E_TCP_TRANSFER = 13,      /**< TCP transfer failed */
  HCCL_E_ROCE_TRANSFER = 14,     /**< RoCE transfer failed */
  HCCL_E_RUNTIME = 15,           /**< runtime call failed */
  HCCL_E_DRV = 16,               /**< driver call failed */
  HCCL_E_PROFILING = 17,         /**< profiling error */
  HCCL_E_CCE = 18,               /**< CCE error */
  HCCL_E_NETWORK = 19,           /**< network error */
  HCCL_E_AGAIN = 20,             /**< try again */
  HCCL_E_REMOTE = 21,            /**< error on a remote rank */
  HCCL_E_SUSPENDING = 22,        /**< communicator suspending */
  HCCL_E_RESERVED                /**< reserved */
} HcclResult;

/// Communicator handle.
typedef void *HcclComm;

/// Stream handle: a host stream of this runtime (HcclStreamCreate), or NULL
/// for synchronous execution. Named as in HCCL so that HCCL code compiles.
#ifndef HCCL_ACLRT_STREAM_DEFINED
#define HCCL_ACLRT_STREAM_DEFINED
typedef void *aclrtStream;
#endif

/// Reduction operators, numbered as HCCL numbers HcclReduceOp.
typedef enum {
  HCCL_REDUCE_SUM = 0,  /**< sum */
  HCCL_REDUCE_PROD = 1, /**< product */
  HCCL_REDUCE_MAX = 2,  /**< maximum */
  HCCL_REDUCE_MIN = 3,  /**< minimum */
  HCCL_REDUCE_RESERVED  /**< reserved */
} HcclReduceOp;

/// Data types, numbered as HCCL numbers HcclDataType. This runtime supports
/// INT8 .. BFP16 (0..11); the others are accepted by the compiler but the
/// runtime answers HCCL_E_NOT_SUPPORT for them.
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

/// Size of the opaque root info blob, as in HCCL.
#define HCCL_ROOT_INFO_BYTES 4108

/// Root info: produced by HcclGetRootInfo on the root rank and passed to
/// every rank (by the user, e.g. through MPI_Bcast or a file).
typedef struct HcclRootInfoDef {
  char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

#define HCCL_COMM_CONFIG_INFO_BYTES 24
#define HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0u
#define HCCL_COMM_CONFIG_VERSION 1u
#define HCCL_COMM_DEFAULT_BUFFSIZE 200u
#define HCCL_COMM_DEFAULT_DETERMINISTIC 0u
#define HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_DEFAULT_OP_EXPANSION_MODE 0u
#define HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET 0xffffffffu
#define HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET 0xffffffffu
#define COMM_NAME_MAX_LENGTH 128
#define UDI_MAX_LENGTH 128

/// Per-communicator configuration (HcclCommInitRootInfoConfig,
/// HcclCommInitClusterInfoConfig, HcclCreateSubCommConfig). Initialise with
/// HcclCommConfigInit; fields left at *_NOT_SET take the environment's value.
typedef struct HcclCommConfigDef {
  char reserved[HCCL_COMM_CONFIG_INFO_BYTES]; /**< size, magic, version */
  uint32_t hcclBufferSize;                    /**< MB, like HCCL_BUFFSIZE */
  uint32_t hcclDeterministic;                 /**< 0 off, 1 on, 2 strict */
  char hcclCommName[COMM_NAME_MAX_LENGTH];
  char hcclUdi[UDI_MAX_LENGTH];
  uint32_t hcclOpExpansionMode;  /**< accepted and ignored (host only) */
  uint32_t hcclRdmaTrafficClass; /**< like HCCL_RDMA_TC */
  uint32_t hcclRdmaServiceLevel; /**< like HCCL_RDMA_SL */
  uint32_t hcclWorldRankID;
  uint64_t hcclJobID;
} HcclCommConfig;

/// Flags for HcclCommRegister.
#define HCCL_REGISTER_DEFAULT 0u

#ifdef __cplusplus
} // extern "C"
#endif

#endif // HCCL_TYPES_H_
