//===- Faults.h - --slow-link and --fail-link -------------------*- C++ -*-===//
//
//   --slow-link nic:R:F[,...]     rank R's NIC (up and down) at F of its
//                                 bandwidth, 0 < F <= 1
//   --slow-link hccs:A:B:F[,...]  the HCCS links between A and B
//   --slow-link ub:R:F[,...]      rank R's port on its super pod's bus
//   --fail-link nic:R | ub:R | hccs:A:B  the same links turned off
//   --jitter nic:R:P:US[,...]     each message in or out of rank R's NIC
//                                 waits US more with probability P
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_SIM_FAULTS_H
#define HCCL_SIM_FAULTS_H

#include "Platform.h"

#include <string>
#include <vector>

namespace hccl::sim {

/// Parses a comma-separated list of faults of one option (`slow` selects
/// the --slow-link form); throws tools::BadInput naming the bad entry.
std::vector<LinkFault> parseFaults(const std::string &option,
                                   const std::string &text, bool slow);

/// Latency spikes on one NIC.
struct Jitter {
  int rank = 0;
  double probability = 0; ///< per message, 0 < P <= 1
  double extraUs = 0;     ///< the spike, > 0
  std::string text;
};
/// Parses --jitter's list; throws tools::BadInput naming the bad entry.
std::vector<Jitter> parseJitter(const std::string &text);

} // namespace hccl::sim

#endif // HCCL_SIM_FAULTS_H
