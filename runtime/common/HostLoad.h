//===- HostLoad.h - Whether this host has a core to spare now ---*- C++ -*-===//
//
// A waiting rank spins only while spinning is cheap: when the host has more
// runnable threads than cores, a spinning or yielding waiter takes a core
// from the peer it waits for (or hands a whole time slice to another job),
// and sleeping on a futex, which the kernel wakes with preemption, is
// faster. Measured on the 2-core VM at load 7-8: 4 KB to 1 MB all-reduces
// took 3-43 ms a call with a 100 us yield phase, 0.02-2 ms sleeping at once
// (docs/performance.md, "Waiting on a busy host").
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_COMMON_HOSTLOAD_H
#define HCCL_RUNTIME_COMMON_HOSTLOAD_H

#include <string>

namespace hccl::rt {

/// Runnable threads on this host now (the kernel's instantaneous count,
/// the fourth field of /proc/loadavg: "R/T"), or -1 if it cannot be read.
int runnableThreads();
/// The count parsed from /proc/loadavg's text; -1 if malformed.
int runnableThreadsOf(const std::string &loadavg);

/// More runnable threads than cores: re-read at most every 5 ms (a read
/// costs a few microseconds; collectives ask once per call). False when
/// the count is unknown.
bool hostBusy();

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_HOSTLOAD_H
