//===- Layout.h - Buffer shapes and bandwidth factors per collective -*- C++
//-*-=//
//
// For one collective, size and rank count: the count passed to the API, the
// elements of the send and receive buffers, the bytes reported as data_size
// (nccl-tests' convention: the larger per-rank buffer), the bus-bandwidth
// factor, and for alltoallv the count/displacement tables. Pure arithmetic,
// shared by every rank so that all agree without communicating.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_TOOLS_HCCL_TEST_LAYOUT_H
#define HCCL_TOOLS_HCCL_TEST_LAYOUT_H

#include "Options.h"

#include <cstdint>
#include <vector>

namespace hccltest {

struct Layout {
  uint64_t count = 0;     ///< the API's count argument
  uint64_t sendElems = 0; ///< elements this rank's send buffer holds
  uint64_t recvElems = 0; ///< elements this rank's receive buffer holds
  uint64_t dataBytes = 0; ///< reported data_size
  /// alltoallv only, indexed by peer: elements sent to / received from it
  /// and their offsets (blocks are separated by one unused element, so a
  /// transfer that ignores displacements is caught).
  std::vector<uint64_t> sendCounts, sdispls, recvCounts, rdispls;
};

/// alltoallv: elements rank `from` sends to rank `to` when the nominal
/// per-peer count is m (m-1, m or m+1, never negative).
uint64_t alltoallvCount(uint64_t m, uint32_t from, uint32_t to);

Layout layoutFor(Op op, uint64_t sizeBytes, size_t elemSize, uint32_t rank,
                 uint32_t nRanks);

/// busbw = algbw * factor (nccl-tests' definitions).
double busBandwidthFactor(Op op, uint32_t nRanks);

/// True for collectives that combine data with -o.
bool isReductionOp(Op op);

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_LAYOUT_H
