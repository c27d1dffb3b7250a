//===- Generate.h - Generators of collective step programs ------*- C++ -*-===//
//
// The one entry point that turns a request (collective, algorithm, p, n,
// ...) into a Program. Each algorithm lives in its own file under
// lib/schedule/algorithms and is written against a group view, so the
// hierarchical generator reuses the flat ones on the intra-server groups
// (ranks r/m*m + 0..m-1) and the inter-server groups (ranks with equal r%m).
//
// Requests an algorithm cannot serve (hierarchical with p not a multiple of
// m, pairwise all-reduce, ...) return an error naming the reason.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_GENERATE_H
#define HCCL_MLIR_SCHEDULE_GENERATE_H

#include "hccl-mlir/schedule/Program.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Types.h"

#include <cstdint>
#include <vector>

namespace hccl::sched {

struct GenerateRequest {
  Collective collective = Collective::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  int64_t ranks = 1; ///< p >= 1
  int64_t count = 0; ///< n >= 0, as HCCL counts it (see Program::n)
  DataType dtype = DataType::Fp32;
  ReduceOp reduceOp = ReduceOp::Sum;
  int64_t root = 0;   ///< broadcast / reduce
  int64_t slices = 1; ///< >= 1

  /// Hierarchical only: ranks per server m (p % m == 0) and the intra
  /// (level0) / inter (level1) algorithms.
  int64_t ranksPerServer = 0;
  Algorithm level0 = Algorithm::Ring;
  Algorithm level1 = Algorithm::Ring;

  /// Ring (chain) broadcast / reduce: number of pipeline chunks, 0 = auto
  /// (min(n, 2p), at least 1).
  int64_t chunks = 0;

  /// Block layouts (Program::inputOuter / outputOuter): a reduce-scatter,
  /// all-gather or all-to-all along a dimension that is not the leading one
  /// moves every block as `outer` rows (flat algorithms only).
  int64_t inputOuter = 1;
  int64_t outputOuter = 1;

  /// Permute: the target of every rank (p entries, -1 = sends nothing);
  /// targets are distinct.
  std::vector<int64_t> permuteTargets;

  /// All-to-allv: p*p send counts, row = sender (sendCounts[i*p+j] elements
  /// go from i to j). Displacements are optional (p*p each); when empty the
  /// blocks are packed in peer order. Receive counts are the transpose.
  std::vector<int64_t> sendCounts;
  std::vector<int64_t> sendDispls;
  std::vector<int64_t> recvDispls;
};

/// Largest accepted p and n (a request beyond them is "absurd").
inline constexpr int64_t kMaxRanks = 1 << 20;
inline constexpr int64_t kMaxCount = int64_t(1) << 40;

/// Generates the program, or an error naming why the request is invalid or
/// cannot be served by the algorithm.
Result<Program> generate(const GenerateRequest &req);

/// Checks a request without generating it.
Status checkRequest(const GenerateRequest &req);

/// Algorithms that can serve this collective (in canonical order).
std::vector<Algorithm> algorithmsFor(Collective c);
/// Algorithms usable as the level0 / level1 of a hierarchical collective.
std::vector<Algorithm> levelAlgorithmsFor(Collective c, int level);

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_GENERATE_H
