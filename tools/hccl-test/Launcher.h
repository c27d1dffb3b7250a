//===- Launcher.h - Running hccl-test's ranks -------------------*- C++ -*-===//
#ifndef HCCL_TOOLS_HCCL_TEST_LAUNCHER_H
#define HCCL_TOOLS_HCCL_TEST_LAUNCHER_H

#include <functional>
#include <string>

namespace hccltest {

/// How this process was started.
enum class LaunchMode {
  Mpi,      ///< mpirun / mpiexec: OMPI_COMM_WORLD_SIZE or PMI_SIZE
  Torchrun, ///< RANK and WORLD_SIZE set (torchrun, or a user's script)
  Local,    ///< alone: hccl-test starts the ranks itself
};
LaunchMode detectLaunchMode();

/// Under mpirun without MASTER_ADDR or HCCL_ROOT_INFO_FILE, points
/// HCCL_ROOT_INFO_FILE at a per-job file in /tmp so the ranks of one host
/// can rendezvous (multi-host jobs export MASTER_ADDR/MASTER_PORT instead).
/// Returns the path it set, or "".
std::string prepareMpiRendezvous();

/// A port the kernel considers free right now on 127.0.0.1, for
/// MASTER_PORT, outside the ports the ranks' own listeners try
/// (HCCL_IF_BASE_PORT + 1 .. + 4095, default 60001-64095; the kernel's
/// ephemeral range reaches into it): a rank listening there before rank 0
/// binds would take rank 0's port. -1 when none is found.
int freeMasterPort();

/// Forks `nRanks` processes; each gets RANK, WORLD_SIZE, LOCAL_RANK,
/// LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1 and a free MASTER_PORT, and runs
/// `body` (its return value is the child's exit status). Waits for all. If
/// one fails, the others get a grace period to notice and report, then are
/// killed. Returns 0 if every rank exited 0, 2 if any exited 2, else 1.
int launchLocal(int nRanks, const std::function<int()> &body);

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_LAUNCHER_H
