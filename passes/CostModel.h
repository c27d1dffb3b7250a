//===- CostModel.h - Cost analysis shared by the comm passes ----*- C++ -*-===//
//
// One place that prices the ops of a training graph, so that bucket sizing,
// overlap scheduling, algorithm selection and the estimate all agree:
//
//  - compute ops: `comm.cost_us` when present; otherwise a roofline estimate
//    (linalg ops: max(FLOPs / peak, bytes / memory bandwidth); other ops with
//    tensor or memref operands: bytes read + written / memory bandwidth;
//    everything else, constants and comm ops: zero);
//  - collectives: lib/schedule's closed-form alpha-beta-gamma cost for the
//    module topology and the collective's group, with the algorithm recorded
//    on the op or, when none is, the one selectAlgorithm picks.
//
// Also builds the gradient-ready timeline of a block that bucket sizing
// optimises over (see BucketPlanner.h for the model).
//
// Errors are reported as diagnostics at the op that caused them.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_PASSES_COSTMODEL_H
#define HCCL_MLIR_PASSES_COSTMODEL_H

#include "BucketPlanner.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/AlgoTable.h"
#include "hccl-mlir/schedule/Select.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <tuple>

namespace mlir::comm {

/// Device figures for the compute estimate. The defaults are a 910B-class
/// NPU: about 320 TFLOPS dense FP16 and 1.6 TB/s of HBM.
struct ComputeCostOptions {
  double peakTflops = 320.0;
  double memoryGBps = 1600.0;
};

/// Checks the compute-option values a pass received; emits at `anchor`.
LogicalResult verifyComputeOptions(Operation *anchor, StringRef pass,
                                   const ComputeCostOptions &opts);

/// True for ops the timeline treats as communication (collectives, start,
/// wait, yield, groups): they never cost compute time.
bool isCommOp(Operation *op);

/// FLOPs of a linalg op with static loop bounds: iterations times the
/// arithmetic ops of its payload (2MNK for matmul); nullopt otherwise.
std::optional<double> linalgFlops(Operation *op);

/// Bytes of the statically shaped tensor/memref operands and results.
double bytesTouched(Operation *op);

/// Predicted device time of one compute op, microseconds.
double computeCostUs(Operation *op, const ComputeCostOptions &opts);

/// Byte count as HCCL counts it for a collective (all-reduce, broadcast,
/// reduce: the buffer; all-gather: the send buffer; reduce-scatter: the
/// receive buffer; all-to-all: the block per peer); nullopt for dynamic
/// shapes or ops that are not schedule collectives.
std::optional<double> hcclBytes(Operation *op);

/// How one communicator group lies on the topology: lib/schedule's rule,
/// the one the runtime places its communicators with.
using GroupPlacement = hccl::sched::GroupPlacement;

/// What a collective costs and with which algorithm.
struct CollectivePrice {
  hccl::sched::Collective collective = hccl::sched::Collective::AllReduce;
  double bytes = 0;
  int64_t p = 1;
  hccl::sched::Algorithm algorithm = hccl::sched::Algorithm::Ring;
  hccl::sched::Algorithm level0 = hccl::sched::Algorithm::Ring;
  hccl::sched::Algorithm level1 = hccl::sched::Algorithm::Ring;
  int64_t slices = 1;
  bool podSplit = false; ///< hierarchical, split at the super pod
  double seconds = 0;
  /// The part of `seconds` that does not grow with bytes (alpha terms and
  /// the per-collective overhead): what link sharing leaves alone.
  double latencySeconds = 0;
  bool fromAttr = false; ///< the op's `algo` attribute decided
};

/// Prices collectives on one module's topology. Caches group placements.
class CommCostModel {
public:
  CommCostModel() = default;
  CommCostModel(hccl::sched::Topology topo,
                std::optional<hccl::sched::HcclAlgoSpec> override = {});

  /// The model for the module enclosing `anchor`. Without a topology the
  /// model has no collective costs; when `required`, that is an error
  /// emitted at `anchor` naming `pass`.
  static FailureOr<CommCostModel> get(Operation *anchor, bool required,
                                      StringRef pass);

  bool hasTopology() const { return topo.has_value(); }
  const hccl::sched::Topology &topology() const { return *topo; }
  void setOverride(std::optional<hccl::sched::HcclAlgoSpec> o) {
    algoOverride = std::move(o);
  }
  const hccl::sched::HcclAlgoSpec *getOverride() const {
    return algoOverride ? &*algoOverride : nullptr;
  }
  /// An algorithm table (comm-select-algorithm / comm-bucket-sizing
  /// table=): its simulated times price all-reduce buckets of the group
  /// sizes it covers. Errs at `anchor` when it was made for another
  /// topology (`path` and `pass` name it).
  LogicalResult setTable(std::optional<hccl::sched::AlgoTable> t,
                         StringRef path, Operation *anchor, StringRef pass);
  const hccl::sched::AlgoTable *getTable() const {
    return algoTable ? &*algoTable : nullptr;
  }

  /// The links `op` moves data over, as LinkSharing's resources: per
  /// member of every subgroup, (server links if another member shares its
  /// server, NIC if the subgroup spans servers) x (out, in), except that
  /// broadcast's root only sends and reduce's only receives. Cached per
  /// group and root.
  FailureOr<std::vector<int64_t>> footprint(Operation *op);

  /// Placement of the group `op` runs on; emits at `op` if the symbol is
  /// missing or a rank lies outside the topology.
  FailureOr<GroupPlacement> placement(Operation *op);

