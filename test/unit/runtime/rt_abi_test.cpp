//===- rt_abi_test.cpp - HCCL's types, values and layouts -----------------===//
//
// Every enumerator, constant and struct layout of include/hccl is checked
// against the values HCCL documents (the header version named in
// docs/compatibility.md: hcomm's include/hccl/hccl_types.h and
// hccl_comm.h, hccl's include/hccl.h): a program compiled against HCCL's
// headers passes the same numbers and the same bytes to this library.
// Offsets are those of the LP64 ABI (x86-64 and AArch64 Linux).
//
//===----------------------------------------------------------------------===//
#include "hccl/hccl.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace {

TEST(Abi, ResultCodes) {
  const std::pair<HcclResult, int> codes[] = {{HCCL_SUCCESS, 0},
                                              {HCCL_E_PARA, 1},
                                              {HCCL_E_PTR, 2},
                                              {HCCL_E_MEMORY, 3},
                                              {HCCL_E_INTERNAL, 4},
                                              {HCCL_E_NOT_SUPPORT, 5},
                                              {HCCL_E_NOT_FOUND, 6},
                                              {HCCL_E_UNAVAIL, 7},
                                              {HCCL_E_SYSCALL, 8},
                                              {HCCL_E_TIMEOUT, 9},
                                              {HCCL_E_OPEN_FILE_FAILURE, 10},
                                              {HCCL_E_TCP_CONNECT, 11},
                                              {HCCL_E_ROCE_CONNECT, 12},
                                              {HCCL_E_TCP_TRANSFER, 13},
                                              {HCCL_E_ROCE_TRANSFER, 14},
                                              {HCCL_E_RUNTIME, 15},
                                              {HCCL_E_DRV, 16},
                                              {HCCL_E_PROFILING, 17},
                                              {HCCL_E_CCE, 18},
                                              {HCCL_E_NETWORK, 19},
                                              {HCCL_E_AGAIN, 20},
                                              {HCCL_E_REMOTE, 21},
                                              {HCCL_E_SUSPENDING, 22},
                                              {HCCL_E_OPRETRY_FAIL, 23},
                                              {HCCL_E_OOM, 24},
                                              {HCCL_E_IN_STATUS, 1041},
                                              {HCCL_E_RESERVED, 1042}};
  for (auto [code, value] : codes)
    EXPECT_EQ(static_cast<int>(code), value);
  EXPECT_EQ(sizeof(HcclResult), 4u);
}

TEST(Abi, ReduceOpsAndDataTypes) {
  EXPECT_EQ(HCCL_REDUCE_SUM, 0);
  EXPECT_EQ(HCCL_REDUCE_PROD, 1);
  EXPECT_EQ(HCCL_REDUCE_MAX, 2);
  EXPECT_EQ(HCCL_REDUCE_MIN, 3);
  EXPECT_EQ(HCCL_REDUCE_RESERVED, 255);
  const std::pair<HcclDataType, int> types[] = {
      {HCCL_DATA_TYPE_INT8, 0},     {HCCL_DATA_TYPE_INT16, 1},
      {HCCL_DATA_TYPE_INT32, 2},    {HCCL_DATA_TYPE_FP16, 3},
      {HCCL_DATA_TYPE_FP32, 4},     {HCCL_DATA_TYPE_INT64, 5},
      {HCCL_DATA_TYPE_UINT64, 6},   {HCCL_DATA_TYPE_UINT8, 7},
      {HCCL_DATA_TYPE_UINT16, 8},   {HCCL_DATA_TYPE_UINT32, 9},
      {HCCL_DATA_TYPE_FP64, 10},    {HCCL_DATA_TYPE_BFP16, 11},
      {HCCL_DATA_TYPE_INT128, 12},  {HCCL_DATA_TYPE_HIF8, 14},
      {HCCL_DATA_TYPE_FP8E4M3, 15}, {HCCL_DATA_TYPE_FP8E5M2, 16},
      {HCCL_DATA_TYPE_FP8E8M0, 17}, {HCCL_DATA_TYPE_RESERVED, 255}};
  for (auto [t, value] : types)
    EXPECT_EQ(static_cast<int>(t), value);
}

