//===- HostLoad.h - Whether this host has a core to spare now ---*- C++ -*-===//
//
// A waiting rank yields only while yielding is cheap: when other jobs keep
// the host's cores busy, a yielding waiter hands a whole time slice to one
// of them, and sleeping on a futex, which the kernel wakes with
// preemption, is faster. Measured on the 2-core VM at load 7-8: 4 KB to
// 1 MB all-reduces took 3-43 ms a call with a 100 us yield phase, 0.2-1 ms
// without (docs/performance.md, "Waiting on a busy host").
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

/// The cores this process counts (std::thread::hardware_concurrency, at
/// least 1). One place, so that the waits, the load test and the count a
/// rank reports at init (RankInfo::cores) agree.
int hostCores();

/// Threads of this job that may be runnable while it waits, besides the
/// host's cores (an executor and a synchronizing caller per local rank);
/// communicators raise it at init, it never falls.
void noteJobThreads(int n);

/// Other jobs hold the cores: more runnable threads than cores plus the
/// job's own (noteJobThreads). Re-read at most every 5 ms (a read costs a
/// few microseconds; a collective's step asks once, when it first waits).
/// False when the count is unknown.
bool hostBusy();
/// The same decision on given counts.
bool busyWith(int runnable, int cores, int jobThreads);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_COMMON_HOSTLOAD_H
