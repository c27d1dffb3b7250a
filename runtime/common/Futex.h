//===- Futex.h - Cross-process sleep/wake on shared words -------*- C++ -*-===//
//
// Waiting ranks must not spin for long: tests run 8 ranks on 2 cores. A
// Doorbell is a futex word (in process-shared memory when peers ring it from
// other processes) with a "sleeping" flag, so that ringing is a plain store
// unless the owner actually sleeps.
//
// Protocol (Dekker-style, both sides seq_cst):
//   waiter: v = seq(); sleeping = 1; re-check its condition; wait(v, ms);
//           sleeping = 0
//   ringer: publish the condition; if (sleeping) { ++seq; wake }
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_FUTEX_H
#define HCCL_RUNTIME_COMMON_FUTEX_H

#include <atomic>
#include <cstdint>

namespace hccl::rt {

/// Sleeps while *word == expected, at most `timeoutMs` ms (<0: no limit).
/// Shared (not FUTEX_PRIVATE) so the word may live in a shared mapping.
void futexWait(std::atomic<uint32_t> *word, uint32_t expected,
               int64_t timeoutMs);
void futexWakeAll(std::atomic<uint32_t> *word);

/// Lives inside shared memory; trivially constructible (zeroed is valid).
struct alignas(64) Doorbell {
  std::atomic<uint32_t> seq;
  char pad0[60];
  std::atomic<uint32_t> sleeping;
  char pad1[60];

  void ring() {
    if (sleeping.load(std::memory_order_seq_cst) != 0) {
      seq.fetch_add(1, std::memory_order_seq_cst);
      futexWakeAll(&seq);
    }
  }
  /// Always wakes (used from the same process and for aborts).
  void ringAlways() {
    seq.fetch_add(1, std::memory_order_seq_cst);
    futexWakeAll(&seq);
  }
};
static_assert(sizeof(Doorbell) == 128, "two cache lines");

/// CPU relax hint for short spins.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_FUTEX_H
