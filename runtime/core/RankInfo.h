//===- RankInfo.h - What each rank tells the others at init -----*- C++ -*-===//
//
// Exchanged through the rendezvous: where the rank listens, which host it is
// on (same host -> shared memory), its pid and shared segment (for the shm
// transport), and the settings that must agree across ranks (HCCL_ALGO, ...).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_RANKINFO_H
#define HCCL_RUNTIME_CORE_RANKINFO_H

#include "common/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hccl::rt {

struct RankInfo {
  int rank = -1;
  std::string hostId;   ///< equal <=> same host, same namespaces
  std::string hostname; ///< for messages
  int pid = 0;
  std::string ip; ///< data listener
  uint16_t port = 0;
  int segFd = -1; ///< shared segment descriptor in that process
  uint32_t nSlots = 0, slotBytes = 0;
  std::string server; ///< rank table server id ("" = by host)
  /// Online CPUs this rank counts (hardware_concurrency): the algorithm
  /// choice reads the fewest any rank counts, so all choose alike.
  int cores = 1;
  /// Settings that must be equal on every rank.
  std::string settings;

  std::string encode() const;
  static StatusOr<RankInfo> decode(const std::string &s);
};

/// This machine + network/pid namespaces: processes with equal ids can share
/// memory and see each other's pids. HCCL_FAKE_HOST_ID (tests) is appended,
/// so processes of one machine can stand for different hosts.
std::string localHostId();
std::string localHostname();

/// Checks the settings of every rank against rank 0's; the error names the
/// first rank and setting that differ.
Status checkSettingsAgree(const std::vector<RankInfo> &infos);

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_RANKINFO_H
