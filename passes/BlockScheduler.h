//===- BlockScheduler.h - One block of comm-overlap-schedule ----*- C++ -*-===//
//
// Rebuilds one block as a list schedule over a dependence graph whose nodes
// are its ops, with every collective split into a start node S and a wait
// node W:
//
//  - SSA edges: a value produced by a collective comes from its W; uses in
//    nested regions count for the op that holds them;
//  - the starts form a chain in their original order (the collective order
//    every rank must share); ops with known side effects form a chain of
//    their own; an op with unknown effects (a call) is a barrier ordered
//    against all of those and against the waits;
//  - the terminator stays last.
//
// Priorities, in order: issue the next start when its operands are ready
// and the in-flight limits allow; else run the ready compute op that comes
// first in the original order (within the memory cap); else wait, for the
// in-flight collective whose result is needed soonest (or the oldest one,
// when a limit or the memory cap holds a start back). When a limit or the
// memory cap holds a start back and the cost model says the oldest
// in-flight collective has already finished, its wait goes first: it is
// free, and it frees the limit or that collective's input. Ties break on the
// original position, so the output is a pure function of the input.
//
// Liveness for the memory cap: a value is live from its producer until its
// last consumer; a collective's inputs stay live until its wait (the
// transport reads them while in flight) and its results from its start.
// When no ready op fits under the cap, the op first in the original order
// runs anyway and the scheduler warns once per block.
//
// Complexity: O((V + E) log V) for V ops and E operand uses; the search
// for an op that fits under the cap looks at most kMemoryScan candidates.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_PASSES_BLOCKSCHEDULER_H
#define HCCL_MLIR_PASSES_BLOCKSCHEDULER_H

#include "CostModel.h"
#include "LinkSharing.h"

#include "llvm/ADT/DenseMap.h"

#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace mlir::comm {

/// comm-overlap-schedule's options, parsed; 0 means no limit.
struct OverlapLimits {
  int64_t maxInFlight = 0;     ///< collectives started and not yet waited
  double maxBytesInFlight = 0; ///< their payload bytes
  double memoryCap = 0;        ///< bytes of values live at once
  std::string memoryCapText;   ///< the option as written, for the warning
  ComputeCostOptions compute;
};

/// What rebuilding one block did, for the pass statistics.
struct BlockScheduleStats {
  int64_t async = 0; ///< collectives split into start/wait
  int64_t moved = 0; ///< compute ops whose rank among compute ops changed
};

/// Schedules one block; use once. The phases run in order and each reads
/// only what the ones before it built.
class BlockScheduler {
public:
  static constexpr StringLiteral kPass = "comm-overlap-schedule";
  /// Ready compute ops looked at for one that fits under the memory cap.
  static constexpr int kMemoryScan = 64;

  /// `model` prices the collectives; null without a topology, when the
  /// schedule follows the dependences and limits alone.
  BlockScheduler(Block &block, const OverlapLimits &limits,
                 CommCostModel *model);

  /// Rebuilds the block. Fails, after an error at the block's parent op
  /// and with the block untouched, only if the graph has a cycle (a bug).
  LogicalResult run(BlockScheduleStats &stats);

private:
  enum class Kind { Other, Start, Wait };
  struct Node {
    Operation *op; ///< the op; for Start/Wait of a sync collective: it
    Kind kind;
    int64_t index;     ///< original position
    int64_t coll = -1; ///< collective number for Start/Wait
    SmallVector<int64_t, 4> succ;
    int64_t preds = 0;
    SmallVector<int32_t, 4> uses;      ///< value slots it consumes (liveness)
    int32_t firstDef = 0, numDefs = 0; ///< value slots it makes live
    double defBytes = 0;               ///< their bytes
    int64_t firstUse = std::numeric_limits<int64_t>::max(); ///< Wait only
  };
  /// What the model says of one collective (all zero without a model).
  struct Price {
    double seconds = 0, latency = 0; ///< latency: the part not shared
    std::vector<int64_t> footprint;  ///< CommCostModel::footprint
  };
  struct Coll {
    Operation *op; ///< the collective (or the existing comm.start)
    bool existing; ///< already a start/wait pair
    int64_t start, wait;
    double bytes = 0;
    Price price;
    Attribute group;
    size_t job = 0; ///< in `links`, once started
  };
  /// Op -> node of its results, and the first liveness slot of those
  /// results (slot + result number), so that a use finds its slot with the
  /// producer lookup it needs anyway.
  struct Producer {
    int64_t node;
    int32_t firstSlot;
  };

