//===- MemoryCalls.cpp - Timing calls whose data comes from memory --------===//
#include "MemoryCalls.h"

#include "CacheEvict.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string_view>

namespace hccltest {

void CallMemory::evict(size_t pattern) const {
  if (flush) {
    std::memset(flush->data(), static_cast<int>(pattern & 0xff), flush->size());
    // Never read: keep the compiler from dropping the writes.
    asm volatile("" : : "r"(flush->data()) : "memory");
  } else {
    evictFromCaches(send, sendBytes);
    evictFromCaches(recv, recvBytes);
  }
}

double nowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

/// The stream's tasks before and after each queued call, all on the
/// stream's thread, in order.
struct MemoryQueue {
  const CallMemory *memory = nullptr;
  std::vector<double> *marks = nullptr;
  size_t next = 0;
};

void memoryQueueEvict(void *arg) {
  auto *q = static_cast<MemoryQueue *>(arg);
  q->memory->evict(q->next);
}

void memoryQueueMark(void *arg) {
  auto *q = static_cast<MemoryQueue *>(arg);
  (*q->marks)[q->next++] = nowSeconds();
}

} // namespace

HcclResult queueCallsFromMemory(HcclComm comm, aclrtStream stream,
                                const CallMemory &memory, int iters,
                                const char *callName,
                                const std::function<HcclResult()> &launch,
                                std::vector<double> &marks,
                                std::string *failed) {
  marks.assign(2 * static_cast<size_t>(iters), 0.0);
  MemoryQueue q{&memory, &marks, 0};
  HcclResult r = HCCL_SUCCESS;
  auto step = [&](HcclResult res, const char *what) {
    if (res != HCCL_SUCCESS && r == HCCL_SUCCESS) {
      r = res;
      *failed = std::string(what) + " failed: " + HcclGetErrorString(res) +
                ": " + HcclGetLastErrorMessage();
    }
    return res == HCCL_SUCCESS;
  };
  for (int i = 0; i < iters; ++i)
    if (!step(HcclStreamLaunchHostFunc(stream, memoryQueueEvict, &q),
              "HcclStreamLaunchHostFunc") ||
        !step(HcclBarrier(comm, stream), "HcclBarrier") ||
        !step(HcclStreamLaunchHostFunc(stream, memoryQueueMark, &q),
              "HcclStreamLaunchHostFunc") ||
        !step(launch(), callName) ||
        !step(HcclStreamLaunchHostFunc(stream, memoryQueueMark, &q),
              "HcclStreamLaunchHostFunc") ||
        !step(HcclBarrier(comm, stream), "HcclBarrier"))
      break;
  // The queued tasks point at `q` and `marks`: drained before they go,
  // failed or not.
  step(HcclStreamSynchronize(stream), "HcclStreamSynchronize");
  return r;
}

namespace {

/// The kernel's boot id, hashed to 52 bits (exact in a double); -1 when it
/// cannot be read. Every rank runs this binary, so std::hash agrees.
double bootIdHash() {
  FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "r");
  if (!f)
    return -1;
  char id[64] = {};
  size_t n = std::fread(id, 1, sizeof id - 1, f);
  std::fclose(f);
  if (n == 0)
    return -1;
  uint64_t h = std::hash<std::string_view>{}(std::string_view(id, n));
  return static_cast<double>(h >> 12);
}

} // namespace

HcclResult sharedSteadyClock(HcclComm comm, bool *shared) {
  double h = bootIdHash();
  double v[3] = {h, -h, h < 0 ? 1.0 : 0.0};
  HcclResult r = HcclAllReduce(v, v, 3, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_MAX,
                               comm, nullptr);
  if (r == HCCL_SUCCESS)
    *shared = v[2] == 0 && v[0] == -v[1];
  return r;
}

HcclResult lastStartToLastEnd(HcclComm comm, bool shared,
                              std::vector<double> &marks, double *seconds) {
  auto total = [&] {
    *seconds = 0;
    for (size_t i = 0; i + 1 < marks.size(); i += 2)
      *seconds += marks[i + 1] - marks[i];
  };
  if (!shared || marks.empty()) {
    total();
    return HCCL_SUCCESS;
  }
  // Ranks start a call apart: leaving a meeting, by up to a millisecond
  // with more ranks than cores (a rank switched out; 4 ranks on 2 cores,
  // where a 64 KB all-reduce takes 38 us back to back), or after their own
  // evictions when queued. A rank's own time would count that skew as the
  // call's. From the last rank's start until the last rank's end is what
  // the call takes once all are there; ranks that came early may have done
  // part of it before (a root's sends), so this is the call's cost without
  // the skew, a bound from below.
  HcclResult r =
      HcclAllReduce(marks.data(), marks.data(), marks.size(),
                    HCCL_DATA_TYPE_FP64, HCCL_REDUCE_MAX, comm, nullptr);
  if (r == HCCL_SUCCESS)
    total();
  return r;
}

} // namespace hccltest
