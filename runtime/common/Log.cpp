//===- Log.cpp - Runtime logging to stderr --------------------------------===//
#include "common/Log.h"
#include "common/Status.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace hccl::rt {

static std::atomic<int> gLevel{static_cast<int>(LogLevel::Warn)};

LogLevel logLevel() {
  return static_cast<LogLevel>(gLevel.load(std::memory_order_relaxed));
}
void setLogLevel(LogLevel level) { gLevel.store(static_cast<int>(level)); }

void logLine(LogLevel level, const std::string &msg) {
  static const char *names[] = {"error", "warn", "info", "debug"};
  std::string line = "[hccl " + std::to_string(::getpid()) + "] " +
                     names[static_cast<int>(level)] + ": " + msg + "\n";
  // One write() per line so lines of concurrent ranks do not interleave.
  ssize_t rc = ::write(STDERR_FILENO, line.data(), line.size());
  (void)rc;
}

Status errSyscall(const std::string &what, int err) {
  return Status(HCCL_E_SYSCALL, what + ": " + std::strerror(err));
}

} // namespace hccl::rt