  // The phases, in the order run() calls them.
  void priceCollectives();
  bool buildGraph();
  void countLiveness();
  LogicalResult listSchedule();
  void materialise(BlockScheduleStats &stats);

  // buildGraph's steps.
  int64_t addNode(Operation *op, Kind k, int64_t idx);
  int32_t defineResults(int64_t n, Operation *op);
  void addEdge(int64_t from, int64_t to);
  SmallVector<Value, 4> operandsOf(Operation &op);
  int64_t producerOf(Value v, int32_t *slot = nullptr);
  int64_t useBy(int64_t n, Value v);
  void addCollective(Operation &op, int64_t idx, ArrayRef<Value> operands);
  void addWait(WaitOp wait, int64_t idx, ArrayRef<Value> operands);
  void addOther(Operation &op, int64_t idx, ArrayRef<Value> operands);

  // listSchedule's steps.
  void makeReady(int64_t n);
  bool fits(const Node &n) const;
  bool limitsAllow(const Coll &c) const;
  int64_t oldestReadyWait() const;
  int64_t pickNext();
  void place(int64_t n);

  // materialise's steps.
  llvm::DenseMap<int64_t, Operation *> splitCollectives(int64_t &async);
  int64_t moveInOrder(const llvm::DenseMap<int64_t, Operation *> &opOfNode);

  Block &block;
  const OverlapLimits &limits;
  CommCostModel *model;
  Operation *terminator = nullptr;

  // priceCollectives: per collective op it could price.
  llvm::DenseMap<Operation *, Price> prices;

  // buildGraph: the graph and the values its nodes define.
  std::vector<Node> nodes;
  std::vector<Coll> colls;
  llvm::DenseMap<Operation *, Producer> producer;
  std::vector<Value> slotValue;  ///< slot -> the value it stands for
  std::vector<double> slotBytes; ///< slot -> its bytes
  llvm::DenseMap<Operation *, int64_t> existingStart; ///< start op -> coll
  SmallVector<std::pair<int64_t, Value>> forwardUses;
  int64_t lastStart = -1, lastMem = -1, lastBarrier = -1; ///< chain tails
  SmallVector<int64_t> sinceBarrier; ///< waits and others since the barrier

  // countLiveness: consumers of each slot not yet scheduled.
  std::vector<int64_t> remaining;

  // listSchedule: the order and the state it is chosen by.
  std::vector<int64_t> order;
  std::set<std::pair<int64_t, int64_t>> readyOther;          ///< (index, node)
  std::set<std::tuple<int64_t, int64_t, int64_t>> readyWait; ///< (use, idx, n)
  int64_t readyStart = -1;
  double live = 0, clockUs = 0;
  /// From a start to the earliest begin of its collective
  /// (Topology::collectiveWakeupUs; 0 without a model), and the idle time
  /// after which all of it is paid (collectiveWakeupIdleUs; LinkSharing.h).
  double wakeupUs = 0, wakeupIdleUs = 0;
  int64_t inFlight = 0;
  double bytesInFlight = 0;
  std::set<int64_t> flight; ///< collective numbers, oldest first
  /// The groups' streams and the links they share (LinkSharing.h).
  hccl::contention::LinkSharing links;
  bool capMissed = false;
};

} // namespace mlir::comm

#endif // HCCL_MLIR_PASSES_BLOCKSCHEDULER_H
