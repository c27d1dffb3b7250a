//===- AlgorithmPolicy.h - How a communicator picks algorithms --*- C++ -*-===//
//
// lib/schedule places the communicator's ranks on its topology and selects
// (Placement.h, Select.h), as the compiler does for a comm.group; on top the
// runtime keeps HCCL's rules: HCCL_DETERMINISTIC=strict fixes the order of
// combination, all-to-all-v chooses without its per-rank sizes, and an
// HCCL_ALGO that cannot serve a collective falls back to the automatic
// choice. Without an HCCL_ALGO for the collective, an HCCL_ALGO_TABLE entry
// for it decides (measured choices, as comm-select-algorithm's table=); one
// that cannot serve falls back the same way. A pure function of its inputs
// (the ranks check at init that they read the same table), so every rank
// chooses alike.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_ALGORITHMPOLICY_H
#define HCCL_RUNTIME_CORE_ALGORITHMPOLICY_H

#include "common/Status.h"
#include "config/Config.h"
#include "hccl-mlir/schedule/Placement.h"
#include "hccl-mlir/schedule/Select.h"
#include "hccl-mlir/schedule/Topology.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hccl::rt {

struct AlgorithmChoice {
  sched::Algorithm algorithm = sched::Algorithm::Ring;
  sched::Algorithm level0 = sched::Algorithm::Ring;
  sched::Algorithm level1 = sched::Algorithm::Ring;
  /// Hierarchical split at the super pod: the pod's ranks are level 0.
  bool podSplit = false;
};

class AlgorithmPolicy {
public:
  AlgorithmPolicy() = default;
  /// `ranks`: the communicator's members in its rank order, as ranks of
  /// `topo`. Errors when a rank lies outside the topology.
  static StatusOr<AlgorithmPolicy> create(sched::Topology topo,
                                          const std::vector<int64_t> &ranks,
                                          const Config &cfg);

  /// The algorithm for a collective of `bytes` (HCCL count * elemBytes).
  StatusOr<AlgorithmChoice> choose(sched::Collective c, uint64_t bytes,
                                   size_t elemBytes) const;

  const sched::Topology &topology() const { return topo_; }
  const sched::GroupPlacement &placement() const { return placement_; }
  /// Global ranks of the members on topology().
  const std::vector<int64_t> &ranks() const { return ranks_; }

private:
  sched::Topology topo_;
  sched::GroupPlacement placement_;
  std::vector<int64_t> ranks_;
  Deterministic deterministic_ = Deterministic::False;
  std::optional<sched::HcclAlgoSpec> algoSpec_;
  std::string algoText_;
  std::shared_ptr<const sched::AlgoTable> table_;
  std::string tableFile_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_ALGORITHMPOLICY_H
