//===- HcclError.h - HCCL results as C++ exceptions for the c10d backend --===//
//
// A failed runtime call becomes an HcclError naming the call, the HCCL code
// and the runtime's one-line message; Module.cpp registers it as the Python
// exception hccl_mlir.torch.HcclError (a RuntimeError). The message must be
// read on the thread that made the call (HcclGetLastErrorMessage is per
// thread), so hcclCheck throws where the call failed.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TORCH_HCCLERROR_H
#define HCCL_TORCH_HCCLERROR_H

#include "hccl/hccl.h"

#include <stdexcept>
#include <string>

namespace hccl_torch {

class HcclError : public std::runtime_error {
public:
  HcclError(HcclResult code, const std::string &what)
      : std::runtime_error(what), code_(code) {}
  HcclResult code() const { return code_; }

private:
  HcclResult code_;
};

/// The enumerator's name ("HCCL_E_REMOTE"); HcclGetErrorString gives HCCL's
/// text ("error cqe"), which does not name the code.
inline const char *hcclResultName(HcclResult r) {
  static const char *const names[] = {"HCCL_SUCCESS",
                                      "HCCL_E_PARA",
                                      "HCCL_E_PTR",
                                      "HCCL_E_MEMORY",
                                      "HCCL_E_INTERNAL",
                                      "HCCL_E_NOT_SUPPORT",
                                      "HCCL_E_NOT_FOUND",
                                      "HCCL_E_UNAVAIL",
                                      "HCCL_E_SYSCALL",
                                      "HCCL_E_TIMEOUT",
                                      "HCCL_E_OPEN_FILE_FAILURE",
                                      "HCCL_E_TCP_CONNECT",
                                      "HCCL_E_ROCE_CONNECT",
                                      "HCCL_E_TCP_TRANSFER",
                                      "HCCL_E_ROCE_TRANSFER",
                                      "HCCL_E_RUNTIME",
                                      "HCCL_E_DRV",
                                      "HCCL_E_PROFILING",
                                      "HCCL_E_CCE",
                                      "HCCL_E_NETWORK",
                                      "HCCL_E_AGAIN",
                                      "HCCL_E_REMOTE",
                                      "HCCL_E_SUSPENDING"};
  auto i = static_cast<unsigned>(r);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "HCCL_E_(unknown)";
}

/// Throws HcclError for a failed `call` ("HcclAllReduce") on this thread:
/// "hccl: HcclAllReduce failed: HCCL_E_REMOTE (error cqe): <message>".
inline void hcclCheck(HcclResult r, const char *call) {
  if (r == HCCL_SUCCESS)
    return;
  std::string msg = std::string("hccl: ") + call +
                    " failed: " + hcclResultName(r) + " (" +
                    HcclGetErrorString(r) + ")";
  const char *last = HcclGetLastErrorMessage();
  std::string detail = last != nullptr ? last : "";
  // The runtime's message usually starts with the call's name already.
  std::string prefix = std::string(call) + ": ";
  if (detail.compare(0, prefix.size(), prefix) == 0)
    detail.erase(0, prefix.size());
  if (!detail.empty())
    msg += ": " + detail;
  throw HcclError(r, msg);
}

} // namespace hccl_torch

#endif // HCCL_TORCH_HCCLERROR_H
