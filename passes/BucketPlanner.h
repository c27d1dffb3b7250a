//===- BucketPlanner.h - Bucket partitions of a gradient stream -*- C++ -*-===//
//
// The decision half of comm-bucket-sizing, free of MLIR so that it can be
// tested against brute force.
//
// Model (the gradient-ready timeline, after MG-WFBP, Shi et al. 2019): the
// collectives of one communicator group form a stream, issued in order on
// one communication stream. Item j is ready at R_j (non-decreasing: block
// order). A bucket is a run of consecutive items; it starts when its last
// member is ready and the previous bucket has finished, and takes c(bytes)
// seconds, where c is the minimum over the candidate algorithms of their
// closed-form costs: the algorithm is chosen jointly with the boundaries.
// The plan minimises the finish time F of the last bucket; the iteration
// time max(compute, F) + dependent compute is monotone in F.
//
// A bucket [i..j] is valid when its items share a key (group, reduction,
// element type, pinned algorithm), no item needs the result of an earlier
// member (fusion would create a cycle), and it respects the caps (member
// count; bytes, unless it is a single item). Items that cannot fuse (other
// collectives) are singletons with a fixed cost.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_PASSES_BUCKETPLANNER_H
#define HCCL_MLIR_PASSES_BUCKETPLANNER_H

#include <cstdint>
#include <functional>
#include <vector>

namespace hccl::bucket {

/// cost(B) = alpha + beta * B (seconds, seconds per byte).
struct AffinePiece {
  double alpha = 0;
  double beta = 0;
  int tag = 0; ///< which candidate algorithm this piece prices
};

/// The cost of one bucket as a function of its bytes: the minimum of
/// affine pieces, or, when `general` is set, that function (which must be
/// non-decreasing in bytes).
struct BucketPricer {
  std::vector<AffinePiece> pieces;
  std::function<double(double)> general;

  bool isAffine() const { return !general; }
  double operator()(double bytes) const;
  /// The piece attaining the minimum (affine pricers only).
  int bestPiece(double bytes) const;
};

struct Item {
  double ready = 0; ///< seconds
  double bytes = 0;
  int key = 0;             ///< index into Problem::pricers; -1 = cannot fuse
  double fixedSeconds = 0; ///< cost of a key -1 item
  int64_t dependsOn = -1;  ///< latest earlier item whose result it needs
};

struct Caps {
  double maxBucketBytes = 0; ///< 0 = no cap
  int64_t maxCount = 0;      ///< 0 = no cap
};

/// The limits comm-overlap-schedule will enforce (BlockScheduler.h), as
/// the planner models them. The compute stream issues each start; when a
/// limit holds one back (it would make more than `maxInFlight` collectives,
/// or more than `maxBytesInFlight` bytes, started and not yet waited), the
/// scheduler waits for the oldest in-flight buckets, in order, as soon as
/// they have ended, and it sees that only between compute ops: the start
/// goes at the first compute-op end (`boundaries`) at or after the last
/// such bucket ends, or when it ends, once the block's independent compute
/// is over. One bucket alone is always allowed. The limits are per stream
/// here; the scheduler counts every group's collectives together.
///
/// Every item's ready time must be a boundary (or 0), as it is when it is
/// the end of the op that made the gradient (buildReadyTimeline): then a
/// prefix's best finish never gets later by leaving out its last item,
/// which the one-in-flight programme needs to be exact.
struct Limits {
  int64_t maxInFlight = 0;        ///< 0 = no limit
  double maxBytesInFlight = 0;    ///< 0 = no limit
  std::vector<double> boundaries; ///< ascending compute-op ends, seconds

