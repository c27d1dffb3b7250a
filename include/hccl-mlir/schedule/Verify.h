//===- Verify.h - Symbolic verifier of step programs ------------*- C++ -*-===//
//
// Proves a program correct for every rank by symbolic execution: each
// (rank, buffer) holds an interval map whose segments say "element e holds
// source element e+delta" plus a contribution fingerprint (count, sum of
// per-rank 64-bit weights mod 2^64, commutative non-associative tree hash).
// Checks (docs/step-programs.md): pairing, hazards, bounds, input never
// written, final contents, deterministic reduction order, in both the
// out-of-place and the in-place aliasing mode.
//
// Up to `exhaustiveLimit` ranks everything is checked on every rank. Above
// it, pairing is checked on every rank, the rank-local checks (bounds,
// hazards, input never written) on a sample (0, 1, p-1 and a few seeded
// random ranks), and the symmetry of the program: which ranks follow rank
// 0's communication pattern step by step, up to rotation or xor of ranks.
// Final contents are not simulated. The report says which.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_VERIFY_H
#define HCCL_MLIR_SCHEDULE_VERIFY_H

#include "hccl-mlir/schedule/Program.h"
#include "hccl-mlir/schedule/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hccl::sched {

struct VerifyOptions {
  bool outOfPlace = true; ///< check with distinct input / output buffers
  bool inPlace = true;    ///< check with output aliased onto input (where
                          ///< the collective defines in-place)
  /// Execute slices literally (each op split into program.slices pieces).
  bool applySlices = true;
  int64_t exhaustiveLimit = 1024;
  int sampleRandom = 3;
  /// Work budget: op instances evaluated over the whole run (all ranks,
  /// steps, slices). Beyond it verify() stops with an error instead of
  /// running for hours (a p = 10^6 ring has 10^12).
  int64_t maxOpInstances = 500'000'000;
  uint64_t seed = 0x5eed;
};

struct VerifyReport {
  bool sampled = false;             ///< true above exhaustiveLimit
  std::vector<int64_t> sampleRanks; ///< ranks given the rank-local checks
  /// Sampled mode: ranks whose step-by-step communication pattern (op
  /// kinds, counts, buffers, peers relative to the rank by rotation or
  /// xor) is rank 0's. All p for the symmetric algorithms (ring, RHD at a
  /// power of two, mesh, pairwise); fewer for rooted collectives and folds.
  int64_t symmetricRanks = 0;
  int64_t steps = 0;
  int64_t opInstances = 0;        ///< op instances checked (all modes)
  std::vector<std::string> modes; ///< "out-of-place", "in-place"
  /// One line: what was proven.
  std::string summary;
};

/// Verifies the program; the error names the rank, phase/step, op and
/// element range, and what was expected versus found.
Result<VerifyReport> verify(const Program &prog,
                            const VerifyOptions &opts = {});

/// True when the collective defines an in-place call (rule 5).
bool hasInPlaceMode(Collective c);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_VERIFY_H
