//===- api_test.cpp - HCCL's public calls exist with HCCL's prototypes ----===//
//
// The prototypes below are transcribed from HCCL's public headers (the
// version docs/compatibility.md names); each must be the type of our
// declaration (checked at compile time), listed in docs/compatibility.md,
// and exported by libhccl (dlsym). The same for the ACL stand-in's calls
// and libascendcl.
//
//===----------------------------------------------------------------------===//
#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "hccl/hccl.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <type_traits>

namespace {

#define PROTO(name, ...)                                                       \
  static_assert(std::is_same_v<decltype(&name), __VA_ARGS__>,                  \
                #name " does not have HCCL's prototype");

// hccl.h (operators).
PROTO(HcclAllReduce, HcclResult (*)(void *, void *, uint64_t, HcclDataType,
                                    HcclReduceOp, HcclComm, aclrtStream))
PROTO(HcclBroadcast, HcclResult (*)(void *, uint64_t, HcclDataType, uint32_t,
                                    HcclComm, aclrtStream))
PROTO(HcclReduceScatter, HcclResult (*)(void *, void *, uint64_t, HcclDataType,
                                        HcclReduceOp, HcclComm, aclrtStream))
PROTO(HcclReduceScatterV,
      HcclResult (*)(void *, const void *, const void *, void *, uint64_t,
                     HcclDataType, HcclReduceOp, HcclComm, aclrtStream))
PROTO(HcclScatter, HcclResult (*)(void *, void *, uint64_t, HcclDataType,
                                  uint32_t, HcclComm, aclrtStream))
PROTO(HcclAllGather, HcclResult (*)(void *, void *, uint64_t, HcclDataType,
                                    HcclComm, aclrtStream))
PROTO(HcclAllGatherV,
      HcclResult (*)(void *, uint64_t, void *, const void *, const void *,
                     HcclDataType, HcclComm, aclrtStream))
PROTO(HcclSend, HcclResult (*)(void *, uint64_t, HcclDataType, uint32_t,
                               HcclComm, aclrtStream))
PROTO(HcclRecv, HcclResult (*)(void *, uint64_t, HcclDataType, uint32_t,
                               HcclComm, aclrtStream))
PROTO(HcclAlltoAllVC,
      HcclResult (*)(const void *, const void *, HcclDataType, const void *,
                     HcclDataType, HcclComm, aclrtStream))
PROTO(HcclAlltoAllV,
      HcclResult (*)(const void *, const void *, const void *, HcclDataType,
                     const void *, const void *, const void *, HcclDataType,
                     HcclComm, aclrtStream))
PROTO(HcclAlltoAll,
      HcclResult (*)(const void *, uint64_t, HcclDataType, const void *,
                     uint64_t, HcclDataType, HcclComm, aclrtStream))
PROTO(HcclReduce, HcclResult (*)(void *, void *, uint64_t, HcclDataType,
                                 HcclReduceOp, uint32_t, HcclComm, aclrtStream))
PROTO(HcclBatchSendRecv,
      HcclResult (*)(HcclSendRecvItem *, uint32_t, HcclComm, aclrtStream))
// hccl_comm.h (communicator management).
PROTO(HcclCommInitClusterInfo,
      HcclResult (*)(const char *, uint32_t, HcclComm *))
PROTO(HcclCommInitClusterInfoConfig,
      HcclResult (*)(const char *, uint32_t, HcclCommConfig *, HcclComm *))
PROTO(HcclCreateSubCommConfig,
      HcclResult (*)(HcclComm *, uint32_t, uint32_t *, uint64_t, uint32_t,
                     HcclCommConfig *, HcclComm *))
PROTO(HcclGetRootInfo, HcclResult (*)(HcclRootInfo *))
PROTO(HcclCommInitRootInfo,
      HcclResult (*)(uint32_t, const HcclRootInfo *, uint32_t, HcclComm *))
PROTO(HcclCommInitRootInfoConfig,
      HcclResult (*)(uint32_t, const HcclRootInfo *, uint32_t,
                     const HcclCommConfig *, HcclComm *))
PROTO(HcclSetConfig, HcclResult (*)(HcclConfig, HcclConfigValue))
PROTO(HcclGetConfig, HcclResult (*)(HcclConfig, HcclConfigValue *))
PROTO(HcclGetCommName, HcclResult (*)(HcclComm, char *))
PROTO(HcclCommGetHandleWithName, HcclResult (*)(const char *, HcclComm *))
PROTO(HcclGetRankSize, HcclResult (*)(HcclComm, uint32_t *))
PROTO(HcclGetRankId, HcclResult (*)(HcclComm, uint32_t *))
PROTO(HcclBarrier, HcclResult (*)(HcclComm, aclrtStream))
PROTO(HcclCommDestroy, HcclResult (*)(HcclComm))
PROTO(HcclCommInitAll, HcclResult (*)(uint32_t, int32_t *, HcclComm *))
PROTO(HcclGetCommAsyncError, HcclResult (*)(HcclComm, HcclResult *))
PROTO(HcclGetErrorString, const char *(*)(HcclResult))
PROTO(HcclGetCommConfigCapability, uint32_t (*)())
PROTO(HcclCommConfigInit, void (*)(HcclCommConfig *))
PROTO(HcclCommSuspend, HcclResult (*)(HcclComm))
PROTO(HcclCommRegCommStateCallback,
      HcclResult (*)(const char *, HcclCommStateCallback, void *))
PROTO(HcclCommResume, HcclResult (*)(HcclComm))
PROTO(HcclCommGetStatus, HcclResult (*)(const char *, HcclCommStatus *))
PROTO(HcclCommSetMemoryRange,
      HcclResult (*)(HcclComm, void *, size_t, size_t, uint64_t))
PROTO(HcclCommUnsetMemoryRange, HcclResult (*)(HcclComm, void *))
PROTO(HcclCommActivateCommMemory,
      HcclResult (*)(HcclComm, void *, size_t, size_t, aclrtDrvMemHandle,
                     uint64_t))
PROTO(HcclCommDeactivateCommMemory, HcclResult (*)(HcclComm, void *))
PROTO(HcclCommWorkingDevNicSet,
      HcclResult (*)(HcclComm, uint32_t *, bool *, uint32_t))
PROTO(HcclGroupStart, HcclResult (*)())
PROTO(HcclGroupEnd, HcclResult (*)())
PROTO(HcclGroupStatusGet, HcclResult (*)(bool *))
PROTO(HcclCommSymWinRegister,
      HcclResult (*)(HcclComm, void *, uint64_t, HcclCommSymWindow *, uint32_t))
PROTO(HcclCommSymWinDeregister, HcclResult (*)(HcclCommSymWindow))
PROTO(HcclCommSymWinGet,
      HcclResult (*)(HcclComm, void *, size_t, HcclCommSymWindow *, size_t *))
PROTO(HcclConfigGetInfo,
      HcclResult (*)(HcclComm, HcclConfigType, uint32_t, void *))

/// The calls above, by name (the inline HcclCommConfigInit is no symbol).
const char *const kHcclCalls[] = {"HcclAllReduce",
                                  "HcclBroadcast",
                                  "HcclReduceScatter",
                                  "HcclReduceScatterV",
                                  "HcclScatter",
                                  "HcclAllGather",
                                  "HcclAllGatherV",
                                  "HcclSend",
                                  "HcclRecv",
                                  "HcclAlltoAllVC",
                                  "HcclAlltoAllV",
                                  "HcclAlltoAll",
                                  "HcclReduce",
                                  "HcclBatchSendRecv",
                                  "HcclCommInitClusterInfo",
                                  "HcclCommInitClusterInfoConfig",
                                  "HcclCreateSubCommConfig",
                                  "HcclGetRootInfo",
                                  "HcclCommInitRootInfo",
                                  "HcclCommInitRootInfoConfig",
                                  "HcclSetConfig",
                                  "HcclGetConfig",
                                  "HcclGetCommName",
                                  "HcclCommGetHandleWithName",
                                  "HcclGetRankSize",
                                  "HcclGetRankId",
                                  "HcclBarrier",
                                  "HcclCommDestroy",
                                  "HcclCommInitAll",
                                  "HcclGetCommAsyncError",
                                  "HcclGetErrorString",
                                  "HcclGetCommConfigCapability",
                                  "HcclCommSuspend",
                                  "HcclCommRegCommStateCallback",
                                  "HcclCommResume",
                                  "HcclCommGetStatus",
                                  "HcclCommSetMemoryRange",
                                  "HcclCommUnsetMemoryRange",
                                  "HcclCommActivateCommMemory",
                                  "HcclCommDeactivateCommMemory",
                                  "HcclCommWorkingDevNicSet",
                                  "HcclGroupStart",
                                  "HcclGroupEnd",
                                  "HcclGroupStatusGet",
                                  "HcclCommSymWinRegister",
                                  "HcclCommSymWinDeregister",
                                  "HcclCommSymWinGet",
                                  "HcclConfigGetInfo"};

// The ACL stand-in's calls (ACL's prototypes).
PROTO(aclInit, aclError (*)(const char *))
PROTO(aclrtSetDevice, aclError (*)(int32_t))
PROTO(aclrtCreateStream, aclError (*)(aclrtStream *))
PROTO(aclrtMalloc, aclError (*)(void **, size_t, aclrtMemMallocPolicy))
PROTO(aclrtMemcpy,
      aclError (*)(void *, size_t, const void *, size_t, aclrtMemcpyKind))
PROTO(aclrtEventElapsedTime, aclError (*)(float *, aclrtEvent, aclrtEvent))
PROTO(aclrtReserveMemAddress,
      aclError (*)(void **, size_t, size_t, void *, uint64_t))
PROTO(aclrtMallocPhysical, aclError (*)(aclrtDrvMemHandle *, size_t,
                                        const aclrtPhysicalMemProp *, uint64_t))
PROTO(aclrtMapMem,
      aclError (*)(void *, size_t, size_t, aclrtDrvMemHandle, uint64_t))

/// Names in the first column of a docs table whose header cell is `title`.
std::set<std::string> documented(const std::string &title) {
  std::ifstream f(HCCL_COMPAT_DOC);
  std::set<std::string> names;
  std::string line;
  bool inTable = false;
  std::regex row(R"(^\| `([A-Za-z0-9_]+)` \|)");
  while (std::getline(f, line)) {
    if (line.rfind("| " + title + " |", 0) == 0) {
      inTable = true;
      continue;
    }
    if (inTable && line.empty())
      inTable = false;
    std::smatch m;
    if (inTable && std::regex_search(line, m, row))
      names.insert(m[1]);
  }
  return names;
}

TEST(CompatApi, EveryHcclCallIsDocumentedAndExported) {
  std::set<std::string> doc = documented("HCCL call");
  std::set<std::string> ours(std::begin(kHcclCalls), std::end(kHcclCalls));
  ours.insert("HcclCommConfigInit");
  EXPECT_EQ(doc, ours) << "docs/compatibility.md's table and this list differ";
  void *lib = dlopen(HCCL_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const char *name : kHcclCalls)
    EXPECT_NE(dlsym(lib, name), nullptr) << name << " is not in libhccl";
  EXPECT_EQ(dlsym(lib, "HcclCommConfigInit"), nullptr)
      << "HcclCommConfigInit is inline in HCCL's header";
}

TEST(CompatApi, EveryAclCallIsDocumentedAndExported) {
  std::set<std::string> doc = documented("ACL call");
  ASSERT_GE(doc.size(), 40u);
  void *lib = dlopen(ACL_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const std::string &name : doc)
    EXPECT_NE(dlsym(lib, name.c_str()), nullptr)
        << name << " is not in libascendcl";
}

} // namespace