  /// Prices `op` (a schedule collective). `bytes` overrides its payload.
  /// With `useAttr`, an `algo` attribute on the op is priced as is;
  /// otherwise (or without one) selectAlgorithm decides, honouring the
  /// override. Emits at `op` on failure.
  FailureOr<CollectivePrice> price(Operation *op, bool useAttr = true,
                                   std::optional<double> bytes = {});

  /// The bucket pricer of all-reduces on `op`'s group: min over the
  /// algorithms selection may pick (or just `pinned`) of their closed
  /// forms, with affine pieces when every closed form is affine in bytes.
  FailureOr<hccl::bucket::BucketPricer> allReducePricer(Operation *op,
                                                        AlgorithmAttr pinned);

  /// A priced option for a collective.
  struct Choice {
    hccl::sched::Algorithm algorithm, level0, level1;
    int64_t slices = 1;
    double seconds = 0;
    bool podSplit = false; ///< hierarchical, split at the super pod
  };
  /// Every option selection allows for this collective (honouring the
  /// override), priced for `pl` (lib/schedule's selectAlgorithm
  /// candidates); an error message when there is none.
  /// `pieces` > 1: every block moves in that many pieces (a collective
  /// along a dimension that is not leading; getBlockLayout).
  hccl::sched::Result<std::vector<Choice>>
  choices(hccl::sched::Collective c, double bytes, double elemBytes,
          const GroupPlacement &pl, int64_t pieces = 1) const;
  /// The closed-form time of `ch` (its seconds are ignored) for `pl`.
  hccl::sched::Result<double> closedForm(const Choice &ch,
                                         hccl::sched::Collective c,
                                         double bytes, double elemBytes,
                                         const GroupPlacement &pl,
                                         int64_t pieces = 1) const;

private:
  FailureOr<CollectivePrice> priceUncached(Operation *op,
                                           hccl::sched::Collective c,
                                           double bytes, double elemBytes,
                                           const GroupPlacement &pl,
                                           AlgorithmAttr attr, int64_t pieces);
  /// A group as the caches know it: its ranks attribute and subgroup
  /// size, which are all its price and placement depend on. Not the group
  /// op's address: comm-bucket-sizing prices clones of the module and
  /// erases them, and a later clone's other group could take a freed
  /// group's address, and with it that group's cached prices (the sizing
  /// then changed from run to run).
  using GroupKey = std::pair<const void *, int64_t>;
  static GroupKey groupKey(GroupOp g);
  /// (collective, group, bytes, element bytes, algo attribute priced or
  /// null, pieces per block) of a successful price.
  using PriceKey =
      std::tuple<int, GroupKey, double, double, const void *, int64_t>;
  std::map<PriceKey, CollectivePrice> priceCache;

  std::optional<hccl::sched::Topology> topo;
  std::optional<hccl::sched::HcclAlgoSpec> algoOverride;
  std::optional<hccl::sched::AlgoTable> algoTable;
  llvm::DenseMap<GroupKey, GroupPlacement> placements;
  /// (group, broadcast root or -1, reduce root or -1) -> footprint.
  using FootprintKey = std::tuple<GroupKey, int64_t, int64_t>;
  std::map<FootprintKey, std::vector<int64_t>> footprints;
};

/// Reads an algorithm table file (none when `path` is empty); errors at
/// `anchor` name `pass`, the option and the problem.
FailureOr<std::optional<hccl::sched::AlgoTable>>
loadAlgoTable(StringRef path, Operation *anchor, StringRef pass);

/// The gradient-ready timeline of one block: every top-level collective in
/// issue order with the time the block's compute, run back to back in block
/// order, has produced its operands. Compute that (transitively) consumes a
/// collective's result is `dependentUs`: the model charges it after the
/// communication (the overlap pass sinks it there); the rest is
/// `independentUs` and sets the ready times.
struct ReadyTimeline {
  struct Item {
    Operation *op;
    double readySeconds;
    /// Index (into `items`) of the latest collective on the same group
    /// this item cannot share a bucket with, -1 if none: its operands
    /// depend on that collective's result (directly or through other ops
    /// and collectives), or an op with side effects between the two does
    /// (fusion would have to move that op past the item).
    int64_t dependsOn;
  };
  std::vector<Item> items;
  /// Ends of the compute ops that depend on no communication, ascending,
  /// in seconds: where the overlap pass can next issue a held-back start.
  std::vector<double> boundaries;
  double independentUs = 0;
  double dependentUs = 0;
};

ReadyTimeline buildReadyTimeline(Block &block, const ComputeCostOptions &opts);

/// One communicator group's collectives in a block, as the bucket planner
/// sees them: items[i] is ops[i]. All-reduces get the key of what fusion
/// must agree on (reduction, element type, pinned algorithm); any other
/// collective is a key -1 item with its own fixed cost. The problem's
/// limits carry the block's compute boundaries; their counts are the
/// caller's.
struct BucketStream {
  SmallVector<Operation *> ops;
  hccl::bucket::Problem problem;
};

/// The streams of `block` (groups in order of first appearance) that hold
/// at least one all-reduce. With `getModel` the items are priced (the
/// callback supplies the model on first need, so a module without
/// collectives needs no topology); without it costs are left at zero.
/// Emits at the op and fails on dynamic shapes or pricing errors.
FailureOr<SmallVector<BucketStream>> buildBucketStreams(
    Block &block, const ComputeCostOptions &opts, hccl::bucket::Caps caps,
    llvm::function_ref<FailureOr<CommCostModel *>(Operation *)> getModel);

} // namespace mlir::comm

#endif // HCCL_MLIR_PASSES_COSTMODEL_H
