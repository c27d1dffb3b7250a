//===- Select.h - Algorithm selection and HCCL_ALGO -------------*- C++ -*-===//
//
// selectAlgorithm() prices every algorithm that can serve a collective on a
// placed group (Placement.h) with the closed forms of Cost.h and picks the
// cheapest, unless an HCCL_ALGO override says otherwise. The compiler and
// the runtime both choose through it.
//
// HCCL_ALGO syntax: `level0:NA;level1:H-D_R` (all collectives) or per
// collective
// `allreduce=level0:NA;level1:ring/allgather=level0:NA;level1:H-D_R`. level0 is
// intra-server, level1 inter-server. HCCL names map to ours: ring->ring,
// H-D_R->rhd, NHR->rhd (HCCL's NHR is a non-uniform hierarchical ring with log
// steps; our closest is RHD with the fold), NB->rd, pipeline->hierarchical with
// ring levels, pairwise->pairwise, fullmesh->mesh, NA->automatic; our canonical
// names are accepted too.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_SELECT_H
#define HCCL_MLIR_SCHEDULE_SELECT_H

#include "hccl-mlir/schedule/Placement.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Topology.h"
#include "hccl-mlir/schedule/Types.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hccl::sched {

/// One level's choice: nullopt = automatic (NA).
struct LevelChoice {
  std::optional<Algorithm> algorithm;
  bool pipeline = false; ///< HCCL "pipeline": hierarchical with ring levels
  bool operator==(const LevelChoice &o) const {
    return algorithm == o.algorithm && pipeline == o.pipeline;
  }
};

struct AlgoLevels {
  LevelChoice level0, level1;
  bool set = false; ///< false = nothing specified for this collective
  /// Came from the global form (no "collective="): a choice that cannot
  /// serve this collective falls back to automatic instead of failing.
  bool global = false;
};

/// A parsed HCCL_ALGO value.
struct HcclAlgoSpec {
  std::array<AlgoLevels, kNumCollectives> perCollective{};
  const AlgoLevels &forCollective(Collective c) const {
    return perCollective[static_cast<int>(c)];
  }
};

/// Maps one HCCL or canonical algorithm name ("H-D_R", "fullmesh", "rhd",
/// "NA", ...) to a level choice; error lists the valid names.
Result<LevelChoice> parseLevelAlgorithm(std::string_view name);
/// Valid names for error messages.
std::string hcclAlgoNameList();
/// Parses an HCCL_ALGO value; errors name the offending part.
Result<HcclAlgoSpec> parseHcclAlgo(std::string_view text);

struct SelectRequest {
  Collective collective = Collective::AllReduce;
  double bytes = 0;     ///< HCCL count * element size
  double elemBytes = 4; ///< element size (ring broadcast/reduce chunking)
  /// Where the group lies. Without it: p ranks server-major with
  /// ranksPerServer per server (0 = topology's devicesPerServer).
  std::optional<GroupPlacement> placement;
  int64_t p = 1;
  int64_t ranksPerServer = 0;
  const HcclAlgoSpec *override = nullptr;
  /// Pieces per block (ClosedFormRequest::pieces): a block layout.
  int64_t pieces = 1;
};

struct Candidate {
  Algorithm algorithm = Algorithm::Ring;
  Algorithm level0 = Algorithm::Ring, level1 = Algorithm::Ring;
  double seconds = 0;
  /// Hierarchical split at the super pod (ClosedFormRequest::podSplit).
  bool podSplit = false;
};

struct Selection {
  Algorithm algorithm = Algorithm::Ring;
  Algorithm level0 = Algorithm::Ring, level1 = Algorithm::Ring;
  double seconds = 0;
  bool podSplit = false; ///< Candidate::podSplit
  bool overridden = false;
  std::vector<Candidate> candidates; ///< every priced option
};

/// Whether a price of `a` seconds beats `b` by more than rounding. Prices
/// within a relative 1e-9 are a tie, and a tie goes to the candidate found
/// first (algorithmsFor's order: ring first). A strict `<` let the last
/// bits decide: at 2 ranks ring, the two-shot mesh and RHD have the same
/// closed form, and the pick flipped between them from size to size (the
/// mesh for a 16 KB all-reduce, ring for 8 and 32 KB), though the runtime
/// runs them differently (the mesh receives into scratch and reduces in a
/// second pass: 1.4-1.9x the ring's time there). Every choice among priced
/// candidates (here, and the compiler's) compares through this.
inline bool cheaperBeyondRounding(double a, double b) {
  return a < b * (1.0 - 1e-9);
}

/// Picks the algorithm; errors if an override names an algorithm that
/// cannot serve the collective. On a group with one rank per server a
/// hierarchical candidate is its inter-server level, run flat.
Result<Selection> selectAlgorithm(const SelectRequest &req,
                                  const Topology &topo);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_SELECT_H