  bool any() const { return maxInFlight > 0 || maxBytesInFlight > 0; }
  /// The first boundary at or after t; t itself past the last one.
  double nextBoundary(double t) const;
};

struct Problem {
  std::vector<Item> items;
  std::vector<BucketPricer> pricers;
  Caps caps;
  Limits limits;
  /// Seconds from a bucket's issue to its earliest start (the runtime's
  /// threads wake, the ranks meet; Topology::collectiveWakeupUs): a bucket
  /// issued at I starts at max(I + wakeup, the previous bucket's finish).
  double wakeup = 0;
  /// Communication taking compute's cores (Topology::computeSteal), seconds
  /// per byte: a bucket delays every later item by steal x its bytes, so
  /// the items of a bucket that starts at item i are ready steal x S[i]
  /// late (S: the bytes of the items before i, whatever buckets hold
  /// them). Under the limits the compute-op ends a held-back start waits
  /// for move by the same amount. comm-estimate's timeline charges a
  /// bucket to the next compute op after its issue instead; the two agree
  /// when every item is made by its own op of non-zero cost.
  double steal = 0;
};

/// bucketOf[i] = bucket index of item i; buckets are runs numbered 0, 1, ...
struct Plan {
  std::vector<int64_t> bucketOf;
  double finishSeconds = 0;
  /// planOptimal: candidate starts priced plus window pushes and pops, the
  /// unit of its running time (a test holds it to O(n * A)).
  int64_t work = 0;
  /// The dynamic programme's own value of its plan, F[n] (no limit or one
  /// in flight; 0 otherwise): equal to finishSeconds when the programme's
  /// arithmetic is the evaluation's, which the tests hold it to.
  double programmeSeconds = 0;
  /// planOptimalWithSlack: the cost margin the plan is also optimal under
  /// (0: none held; the plan is planOptimal's).
  double margin = 0;
};

/// Whether items [i..j] may form one bucket.
bool isValidBucket(const Problem &prob, int64_t i, int64_t j);
/// Whether `bucketOf` is a partition into valid runs.
bool isValidPlan(const Problem &prob, const std::vector<int64_t> &bucketOf);
/// Finish time of the last bucket under the model, the limits and the
/// steal included. Buckets are issued in the order of their last members
/// (where fusion puts them); for a partition into runs that is the
/// partition's order. An item is delayed by the steal of every bucket
/// whose last member comes before it.
double evaluatePlan(const Problem &prob, const std::vector<int64_t> &bucketOf);

/// Every item alone.
Plan planSingletons(const Problem &prob);

/// HCCL / Horovod / MindSpore style: consecutive valid items while the
/// bucket's bytes stay <= the limit; the first bucket uses
/// `firstBucketBytes` when it is non-zero. An item above the limit is a
/// bucket of its own.
Plan planThreshold(const Problem &prob, double thresholdBytes,
                   double firstBucketBytes);

/// PyTorch DDP's Reducer (torch 1.13 `compute_bucket_assignment_by_size`,
/// as `rebuild_buckets` calls it: items in ready order): one open bucket
/// per key; an item joins its key's bucket, which is closed once its bytes
/// REACH the limit (the item that crosses it is a member). Each key's first
/// bucket has the limit `firstBucketBytes` (0 = `capBytes`), later ones
/// `capBytes`. Buckets of different keys may interleave, so a plan need not
/// be a partition into runs. What DDP has no notion of closes a bucket
/// early: a dependence on a member, the caps (`maxCount`; `maxBucketBytes`
/// before the bucket would exceed it) and a key -1 item, which closes every
/// open bucket (no bucket spans another collective on the stream).
Plan planDdp(const Problem &prob, double capBytes, double firstBucketBytes);

/// Exact minimum of the finish time over all valid partitions.
///
/// Dynamic programming over bucket boundaries: F[j+1] = min over valid
/// starts i of max(F[i], R_j + w) + c(S[j+1] - S[i]) (w the wake-up) (F is the
/// optimal finish of a prefix, S prefix bytes); optimal because a bucket's
/// finish is monotone in the previous finish. F is non-decreasing, so the valid
/// starts split into an idle prefix (F[i] <= R_j: value R_j + c(...), best
/// at its largest i since c is non-decreasing) and a busy suffix (value
/// F[i] + c(...)). With affine pieces the busy value is
/// alpha_a + beta_a S[j+1] + (F[i] - beta_a S[i]), a sliding-window minimum
/// whose left edge (caps, key runs, dependences, the idle prefix) only moves
/// right: one monotone deque per piece gives O(n * A) time and O(n + A)
/// extra space for n items and A candidate algorithms. A general pricer
/// falls back to scanning every valid start: O(n * W), W the largest valid
/// bucket. So does a steal: a start i then has ready time R_j + steal S[i]
/// + w, a function of i, so the idle starts are no longer a prefix; the
/// programme stays exact (a start's finish depends on F[i] and i alone).
///
/// Among partitions with the same finish (to rounding) it prefers fewer,
/// larger buckets, which cost nothing in the model and are robust to costs
/// it leaves out: the DP breaks ties between starts toward the prefix with
/// fewer buckets, and a last pass merges neighbouring buckets while no
/// finish after them gets later (an earlier bucket whose extra time is
/// absorbed by idle time before a later one). Not guaranteed the fewest
/// buckets among all optimal partitions (that needs a Pareto front per
/// prefix); BucketPlannerTest measures how close it comes.
///
/// Under the limits (`prob.limits`): with `maxInFlight` = 1 the next bucket
/// always waits for the previous one, a finish still depends on the
/// previous finish alone, and the same dynamic programme is exact with
/// each busy start's finish F[i] replaced by the boundary the start is
/// issued at plus w (non-decreasing in F[i], so the windows still apply),
/// and an idle start (F[i] <= R_j) beginning at R_j + w. With
/// more in flight, or a byte limit, a finish depends on earlier finishes
/// than the previous one and the programme is no longer exact: the plan is
/// the best, under the exact evaluation, of the programme's plans for no
/// limit and for one in flight (an upper bound of these limits), every
/// distinct `planThreshold` partition (a sweep over the threshold, at most
/// kMaxSweep of them) and DDP's default buckets, then improved by merging
/// neighbours while the finish does not get later. So it is never worse
/// than a threshold partition under the same limits; BucketPlannerTest
/// measures its gap to brute force.
Plan planOptimal(const Problem &prob);

/// planOptimal, with slack where slack is free. The model prices a bucket
/// exactly, so among the partitions that tie on the finish the DP may pick
/// one whose bucket fills an idle window to the microsecond (one 100 MB
/// bucket ending just as the last gradient is ready), and a bucket that
/// runs a little slower than priced (bandwidth drift, a calibration a few
/// percent off) is then exposed in full. This returns the plan that is
/// optimal with every cost times (1 + m) for the largest m of `margin`,
/// margin / 2 and margin / 4 whose plan still has planOptimal's finish
/// (to rounding) under the true costs, and planOptimal's plan when none
/// has. Its finish is always planOptimal's; its slack is at least m times
/// each bucket's cost wherever the inflated problem had idle time to give.
/// Three more runs of planOptimal at most.
Plan planOptimalWithSlack(const Problem &prob, double margin);

/// `prob` with every bucket's cost and every fixed cost times (1 + margin)
/// (the wake-up, a delay rather than work, unchanged).
Problem inflateCosts(const Problem &prob, double margin);

/// Distinct planThreshold partitions visited by planOptimal's sweep, at
/// most.
constexpr int64_t kMaxSweep = 4096;

} // namespace hccl::bucket

#endif // HCCL_MLIR_PASSES_BUCKETPLANNER_H