TEST(Abi, SmallEnums) {
  EXPECT_EQ(HCCL_DETERMINISTIC, 0);
  EXPECT_EQ(HCCL_CONFIG_RESERVED, 1);
  EXPECT_EQ(HCCL_SEND, 0);
  EXPECT_EQ(HCCL_RECV, 1);
  EXPECT_EQ(HCCL_SEND_RECV_RESERVED, 2);
  EXPECT_EQ(HCCL_COMM_CONFIG_BUFFER_SIZE, 0);
  EXPECT_EQ(HCCL_COMM_CONFIG_SUPPORT_INIT_BY_ENV, 4);
  EXPECT_EQ(HCCL_COMM_CONFIG_WORLD_RANKID, 5);
  EXPECT_EQ(HCCL_COMM_CONFIG_JOBID, 6);
  EXPECT_EQ(HCCL_COMM_CONFIG_ACLGRAPH_ZEROCOPY_ENABLE, 7);
  EXPECT_EQ(HCCL_COMM_CONFIG_EXEC_TIMEOUT, 8);
  EXPECT_EQ(HCCL_COMM_CONFIG_ALGO, 9);
  EXPECT_EQ(HCCL_COMM_CONFIG_RETRY, 10);
  EXPECT_EQ(HCCL_COMM_CONFIG_BUFFER_NAME, 11);
  EXPECT_EQ(HCCL_COMM_CONFIG_RESERVED, 12);
  EXPECT_EQ(HCCL_CMD_BROADCAST, 1);
  EXPECT_EQ(HCCL_CMD_ALLTOALLVC, 9);
  EXPECT_EQ(HCCL_CMD_SCATTER, 12);
  EXPECT_EQ(HCCL_CMD_REDUCE_SCATTER_V, 17);
  EXPECT_EQ(HCCL_CMD_BATCH_WRITE, 18);
  EXPECT_EQ(HCCL_CMD_HALF_ALLTOALLV, 20);
  EXPECT_EQ(HCCL_CMD_ALL, 21);
  EXPECT_EQ(HCCL_CMD_FINALIZE, 100);
  EXPECT_EQ(HCCL_CMD_BARRIER, 103);
  EXPECT_EQ(HCCL_CMD_MAX, 104);
  EXPECT_EQ(HCCL_COMM_STATUS_READY, 0);
  EXPECT_EQ(HCCL_COMM_STATUS_SUSPENDING, 1);
  EXPECT_EQ(HCCL_COMM_STATUS_INVALID, 254);
  EXPECT_EQ(HCCL_COMM_STATE_PHASE_INVALID, -1);
  EXPECT_EQ(HCCL_COMM_STATE_PHASE_RESUME_POST, 3);
  EXPECT_EQ(HCCL_OP_EXPANSION_MODE_INVALID, -1);
  EXPECT_EQ(HCCL_OP_EXPANSION_MODE_HOST, 2);
  EXPECT_EQ(HCCL_OP_EXPANSION_AIV_ONLY, 6);
  EXPECT_EQ(HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 0);
}

