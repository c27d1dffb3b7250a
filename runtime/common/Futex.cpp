//===- Futex.cpp - Cross-process sleep/wake on shared words ---------------===//
#include "common/Futex.h"

#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hccl::rt {

void futexWait(std::atomic<uint32_t> *word, uint32_t expected,
               int64_t timeoutMs) {
  struct timespec ts;
  struct timespec *tsp = nullptr;
  if (timeoutMs >= 0) {
    ts.tv_sec = timeoutMs / 1000;
    ts.tv_nsec = (timeoutMs % 1000) * 1000000;
    tsp = &ts;
  }
  // Relative timeout with FUTEX_WAIT; EINTR/EAGAIN/ETIMEDOUT all just return:
  // callers re-check their condition.
  ::syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAIT, expected,
            tsp, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t> *word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE, INT_MAX,
            nullptr, nullptr, 0);
}

} // namespace hccl::rt
