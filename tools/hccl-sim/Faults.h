//===- Faults.h - --slow-link and --fail-link ---------------------*- C++
//-*-===//
//
//   --slow-link nic:R:F[,...]     rank R's NIC (up and down) at F of its
//                                 bandwidth, 0 < F <= 1
//   --slow-link hccs:A:B:F[,...]  the HCCS links between A and B
//   --fail-link nic:R | hccs:A:B  the same links turned off
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

} // namespace hccl::sim

#endif // HCCL_SIM_FAULTS_H
