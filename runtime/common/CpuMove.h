//===- CpuMove.h - Step a thread off a shared CPU ---------------*- C++ -*-===//
//
// The kernel wakes a thread on its waker's CPU, so two ranks' executors that
// wake each other end up on one CPU while another idles; the one that runs
// then waits for the one that cannot. Sleeping hands the CPU over, at a
// futex wake-up's cost (30-60 us on the 2-core VM) every call. Moving off
// once ends it: narrowing the calling thread's affinity to the other CPUs
// of its mask migrates it at once, and restoring the mask right after
// leaves it where it landed (docs/runtime.md, "The executor").
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_CPUMOVE_H
#define HCCL_RUNTIME_COMMON_CPUMOVE_H

namespace hccl::rt {

/// Moves the calling thread off `cpu` to another CPU its affinity mask
/// allows, then restores the mask (the user's placement stays the user's).
/// False, with nothing changed, when the mask has no other CPU or the
/// kernel refuses.
bool moveOffCpu(int cpu);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_CPUMOVE_H
