//===- StableHLOGroups.h - StableHLO process groups ------------*- C++ -*-===//
//
// The StableHLO specification ("Collective ops", "Parallel execution") runs a
// program on a grid of num_replicas x num_partitions processes and splits it
// into process groups with one of four strategies, chosen per op from its
// channel_handle and use_global_device_ids. The comm dialect names a process
// by its flattened id, replica_id * num_partitions + partition_id (the
// spec's flattened_ids form), so a comm rank is that id.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOGROUPS_H
#define HCCL_MLIR_TOOLS_TRANSLATE_STABLEHLOGROUPS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::comm::shlo {

/// The process grid and where each extent came from (for diagnostics).
struct ProcessGrid {
  int64_t replicas = 1;
  int64_t partitions = 1;
  std::string replicasFrom = "(default)";
  std::string partitionsFrom = "(default)";
  int64_t processes() const { return replicas * partitions; }
  int64_t processId(int64_t replica, int64_t partition) const {
    return replica * partitions + partition;
  }
};

/// The spec's four strategies.
enum class GroupMode {
  CrossReplica,
  CrossPartition,
  CrossReplicaAndPartition,
  FlattenedIds,
};

llvm::StringRef modeName(GroupMode m);

/// What the ids of `mode`'s lists name: "replica", "partition", "process".
llvm::StringRef idKind(GroupMode m);

/// How many ids `mode`'s lists range over, and where that number came from.
int64_t idDomain(GroupMode m, const ProcessGrid &grid);
std::string idDomainFrom(GroupMode m, const ProcessGrid &grid);

using Groups = llvm::SmallVector<llvm::SmallVector<int64_t>>;

/// The process groups (lists of flattened process ids, in the spec's order)
/// of `lists` under `mode`. The lists must already be checked (ids in
/// 0..idDomain-1, unique).
Groups processGroups(GroupMode mode, const Groups &lists,
                     const ProcessGrid &grid);

/// collective_permute's (source, target) pairs of `mode`'s ids as pairs of
/// flattened process ids: each pair once per partition (cross_replica) or
/// once per replica (cross_partition).
llvm::SmallVector<int64_t> processPairs(GroupMode mode,
                                        llvm::ArrayRef<int64_t> pairs,
                                        const ProcessGrid &grid);

} // namespace mlir::comm::shlo

#endif
