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
// A proof needs the contents simulated on every rank, which costs time and
// memory in proportion to the op instances of all ranks (O(p^2) for ring and
// mesh). It runs when that fits a budget (maxSimulatedOps, maxSimulationBytes)
// at any p; beyond it the contents are not simulated and the report is not
// a proof (VerifyReport::proven false): pairing, bounds, hazards and "input
// never written" are still checked on every rank, and the summary says what
// was left out and why. Callers must not present such a report as "OK".
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_VERIFY_H
#define HCCL_MLIR_SCHEDULE_VERIFY_H

#include "hccl-mlir/schedule/Plan.h"
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
  /// Largest group size whose contents are simulated (a way to make
  /// verification cheap and unproven on purpose); no limit by default.
  int64_t exhaustiveLimit = INT64_MAX;
  /// Op instances (all ranks, steps, slices, times the aliasing modes) the
  /// contents simulation may take: about 1.2 us each on one core, so the
  /// default bounds a proof to some 20 s (ring all-reduce up to p = 2048).
  int64_t maxSimulatedOps = int64_t(1) << 24;
  /// Memory the simulation's symbolic buffers may take; beyond it the
  /// simulation is dropped and the report is not a proof.
  int64_t maxSimulationBytes = int64_t(2) << 30;
  /// Work budget: op instances evaluated over the whole run (all ranks,
  /// steps, slices). Beyond it verify() stops with an error instead of
  /// running for hours (a p = 10^6 ring has 10^12).
  int64_t maxOpInstances = 500'000'000;
  uint64_t seed = 0x5eed;
};

struct VerifyReport {
  /// Every check ran on every rank, the contents included: the program is
  /// correct. False: the contents were not simulated (the summary says
  /// why); everything else was still checked on every rank.
  bool proven = false;
  /// Without the simulation: ranks whose step-by-step communication
  /// pattern (op kinds, counts, buffers, peers relative to the rank by
  /// rotation or xor) is rank 0's. Informative only: it proves nothing.
  int64_t symmetricRanks = 0;
  int64_t steps = 0;
  int64_t opInstances = 0;        ///< op instances checked (all modes)
  std::vector<std::string> modes; ///< "out-of-place", "in-place"
  /// One line: what was proven, or what was checked and what was not.
  std::string summary;
};

/// Verifies the program; the error names the rank, phase/step, op and
/// element range, and what was expected versus found.
Result<VerifyReport> verify(const Program &prog,
                            const VerifyOptions &opts = {});

/// Proves one program: ok, or "is incorrect: <what and where>" or "is not
/// proven: <why>". A program estimated beyond opts.maxSimulatedOps is
/// refused so at once (it could not be proven). What loading a plan into
/// the runtime and exporting one from the compiler require.
Status prove(const Program &prog, const VerifyOptions &opts = {});
/// prove() for every program of a plan, each once, in order; the first
/// failure is "program 'ID' is ...".
Status verifyPlan(const Plan &plan, const VerifyOptions &opts = {});

/// True when the collective defines an in-place call (rule 5).
bool hasInPlaceMode(Collective c);
/// ... and the program has it: block layouts (Program::inputOuter /
/// outputOuter > 1) have no in-place form.
bool hasInPlaceMode(const Program &prog);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_VERIFY_H
