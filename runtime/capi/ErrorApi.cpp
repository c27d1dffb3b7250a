//===- ErrorApi.cpp - C API: result names and last error messages ---------===//
#include "capi/ApiSupport.h"

namespace hccl::rt::capi {
const char *lastErrorMessage();
}

extern "C" {

const char *HcclGetErrorString(HcclResult code) {
  switch (code) {
  case HCCL_SUCCESS:
    return "HCCL_SUCCESS: success";
  case HCCL_E_PARA:
    return "HCCL_E_PARA: parameter error";
  case HCCL_E_PTR:
    return "HCCL_E_PTR: null pointer";
  case HCCL_E_MEMORY:
    return "HCCL_E_MEMORY: memory error";
  case HCCL_E_INTERNAL:
    return "HCCL_E_INTERNAL: internal error";
  case HCCL_E_NOT_SUPPORT:
    return "HCCL_E_NOT_SUPPORT: feature not supported";
  case HCCL_E_NOT_FOUND:
    return "HCCL_E_NOT_FOUND: resource not found";
  case HCCL_E_UNAVAIL:
    return "HCCL_E_UNAVAIL: resource unavailable";
  case HCCL_E_SYSCALL:
    return "HCCL_E_SYSCALL: system call failed";
  case HCCL_E_TIMEOUT:
    return "HCCL_E_TIMEOUT: timeout";
  case HCCL_E_OPEN_FILE_FAILURE:
    return "HCCL_E_OPEN_FILE_FAILURE: cannot open file";
  case HCCL_E_TCP_CONNECT:
    return "HCCL_E_TCP_CONNECT: TCP connect failed";
  case HCCL_E_ROCE_CONNECT:
    return "HCCL_E_ROCE_CONNECT: RoCE connect failed";
  case HCCL_E_TCP_TRANSFER:
    return "HCCL_E_TCP_TRANSFER: TCP transfer failed";
  case HCCL_E_ROCE_TRANSFER:
    return "HCCL_E_ROCE_TRANSFER: RoCE transfer failed";
  case HCCL_E_RUNTIME:
    return "HCCL_E_RUNTIME: runtime call failed";
  case HCCL_E_DRV:
    return "HCCL_E_DRV: driver call failed";
  case HCCL_E_PROFILING:
    return "HCCL_E_PROFILING: profiling error";
  case HCCL_E_CCE:
    return "HCCL_E_CCE: CCE error";
  case HCCL_E_NETWORK:
    return "HCCL_E_NETWORK: network error";
  case HCCL_E_AGAIN:
    return "HCCL_E_AGAIN: try again";
  case HCCL_E_REMOTE:
    return "HCCL_E_REMOTE: error on a remote rank";
  case HCCL_E_SUSPENDING:
    return "HCCL_E_SUSPENDING: communicator suspending";
  default:
    return "unknown HcclResult";
  }
}

const char *HcclGetLastErrorMessage(void) {
  return hccl::rt::capi::lastErrorMessage();
}

} // extern "C"
