//===- Launcher.h - Ranks from launcher variables ---------------*- C++ -*-===//
//
// HcclCommInitFromEnv reads what the usual launchers export:
//   Open MPI   OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
//   MPICH/PMI  PMI_RANK, PMI_SIZE
//   torchrun   RANK, WORLD_SIZE (and MASTER_ADDR, MASTER_PORT)
// and finds the rendezvous through MASTER_ADDR/MASTER_PORT (rank 0 listens
// on MASTER_PORT) or, when HCCL_ROOT_INFO_FILE is set, through a file on a
// shared filesystem into which rank 0 writes its root info.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_BOOTSTRAP_LAUNCHER_H
#define HCCL_RUNTIME_BOOTSTRAP_LAUNCHER_H

#include "common/Status.h"

#include <functional>
#include <string>

namespace hccl::rt {

struct LaunchEnv {
  int rank = 0;
  int size = 1;
  std::string source;       ///< "Open MPI", "PMI", "torchrun"
  std::string masterAddr;   ///< "" when not given
  int masterPort = 0;       ///< 0 when not given
  std::string rootInfoFile; ///< HCCL_ROOT_INFO_FILE
  std::string jobId;        ///< launcher's job id, if it exports one
};

/// Reads and validates the variables; errors name the variable and value.
StatusOr<LaunchEnv>
readLaunchEnv(const std::function<const char *(const char *)> &getenv);

/// Parses a non-negative decimal integer that fits in int ("" or junk fail).
bool parseNonNegativeInt(const std::string &s, int &out);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_BOOTSTRAP_LAUNCHER_H
