//===- Status.h - HcclResult-carrying status for the runtime ----*- C++ -*-===//
//
// Every runtime function that can fail returns a Status (an HcclResult code
// plus a one-line message naming the problem and where) or a StatusOr<T>.
// The C API turns them into the return code and the thread's last error
// message. Exceptions never cross the C API.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_STATUS_H
#define HCCL_RUNTIME_COMMON_STATUS_H

#include "hccl/hccl_types.h"

#include <optional>
#include <string>
#include <utility>

namespace hccl::rt {

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(HcclResult code, std::string msg)
      : code_(code), msg_(std::move(msg)) {}
  static Status ok() { return Status(); }
  bool isOk() const { return code_ == HCCL_SUCCESS; }
  explicit operator bool() const { return isOk(); }
  HcclResult code() const { return code_; }
  const std::string &message() const { return msg_; }
  /// Same code, message prefixed with context ("rank 3: ...").
  Status withContext(const std::string &ctx) const {
    return isOk() ? *this : Status(code_, ctx + ": " + msg_);
  }

private:
  HcclResult code_ = HCCL_SUCCESS;
  std::string msg_;
};

template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T v) : value_(std::move(v)) {}
  StatusOr(Status s) : status_(std::move(s)) {}
  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T take() { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

inline Status errPara(std::string msg) {
  return Status(HCCL_E_PARA, std::move(msg));
}
inline Status errInternal(std::string msg) {
  return Status(HCCL_E_INTERNAL, std::move(msg));
}
/// A failed system call: "what: strerror(errno)".
Status errSyscall(const std::string &what, int err);

} // namespace hccl::rt

#define HCCL_RT_TRY(expr)                                                      \
  do {                                                                         \
    ::hccl::rt::Status _st = (expr);                                           \
    if (!_st.isOk())                                                           \
      return _st;                                                              \
  } while (0)

#endif // HCCL_RUNTIME_COMMON_STATUS_H
