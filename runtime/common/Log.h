//===- Log.h - Runtime logging to stderr ------------------------*- C++ -*-===//
//
// HCCL_LOG_LEVEL (error|warn|info|debug, default warn) filters messages.
// Lines look like "[hccl 12345 rank 3] error: ...". Logging never fails and
// never allocates on the hot path when the level is filtered out.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_LOG_H
#define HCCL_RUNTIME_COMMON_LOG_H

#include <string>

namespace hccl::rt {

enum class LogLevel : int { Error = 0, Warn = 1, Info = 2, Debug = 3 };

/// Current level; set once by setLogLevel (from the config) and read lock-free.
LogLevel logLevel();
void setLogLevel(LogLevel level);
inline bool logEnabled(LogLevel l) {
  return static_cast<int>(l) <= static_cast<int>(logLevel());
}

/// Writes one line (a trailing newline is added).
void logLine(LogLevel level, const std::string &msg);

} // namespace hccl::rt

#define HCCL_LOG(level, expr)                                                  \
  do {                                                                         \
    if (::hccl::rt::logEnabled(::hccl::rt::LogLevel::level))                   \
      ::hccl::rt::logLine(::hccl::rt::LogLevel::level, (expr));                \
  } while (0)

#endif // HCCL_RUNTIME_COMMON_LOG_H
