//===- Placement.h - A group placed on a topology ---------------*- C++ -*-===//
//
// The compiler (a comm.group on the module's topology) and the runtime (a
// communicator's ranks on its rank table or hosts) place groups with these
// functions and select with the placement (Select.h), so both choose the
// same algorithm for the same group, size and topology.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_PLACEMENT_H
#define HCCL_MLIR_SCHEDULE_PLACEMENT_H

#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Topology.h"

#include <cstdint>
#include <vector>

namespace hccl::sched {

struct GroupPlacement {
  int64_t p = 1;
  /// Members per server as the hierarchical generators need them: every
  /// subgroup splits into runs of m consecutive members (group-local ranks
  /// server-major), one server per run and no server twice, m the same for
  /// every run; 0 when the group does not split that way.
  int64_t ranksPerServer = 0;
  /// Servers one subgroup spans (the widest subgroup).
  int64_t servers = 1;
  /// Super pods one subgroup spans (the widest); 0: not known, or the
  /// topology has no pods.
  int64_t pods = 0;
  /// Members per super pod, as ranksPerServer with pods for servers; 0 when
  /// the group does not split that way or the topology has no pods.
  int64_t ranksPerPod = 0;

  /// Hierarchical algorithms can serve the group.
  bool hierarchical() const { return servers > 1 && ranksPerServer > 0; }
  /// Hierarchical algorithms split at the pod can serve it.
  bool podHierarchical() const { return pods > 1 && ranksPerPod > 0; }
  /// The ranks per server closed forms and generators take: p on one
  /// server, m when the group splits evenly, else 1 (only a flat algorithm
  /// on the inter-server link serves it).
  int64_t levelRanks() const;
  bool operator==(const GroupPlacement &o) const {
    return p == o.p && ranksPerServer == o.ranksPerServer &&
           servers == o.servers && pods == o.pods &&
           ranksPerPod == o.ranksPerPod;
  }
};

/// Places a group given as its subgroups (each the global ranks of one
/// communicator, all of the same size; a runtime communicator is one
/// subgroup). Errors name an empty or ragged group or a rank outside the
/// topology.
Result<GroupPlacement>
placeGroup(const Topology &topo,
           const std::vector<std::vector<int64_t>> &subgroups);

/// p ranks numbered server-major, m per server (hccl-plan's
/// --ranks-per-server): a group that fills servers of m ranks, or a part of
/// one server when p <= m.
GroupPlacement serverMajorPlacement(int64_t p, int64_t m);

/// The closed-form time of `req` (algorithm, levels, slices, bytes, element
/// size; its p and ranksPerServer are replaced by the placement's) for a
/// group placed as `pl`; an error when the algorithm cannot serve it, e.g. a
/// hierarchical algorithm on a group that does not split evenly.
Result<double> placedClosedFormCost(ClosedFormRequest req,
                                    const GroupPlacement &pl,
                                    const Topology &topo);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_PLACEMENT_H
