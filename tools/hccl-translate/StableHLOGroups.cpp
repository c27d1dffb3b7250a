//===- StableHLOGroups.cpp - StableHLO process groups ---------------------===//
#include "StableHLOGroups.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir::comm::shlo;

llvm::StringRef mlir::comm::shlo::modeName(GroupMode m) {
  switch (m) {
  case GroupMode::CrossReplica:
    return "cross_replica";
  case GroupMode::CrossPartition:
    return "cross_partition";
  case GroupMode::CrossReplicaAndPartition:
    return "cross_replica_and_partition";
  case GroupMode::FlattenedIds:
    return "flattened_ids";
  }
  llvm_unreachable("group mode");
}

llvm::StringRef mlir::comm::shlo::idKind(GroupMode m) {
  switch (m) {
  case GroupMode::CrossPartition:
    return "partition";
  case GroupMode::FlattenedIds:
    return "process";
  default:
    return "replica";
  }
}

int64_t mlir::comm::shlo::idDomain(GroupMode m, const ProcessGrid &grid) {
  switch (m) {
  case GroupMode::CrossPartition:
    return grid.partitions;
  case GroupMode::FlattenedIds:
    return grid.processes();
  default:
    return grid.replicas;
  }
}

std::string mlir::comm::shlo::idDomainFrom(GroupMode m,
                                           const ProcessGrid &grid) {
  switch (m) {
  case GroupMode::CrossPartition:
    return grid.partitionsFrom;
  case GroupMode::FlattenedIds:
    return grid.replicasFrom + " x " + grid.partitionsFrom;
  default:
    return grid.replicasFrom;
  }
}

Groups mlir::comm::shlo::processGroups(GroupMode mode, const Groups &lists,
                                       const ProcessGrid &grid) {
  Groups out;
  switch (mode) {
  case GroupMode::CrossReplica:
    // One group per (replica group, partition): replicas talk within a
    // partition only.
    for (const auto &g : lists)
      for (int64_t p = 0; p < grid.partitions; ++p) {
        out.emplace_back();
        for (int64_t r : g)
          out.back().push_back(grid.processId(r, p));
      }
    break;
  case GroupMode::CrossPartition:
    for (const auto &g : lists)
      for (int64_t r = 0; r < grid.replicas; ++r) {
        out.emplace_back();
        for (int64_t p : g)
          out.back().push_back(grid.processId(r, p));
      }
    break;
  case GroupMode::CrossReplicaAndPartition:
    // One group per replica group, spanning every partition, partition-major
    // (the spec's loop order, which fixes the gather / scatter order).
    for (const auto &g : lists) {
      out.emplace_back();
      for (int64_t p = 0; p < grid.partitions; ++p)
        for (int64_t r : g)
          out.back().push_back(grid.processId(r, p));
    }
    break;
  case GroupMode::FlattenedIds:
    out = lists;
    break;
  }
  return out;
}

llvm::SmallVector<int64_t>
mlir::comm::shlo::processPairs(GroupMode mode, llvm::ArrayRef<int64_t> pairs,
                               const ProcessGrid &grid) {
  llvm::SmallVector<int64_t> out;
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    int64_t s = pairs[i], t = pairs[i + 1];
    if (mode == GroupMode::CrossPartition) {
      for (int64_t r = 0; r < grid.replicas; ++r)
        out.append({grid.processId(r, s), grid.processId(r, t)});
    } else {
      for (int64_t p = 0; p < grid.partitions; ++p)
        out.append({grid.processId(s, p), grid.processId(t, p)});
    }
  }
  return out;
}
