//===- AlgorithmPolicy.h - How a communicator picks algorithms --*- C++ -*-===//
//
// lib/schedule places the communicator's ranks on its topology and selects
// (Placement.h, Select.h), as the compiler does for a comm.group; on top the
// runtime keeps HCCL's rules: HCCL_DETERMINISTIC=strict fixes the order of
// combination, all-to-all-v chooses without its per-rank sizes, and an
// HCCL_ALGO that cannot serve a collective falls back to the automatic
// choice. Without an HCCL_ALGO for the collective, an HCCL_ALGO_TABLE entry
// for it decides (measured choices, as comm-select-algorithm's table=); one
// that cannot serve falls back the same way. On one host with more ranks
// than cores, small all-gathers and reduce-scatters of 3-4 ranks take the
// mesh, a measured rule (docs/performance.md, "Mesh all-gathers and
// reduce-scatters on shared cores"). A pure function of its inputs (the ranks
// check at init that they read the same table, and the topology comes from the
// table of ranks every rank received, onSharedCores included), so every rank
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
  /// `topo`. Errors when a rank lies outside the topology. `sharedCores`:
  /// sharesCores() held for the communicator (topo then onSharedCores'd):
  /// all-gathers and reduce-scatters take the mesh (see choose()).
  static StatusOr<AlgorithmPolicy> create(sched::Topology topo,
                                          const std::vector<int64_t> &ranks,
                                          const Config &cfg,
                                          bool sharedCores = false);

  /// The algorithm for a collective of `bytes` (HCCL count * elemBytes).
  StatusOr<AlgorithmChoice> choose(sched::Collective c, uint64_t bytes,
                                   size_t elemBytes) const;

  /// What a shared-memory message costs beyond the host preset's latency
  /// when the host has fewer cores than local ranks: each step waits for a
  /// rank of a shared core to be scheduled. Charged per message, not per
  /// step: per step broke the exact ring/mesh tie toward mesh (2x slower at
  /// 1-4 MB) and charged a star root for all its messages at once. Measured on
  /// 2 cores: a ring all-reduce of 4-64 KB took 80-87 us over its 4 steps at 3
  /// ranks and 175-206 us over 6 at 4 ranks, against 30-46 us for the one step
  /// of a one-shot (docs/performance.md, "Steps on shared cores").
  static constexpr double kSharedCoreMessageUs = 20.0;
  /// On shared cores all-gathers and reduce-scatters of at most these
  /// bytes a rank (HCCL's count * element size) take the mesh: the
  /// measured bounds of its gain (docs/performance.md, "Mesh all-gathers
  /// and reduce-scatters on shared cores").
  static constexpr uint64_t kSharedCoreMeshGatherBytes = 1ull << 20;
  static constexpr uint64_t kSharedCoreMeshScatterBytes = 64ull << 10;
  /// The rank counts measured (3 and 4; at 2 the mesh is the ring).
  static constexpr size_t kSharedCoreMeshMaxRanks = 4;
  /// `hostTopo` (Topology::hosts) as the runtime prices it when the host
  /// has more local ranks than cores: kSharedCoreMessageUs more latency per
  /// shared-memory message, so that fewer steps win until the bytes
  /// dominate. Every rank must price alike, so the caller applies it only
  /// to a communicator whose ranks are all on one host.
  static sched::Topology onSharedCores(sched::Topology hostTopo);
  /// Whether onSharedCores applies to a communicator on `hosts` hosts whose
  /// ranks counted `rankCores` cores each: one host, and more ranks than
  /// the fewest cores any of them counted (every rank decides alike from
  /// the same table, whatever its own count).
  static bool sharesCores(size_t hosts, const std::vector<int> &rankCores);

  const sched::Topology &topology() const { return topo_; }
  /// create()'s `sharedCores` (a child communicator inherits it).
  bool sharedCores() const { return sharedCores_; }
  const sched::GroupPlacement &placement() const { return placement_; }
  /// Global ranks of the members on topology().
  const std::vector<int64_t> &ranks() const { return ranks_; }

private:
  /// The shared-core mesh rule (see the .cpp) for this collective and size.
  bool takesSharedCoreMesh(sched::Collective c, uint64_t bytes) const;

  sched::Topology topo_;
  sched::GroupPlacement placement_;
  std::vector<int64_t> ranks_;
  bool sharedCores_ = false;
  Deterministic deterministic_ = Deterministic::False;
  std::optional<sched::HcclAlgoSpec> algoSpec_;
  std::string algoText_;
  std::shared_ptr<const sched::AlgoTable> table_;
  std::string tableFile_;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_ALGORITHMPOLICY_H
