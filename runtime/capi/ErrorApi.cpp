//===- ErrorApi.cpp - C API: result texts and last error messages ---------===//
//
// HcclGetErrorString returns HCCL's own texts, so that programs (and logs)
// that print or compare them see what HCCL gives. HCCL's table ends at
// HCCL_E_REMOTE; the newer codes get the meaning their enumerators document.
//
//===----------------------------------------------------------------------===//
#include "capi/ApiSupport.h"

extern "C" {

const char *HcclGetErrorString(HcclResult code) {
  switch (code) {
  case HCCL_SUCCESS:
    return "no error";
  case HCCL_E_PARA:
    return "parameter error";
  case HCCL_E_PTR:
    return "empty pointer";
  case HCCL_E_MEMORY:
    return "memory error";
  case HCCL_E_INTERNAL:
    return "internal error";
  case HCCL_E_NOT_SUPPORT:
    return "not support feature";
  case HCCL_E_NOT_FOUND:
    return "not found specific resource";
  case HCCL_E_UNAVAIL:
    return "resource unavailable";
  case HCCL_E_SYSCALL:
    return "call system interface error";
  case HCCL_E_TIMEOUT:
    return "timeout";
  case HCCL_E_OPEN_FILE_FAILURE:
    return "open file fail";
  case HCCL_E_TCP_CONNECT:
    return "tcp connect fail";
  case HCCL_E_ROCE_CONNECT:
    return "roce connect fail";
  case HCCL_E_TCP_TRANSFER:
    return "tcp transfer fail";
  case HCCL_E_ROCE_TRANSFER:
    return "roce transfer fail";
  case HCCL_E_RUNTIME:
    return "call runtime api fail";
  case HCCL_E_DRV:
    return "call driver api fail";
  case HCCL_E_PROFILING:
    return "call profiling api fail";
  case HCCL_E_CCE:
    return "call cce api fail";
  case HCCL_E_NETWORK:
    return "call network api fail";
  case HCCL_E_AGAIN:
    return "try again";
  case HCCL_E_REMOTE:
    return "error cqe";
  case HCCL_E_SUSPENDING:
    return "error communicator suspending";
  case HCCL_E_OPRETRY_FAIL:
    return "retry constraint";
  case HCCL_E_OOM:
    return "out of memory";
  case HCCL_E_IN_STATUS:
    return "the error information is in the status";
  default:
    return "unknow error"; // HCCL's spelling
  }
}

const char *HcclGetLastErrorMessage(void) {
  return hccl::rt::capi::lastErrorMessage();
}

} // extern "C"
