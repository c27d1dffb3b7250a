//===- AlgorithmPolicy.cpp - How a communicator chooses algorithms --------===//
#include "core/AlgorithmPolicy.h"

#include "common/Log.h"

#include <algorithm>
#include <atomic>

namespace hccl::rt {

StatusOr<AlgorithmPolicy>
AlgorithmPolicy::create(sched::Topology topo, const std::vector<int64_t> &ranks,
                        const Config &cfg, bool sharedCores) {
  auto pl = sched::placeGroup(topo, {ranks});
  if (!pl)
    return errInternal("placing the communicator on its topology: " +
                       pl.message());
  AlgorithmPolicy p;
  p.topo_ = std::move(topo);
  p.placement_ = *pl;
  p.ranks_ = ranks;
  p.sharedCores_ = sharedCores;
  p.deterministic_ = cfg.deterministic;
  p.algoSpec_ = cfg.algoSpec;
  p.algoText_ = cfg.algo;
  p.table_ = cfg.algoTable;
  p.tableFile_ = cfg.algoTableFile;
  return p;
}

sched::Topology AlgorithmPolicy::onSharedCores(sched::Topology hostTopo) {
  if (hostTopo.intra.cls == sched::LinkClass::SHM)
    hostTopo.intra.latencyUs += kSharedCoreMessageUs;
  return hostTopo;
}

bool AlgorithmPolicy::sharesCores(size_t hosts,
                                  const std::vector<int> &rankCores) {
  if (hosts != 1 || rankCores.empty())
    return false;
  int fewest = *std::min_element(rankCores.begin(), rankCores.end());
  return static_cast<int64_t>(rankCores.size()) > fewest;
}

// On shared cores a mesh all-gather or reduce-scatter is one step that
// reads every peer's posted buffer; ring and RHD forward what the step
// before received, so each of their steps waits for a rank of a shared core
// to have run. The model charges both per message and ties them (ring at 3
// ranks, RHD ahead at 4). Measured on 2 cores (docs/performance.md, "Mesh
// all-gathers and reduce-scatters on shared cores"): all-gathers up to 1 MB
// a rank took 0.60-0.76x the time in the final A/B (one earlier run 1.16x at
// 4 ranks, 256 KB a rank); reduce-scatters up to 64 KB a rank 0.58-0.90x at
// 3 ranks over the runs, and at 4 ranks 0.58-0.82x at 1 KB a rank but
// 0.79-1.43x above, within noise. Above the bounds the mesh's concurrent reads
// of every peer lost (1.03-1.4x at 16-64 MB). Only 3 and 4 ranks on shared
// memory were measured, so only there. All-reduce stays with the model: its
// fused ring beat the two-shot mesh from 1 MB up.
bool AlgorithmPolicy::takesSharedCoreMesh(sched::Collective c,
                                          uint64_t bytes) const {
  if (!sharedCores_ || topo_.intra.cls != sched::LinkClass::SHM ||
      placement_.servers != 1 || ranks_.size() > kSharedCoreMeshMaxRanks)
    return false;
  return (c == sched::Collective::AllGather &&
          bytes <= kSharedCoreMeshGatherBytes) ||
         (c == sched::Collective::ReduceScatter &&
          bytes <= kSharedCoreMeshScatterBytes);
}

StatusOr<AlgorithmChoice> AlgorithmPolicy::choose(sched::Collective c,
                                                  uint64_t bytes,
                                                  size_t elemBytes) const {
  using sched::Algorithm;
  AlgorithmChoice out;
  // HCCL_DETERMINISTIC=strict fixes the combination order whatever the
  // size: these generators reduce every element in rank order 0..p-1.
  if (deterministic_ == Deterministic::Strict) {
    if (c == sched::Collective::AllReduce ||
        c == sched::Collective::ReduceScatter) {
      out.algorithm = Algorithm::MeshTwoShot;
      return out;
    }
    if (c == sched::Collective::Reduce) {
      out.algorithm = Algorithm::Star;
      return out;
    }
  }
  // Every rank must choose the same algorithm. All-to-all-v sizes differ
  // per rank, so its choice may not depend on them: pairwise (as HCCL
  // does) unless HCCL_ALGO says otherwise.
  if (c == sched::Collective::AllToAllV && !algoSpec_) {
    out.algorithm = out.level0 = out.level1 = Algorithm::Pairwise;
    return out;
  }
  sched::SelectRequest req;
  req.collective = c;
  req.bytes =
      c == sched::Collective::AllToAllV ? 0.0 : static_cast<double>(bytes);
  req.elemBytes = static_cast<double>(elemBytes);
  req.placement = placement_;
  req.override = algoSpec_ ? &*algoSpec_ : nullptr;
  // The table's entry, as HCCL_ALGO would say it: a flat algorithm for
  // both levels, a hierarchical one's levels as given.
  sched::HcclAlgoSpec fromTable;
  const bool forcedHere = algoSpec_ && algoSpec_->forCollective(c).set;
  const sched::AlgoTableEntry *entry =
      table_ && !forcedHere
          ? table_->lookup(c, static_cast<int64_t>(ranks_.size()), req.bytes)
          : nullptr;
  if (entry) {
    sched::AlgoLevels &lv = fromTable.perCollective[static_cast<int>(c)];
    lv.set = true;
    bool hier = entry->algorithm == Algorithm::Hierarchical;
    lv.level0.algorithm = hier ? entry->level0 : entry->algorithm;
    lv.level1.algorithm = hier ? entry->level1 : entry->algorithm;
    req.override = &fromTable;
  }
  // The measured rule for shared cores (takesSharedCoreMesh) is part of the
  // automatic choice: it yields to HCCL_ALGO for this collective and to a
  // table entry, and applies again where either falls back.
  const bool sharedCoreMesh = takesSharedCoreMesh(c, bytes);
  if (sharedCoreMesh && !entry && !forcedHere) {
    out.algorithm = Algorithm::MeshTwoShot;
    return out;
  }
  auto sel = sched::selectAlgorithm(req, topo_);
  if (!sel && entry) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      HCCL_LOG(Warn, "HCCL_ALGO_TABLE=" + tableFile_ + ": its " +
                         sched::collectiveName(c) + " entry for " +
                         std::to_string(ranks_.size()) +
                         " ranks does not apply (" + sel.message() +
                         "); using the automatic choice");
    req.override = algoSpec_ ? &*algoSpec_ : nullptr;
    if (sharedCoreMesh && !forcedHere) {
      out.algorithm = Algorithm::MeshTwoShot;
      return out;
    }
    sel = sched::selectAlgorithm(req, topo_);
  }
  if (!sel && req.override) {
    // HCCL falls back to its default choice when HCCL_ALGO names an
    // algorithm the collective cannot use; so do we, and say so once.
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      HCCL_LOG(Warn, "HCCL_ALGO=" + algoText_ + " does not apply to " +
                         sched::collectiveName(c) + " (" + sel.message() +
                         "); using the automatic choice");
    req.override = nullptr;
    if (sharedCoreMesh) {
      out.algorithm = Algorithm::MeshTwoShot;
      return out;
    }
    sel = sched::selectAlgorithm(req, topo_);
  }
  if (!sel)
    return errInternal("algorithm selection failed: " + sel.message());
  out.algorithm = sel->algorithm;
  out.level0 = sel->level0;
  out.level1 = sel->level1;
  out.podSplit = sel->podSplit;
  return out;
}

} // namespace hccl::rt