TEST(Abi, Constants) {
  EXPECT_EQ(HCCL_ROOT_INFO_BYTES, 4108u);
  EXPECT_EQ(sizeof(HcclRootInfo), 4108u);
  EXPECT_EQ(COMM_NAME_MAX_LENGTH, 128u);
  EXPECT_EQ(BUFFER_NAME_MAX_LENGTH, 128u);
  EXPECT_EQ(UDI_MAX_LENGTH, 128u);
  EXPECT_EQ(HCCL_COMM_ALGO_MAX_LENGTH, 1600u);
  EXPECT_EQ(HCCL_COMM_RETRY_ENABLE_MAX_LENGTH, 50u);
  EXPECT_EQ(HCCL_COMM_RETRY_PARAMS_MAX_LENGTH, 128u);
  EXPECT_EQ(HCCL_COMM_CONFIG_INFO_BYTES, 24u);
  EXPECT_EQ(HCCL_COMM_CONFIG_MAGIC_WORD, 0xf0f0f0f0u);
  EXPECT_EQ(HCCL_COMM_CONFIG_VERSION, 10u);
  EXPECT_EQ(HCCL_COMM_DEFAULT_BUFFSIZE, 200u);
  EXPECT_EQ(HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET, 0xffffffffu);
  EXPECT_EQ(HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET, 0xffffffffu);
  EXPECT_EQ(HCCL_COMM_DEFAULT_OP_EXPANSION_MODE, 0u);
  EXPECT_EQ(HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET, 0xffffffffu);
  EXPECT_EQ(HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET, 0xffffffffu);
  EXPECT_EQ(HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET, -1);
  EXPECT_EQ(HCCL_COMM_QOS_CONFIG_NOT_SET, 0xffffffffu);
  EXPECT_EQ(HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE, 16u);
}

#define EXPECT_FIELD(type, field, offset, size)                                \
  do {                                                                         \
    EXPECT_EQ(offsetof(type, field), size_t(offset)) << #field;                \
    EXPECT_EQ(sizeof(((type *)nullptr)->field), size_t(size)) << #field;       \
  } while (0)

TEST(Abi, CommConfigLayout) {
  // Version 10 of HcclCommConfig.
  EXPECT_FIELD(HcclCommConfig, reserved, 0, 24);
  EXPECT_FIELD(HcclCommConfig, hcclBufferSize, 24, 4);
  EXPECT_FIELD(HcclCommConfig, hcclDeterministic, 28, 4);
  EXPECT_FIELD(HcclCommConfig, hcclCommName, 32, 128);
  EXPECT_FIELD(HcclCommConfig, hcclUdi, 160, 128);
  EXPECT_FIELD(HcclCommConfig, hcclOpExpansionMode, 288, 4);
  EXPECT_FIELD(HcclCommConfig, hcclRdmaTrafficClass, 292, 4);
  EXPECT_FIELD(HcclCommConfig, hcclRdmaServiceLevel, 296, 4);
  EXPECT_FIELD(HcclCommConfig, hcclWorldRankID, 300, 4);
  EXPECT_FIELD(HcclCommConfig, hcclJobID, 304, 8);
  EXPECT_FIELD(HcclCommConfig, aclGraphZeroCopyEnable, 312, 1);
  EXPECT_FIELD(HcclCommConfig, hcclExecTimeOut, 316, 4);
  EXPECT_FIELD(HcclCommConfig, hcclAlgo, 320, 1600);
  EXPECT_FIELD(HcclCommConfig, hcclRetryEnable, 1920, 50);
  EXPECT_FIELD(HcclCommConfig, hcclRetryParams, 1970, 128);
  EXPECT_FIELD(HcclCommConfig, hcclBufferName, 2098, 128);
  EXPECT_FIELD(HcclCommConfig, hcclQos, 2228, 4);
  EXPECT_FIELD(HcclCommConfig, hcclSymWinMaxMemSizePerRank, 2232, 8);
  EXPECT_EQ(sizeof(HcclCommConfig), 2240u);
}

