//===- AlgoTable.h - Algorithm choices measured elsewhere -------*- C++ -*-===//
//
// A table of algorithm choices by collective, group size and byte count,
// made by pricing every candidate with something other than the closed
// forms (tools/tune/sim_table.py: hccl-sim on a platform with contention,
// oversubscription or faults the alpha-beta model has no term for).
// comm-select-algorithm's `table=` takes it: a collective whose (collective,
// ranks) the table covers gets the choice of the largest table size not
// above its bytes (the smallest entry below the first), as NCCL's tuner
// tables pick by size band. Its simulated times can also price buckets
// (comm-bucket-sizing table=). Format: docs/plan-format.md, "Algorithm
// tables".
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_ALGOTABLE_H
#define HCCL_MLIR_SCHEDULE_ALGOTABLE_H

#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Types.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hccl::sched {

struct AlgoTableEntry {
  Collective collective = Collective::AllReduce;
  int64_t ranks = 2;
  double bytes = 0; ///< HCCL's byte count (count x element size)
  Algorithm algorithm = Algorithm::Ring;
  Algorithm level0 = Algorithm::Ring, level1 = Algorithm::Ring;
  double simUs = -1; ///< the pick's simulated time; -1 when not given
};

struct AlgoTable {
  std::string topology; ///< the preset or name it was made for
  std::vector<AlgoTableEntry> entries;

  /// The entry that decides (collective, ranks, bytes); nullptr when the
  /// table has none for that collective and group size.
  const AlgoTableEntry *lookup(Collective c, int64_t ranks, double bytes) const;
  /// (bytes, seconds) of the entries for (collective, ranks) in size
  /// order, when every one of them carries sim_us; empty otherwise.
  std::vector<std::pair<double, double>> simulatedTimes(Collective c,
                                                        int64_t ranks) const;
};

/// The time the table's points give `bytes`: linear between neighbouring
/// points, the first point's time below it (small collectives cost their
/// latency), the last segment's slope above the last. `points` in size
/// order, not empty.
double interpolateTime(const std::vector<std::pair<double, double>> &points,
                       double bytes);

/// Parses a table document; errors name the JSON path ("entries[3].level0:
/// unknown algorithm 'x' (expected ...)").
Result<AlgoTable> parseAlgoTable(std::string_view text);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_ALGOTABLE_H
