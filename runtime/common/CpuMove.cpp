//===- CpuMove.cpp - Step a thread off a CPU it shares with a peer --------===//
#include "common/CpuMove.h"

#include <sched.h>

namespace hccl::rt {

bool moveOffCpu(int cpu) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  // pid 0: the calling thread (affinity is per thread on Linux).
  if (cpu < 0 || cpu >= CPU_SETSIZE ||
      sched_getaffinity(0, sizeof mask, &mask) != 0 || !CPU_ISSET(cpu, &mask) ||
      CPU_COUNT(&mask) < 2)
    return false;
  cpu_set_t others = mask;
  CPU_CLR(cpu, &others);
  if (sched_setaffinity(0, sizeof others, &others) != 0)
    return false;
  // The kernel has migrated the thread before returning; the restored mask
  // does not move it back.
  sched_setaffinity(0, sizeof mask, &mask);
  return true;
}

} // namespace hccl::rt