TEST(Abi, CommConfigInitWritesHcclsHeaderAndDefaults) {
  HcclCommConfig c;
  std::memset(&c, 0x5a, sizeof(c));
  HcclCommConfigInit(&c);
  size_t size;
  uint32_t magic, version;
  uint64_t reserved;
  std::memcpy(&size, c.reserved, 8);
  std::memcpy(&magic, c.reserved + 8, 4);
  std::memcpy(&version, c.reserved + 12, 4);
  std::memcpy(&reserved, c.reserved + 16, 8);
  EXPECT_EQ(size, sizeof(HcclCommConfig));
  EXPECT_EQ(magic, 0xf0f0f0f0u);
  EXPECT_EQ(version, 10u);
  EXPECT_EQ(reserved, 0u);
  EXPECT_EQ(c.hcclBufferSize, 0xffffffffu);
  EXPECT_EQ(c.hcclDeterministic, 0xffffffffu);
  EXPECT_EQ(c.hcclCommName[0], '\0');
  EXPECT_EQ(c.hcclOpExpansionMode, 0u);
  EXPECT_EQ(c.hcclRdmaTrafficClass, 0xffffffffu);
  EXPECT_EQ(c.hcclWorldRankID, 0u);
  EXPECT_EQ(c.hcclJobID, 0u);
  EXPECT_EQ(c.aclGraphZeroCopyEnable, 0u);
  EXPECT_EQ(c.hcclExecTimeOut, -1);
  EXPECT_EQ(c.hcclAlgo[0], '\0');
  EXPECT_EQ(c.hcclQos, 0xffffffffu);
  EXPECT_EQ(c.hcclSymWinMaxMemSizePerRank, 16u);
  HcclCommConfigInit(nullptr); // no crash
}

TEST(Abi, SendRecvItemLayout) {
  EXPECT_FIELD(HcclSendRecvItem, sendRecvType, 0, 4);
  EXPECT_FIELD(HcclSendRecvItem, buf, 8, 8);
  EXPECT_FIELD(HcclSendRecvItem, count, 16, 8);
  EXPECT_FIELD(HcclSendRecvItem, dataType, 24, 4);
  EXPECT_FIELD(HcclSendRecvItem, remoteRank, 28, 4);
  EXPECT_EQ(sizeof(HcclSendRecvItem), 32u);
  EXPECT_EQ(sizeof(HcclConfigValue), 4u);
  EXPECT_EQ(sizeof(HcclComm), sizeof(void *));
  EXPECT_EQ(sizeof(aclrtStream), sizeof(void *));
}

TEST(Abi, ErrorStringsAreHccls) {
  const std::pair<HcclResult, const char *> texts[] = {
      {HCCL_SUCCESS, "no error"},
      {HCCL_E_PARA, "parameter error"},
      {HCCL_E_PTR, "empty pointer"},
      {HCCL_E_MEMORY, "memory error"},
      {HCCL_E_INTERNAL, "internal error"},
      {HCCL_E_NOT_SUPPORT, "not support feature"},
      {HCCL_E_NOT_FOUND, "not found specific resource"},
      {HCCL_E_UNAVAIL, "resource unavailable"},
      {HCCL_E_SYSCALL, "call system interface error"},
      {HCCL_E_TIMEOUT, "timeout"},
      {HCCL_E_OPEN_FILE_FAILURE, "open file fail"},
      {HCCL_E_TCP_CONNECT, "tcp connect fail"},
      {HCCL_E_ROCE_CONNECT, "roce connect fail"},
      {HCCL_E_TCP_TRANSFER, "tcp transfer fail"},
      {HCCL_E_ROCE_TRANSFER, "roce transfer fail"},
      {HCCL_E_RUNTIME, "call runtime api fail"},
      {HCCL_E_DRV, "call driver api fail"},
      {HCCL_E_PROFILING, "call profiling api fail"},
      {HCCL_E_CCE, "call cce api fail"},
      {HCCL_E_NETWORK, "call network api fail"},
      {HCCL_E_AGAIN, "try again"},
      {HCCL_E_REMOTE, "error cqe"}};
  for (auto [code, text] : texts)
    EXPECT_EQ(std::string(HcclGetErrorString(code)), text) << code;
  EXPECT_EQ(std::string(HcclGetErrorString(static_cast<HcclResult>(999))),
            "unknow error");
  EXPECT_EQ(std::string(HcclGetErrorString(HCCL_E_RESERVED)), "unknow error");
}

} // namespace
