//===- Result.h - Value-or-error for the MLIR-free libraries ----*- C++ -*-===//
//
// lib/schedule is linked into -fno-exceptions compiler code and into the
// runtime, so its API reports errors by value. This is deliberately tiny;
// llvm::Expected is not available here (no LLVM in lib/schedule).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_RESULT_H
#define HCCL_MLIR_SCHEDULE_RESULT_H

#include <optional>
#include <string>
#include <utility>

namespace hccl::sched {

/// Success, or a one-line message naming the problem and where it is.
class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string msg) {
    Status s;
    s.failed_ = true;
    s.msg_ = std::move(msg);
    return s;
  }
  bool isOk() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string &message() const { return msg_; }

private:
  bool failed_ = false;
  std::string msg_;
};

/// A value or an error message.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T v) : value_(std::move(v)) {}
  Result(Status s) : status_(std::move(s)) {}
  static Result error(std::string msg) {
    return Result(Status::error(std::move(msg)));
  }
  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const std::string &message() const { return status_.message(); }
  Status status() const { return isOk() ? Status::ok() : status_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T take() { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_RESULT_H
