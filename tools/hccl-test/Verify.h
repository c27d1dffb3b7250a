//===- Verify.h - Filling inputs and checking outputs -----------*- C++ -*-===//
#ifndef HCCL_TOOLS_HCCL_TEST_VERIFY_H
#define HCCL_TOOLS_HCCL_TEST_VERIFY_H

#include "Layout.h"
#include "Reference.h"

#include <string>
#include <vector>

namespace hccltest {

struct RankContext {
  Op op;
  uint32_t rank, nRanks, root;
  /// Broadcast only: HCCL's call is in place (the root's input is in `recv`);
  /// a plan's program reads its input buffer, as other collectives do.
  bool inPlaceBroadcast = true;
};

/// The poison byte written over receive buffers before a run.
inline constexpr unsigned char kPoison = 0xA5;

/// Writes this rank's input into `send` (in-place broadcast: into `recv` on
/// the root only) and poisons `recv`.
void fillBuffers(const RankContext &ctx, const Layout &l, const DataGen &gen,
                 void *send, void *recv);

struct Mismatches {
  uint64_t count = 0;
  std::vector<std::string> first; ///< descriptions of the first few
};

/// Compares `recv` with the reference computed locally; gaps between
/// alltoallv blocks must still hold the poison.
Mismatches verifyBuffers(const RankContext &ctx, const Layout &l,
                         const DataGen &gen, const void *recv);

} // namespace hccltest

#endif // HCCL_TOOLS_HCCL_TEST_VERIFY_H
