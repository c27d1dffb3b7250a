//===- OverlapSchedule.cpp - comm-overlap-schedule ------------------------===//
//
// Each block with collectives is rebuilt as a list schedule over a
// dependence graph whose nodes are its ops, with every collective split
// into a start node S and a wait node W:
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
// when a limit holds a start back). When a limit holds a start back and
// the cost model says the oldest in-flight collective has already
// finished, its wait goes first: it is free. Ties break on the original
// position, so the output is a pure function of the input.
//
// Liveness for the memory cap: a value is live from its producer until its
// last consumer; a collective's inputs stay live until its wait (the
// transport reads them while in flight) and its results from its start.
// When no ready op fits under the cap, the op first in the original order
// runs anyway and the pass warns once per block.
//
// Complexity: O((V + E) log V) for V ops and E operand uses; the search
// for an op that fits under the cap looks at most kMemoryScan candidates.
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"

#include "hccl-mlir/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include <limits>
#include <set>

namespace mlir::comm {
#define GEN_PASS_DEF_OVERLAPSCHEDULE
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

namespace {

struct OverlapSchedulePass
    : public comm::impl::OverlapScheduleBase<OverlapSchedulePass> {
  using Base::Base;

  static constexpr StringLiteral kPass = "comm-overlap-schedule";
  static constexpr int kMemoryScan = 64;

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
  struct Coll {
    Operation *op; ///< the collective (or the existing comm.start)
    bool existing; ///< already a start/wait pair
    int64_t start, wait;
    double bytes = 0;
    double seconds = 0;
    Attribute group;
    double endUs = 0;
  };

  double maxBytes = 0, memCap = 0;
  ComputeCostOptions computeOpts;
  std::optional<CommCostModel> model;

  LogicalResult parseBytes(StringRef name, StringRef text, double &out) {
    std::optional<uint64_t> v = sched::parseByteSize(text.str());
    if (!v)
      return emitError(getOperation()->getLoc())
             << kPass << ": option " << name << "='" << text
             << "' is not a valid size: expected a non-negative byte count "
                "with an optional K, M or G suffix";
    out = static_cast<double>(*v);
    return success();
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    if (maxInFlight < 0) {
      emitError(root->getLoc())
          << kPass
          << ": option max-in-flight=" << static_cast<int64_t>(maxInFlight)
          << " is not valid: expected 0 (no limit) or a "
             "positive count";
      return signalPassFailure();
    }
    if (failed(parseBytes("max-bytes-in-flight", maxBytesInFlight, maxBytes)) ||
        failed(parseBytes("memory-cap", memoryCap, memCap)))
      return signalPassFailure();
    computeOpts = {peakTflops, memoryGbps};
    if (failed(verifyComputeOptions(root, kPass, computeOpts)) ||
        failed(verifyRegionDepth(root, kMaxRegionDepth, kPass)) ||
        failed(verifySizesFitIn(root, kPass)))
      return signalPassFailure();
    model.reset();
    if (getTopology(root)) {
      FailureOr<CommCostModel> m = CommCostModel::get(root, false, kPass);
      if (succeeded(m))
        model = std::move(*m);
    }

    SmallVector<Block *> blocks;
    root->walk([&](Block *b) {
      if (isa_and_nonnull<StartOp>(b->getParentOp()))
        return;
      if (llvm::any_of(*b, [](Operation &op) {
            return isa<CollectiveOpInterface, StartOp>(op);
          }))
        blocks.push_back(b);
    });
    for (Block *b : blocks)
      scheduleBlock(*b);
  }

  /// Times of the block's collectives on the cost model; 0 for one that
  /// cannot be priced (no topology, dynamic shapes): the schedule is then
  /// driven by the dependences and limits alone.
  llvm::DenseMap<Operation *, double> priceBlock(Block &block) {
    llvm::DenseMap<Operation *, double> out;
    if (!model)
      return out;
    ScopedDiagnosticHandler quiet(&getContext(),
                                  [](Diagnostic &) { return success(); });
    for (Operation &op : block) {
      Operation *coll = &op;
      if (auto start = dyn_cast<StartOp>(op))
        coll = start.getCollective();
      if (!coll || !getScheduleCollective(coll))
        continue;
      FailureOr<CollectivePrice> p = model->price(coll);
      out[coll] = succeeded(p) ? p->seconds : 0;
    }
    return out;
  }

  static double valueBytes(Value v) {
    auto st = dyn_cast<ShapedType>(v.getType());
    if (!st || !st.getElementType().isIntOrFloat())
      return 0;
    return static_cast<double>(getStaticByteSize(st).value_or(0));
  }

  void scheduleBlock(Block &block) {
    // Sized up front: a Node holds SmallVectors, which std::vector copies
    // (their moves are not noexcept) every time it grows.
    size_t numOps = block.getOperations().size();
    std::vector<Node> nodes;
    nodes.reserve(2 * numOps);
    std::vector<Coll> colls;
    // Op -> node of its results, and the first liveness slot of those
    // results (slot + result number), so that a use finds its slot with
    // the producer lookup it needs anyway.
    struct Producer {
      int64_t node;
      int32_t firstSlot;
    };
    llvm::DenseMap<Operation *, Producer> producer;
    producer.reserve(numOps);
    std::vector<Value> slotValue;  // slot -> the value it stands for
    std::vector<double> slotBytes; // slot -> its bytes
    slotValue.reserve(numOps);
    slotBytes.reserve(numOps);
    llvm::DenseMap<Operation *, int64_t> existingStart; // start op -> coll
    SmallVector<std::pair<int64_t, Value>> forwardUses;
    Operation *terminator = nullptr;
    if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
      terminator = &block.back();

    llvm::DenseMap<Operation *, double> seconds = priceBlock(block);
    auto addNode = [&](Operation *op, Kind k, int64_t idx) {
      nodes.push_back({op, k, idx});
      return static_cast<int64_t>(nodes.size() - 1);
    };
    // Gives node n the results of op as the values it makes live.
    auto defineResults = [&](int64_t n, Operation *op) {
      Node &nd = nodes[n];
      nd.firstDef = static_cast<int32_t>(slotValue.size());
      nd.numDefs = static_cast<int32_t>(op->getNumResults());
      for (Value v : op->getResults()) {
        slotValue.push_back(v);
        slotBytes.push_back(valueBytes(v));
        nd.defBytes += slotBytes.back();
      }
      return nd.firstDef;
    };
    // The liveness slot of v, a result of the op `p` describes.
    auto slotOf = [](const Producer &p, Value v) {
      return p.firstSlot +
             static_cast<int32_t>(cast<OpResult>(v).getResultNumber());
    };
    auto addEdge = [&](int64_t from, int64_t to) {
      if (from < 0 || from == to)
        return;
      nodes[from].succ.push_back(to);
      ++nodes[to].preds;
    };

    int64_t lastStart = -1, lastMem = -1, lastBarrier = -1;
    SmallVector<int64_t> sinceBarrier; // waits and others since the barrier
    int64_t pos = 0;
    for (Operation &op : block) {
      if (&op == terminator)
        break;
      int64_t idx = pos++;
      // Operands (with nested uses), as producer nodes.
      SmallVector<Value, 4> operands(op.getOperands());
      if (op.getNumRegions())
        op.walk([&](Operation *inner) {
          if (inner == &op)
            return;
          for (Value v : inner->getOperands())
            if (Operation *d = v.getDefiningOp())
              if (block.findAncestorOpInBlock(*d) != &op)
                operands.push_back(v);
        });
      // The producer node of v (-1: none in this block); `slot` gets v's
      // liveness slot when a top-level op of the block defines it.
      auto producerOf = [&](Value v, int32_t *slot = nullptr) -> int64_t {
        Operation *d = v.getDefiningOp();
        if (!d)
          return -1;
        Operation *anc = block.findAncestorOpInBlock(*d);
        auto it = anc ? producer.find(anc) : producer.end();
        if (it == producer.end())
          return -1;
        if (slot && anc == d)
          *slot = slotOf(it->second, v);
        return it->second.node;
      };
      // Records v as used by node n (for liveness) and returns its producer.
      // A use before its definition (graph regions) gets its slot once the
      // whole block is numbered.
      auto useBy = [&](int64_t n, Value v) {
        int32_t slot = -1;
        int64_t from = producerOf(v, &slot);
        if (slot >= 0)
          nodes[n].uses.push_back(slot);
        else if (from < 0 && v.getDefiningOp() &&
                 v.getDefiningOp()->getBlock() == &block)
          forwardUses.push_back({n, v});
        return from;
      };

      auto startOp = dyn_cast<StartOp>(op);
      auto waitOp = dyn_cast<WaitOp>(op);
      bool isColl = isa<CollectiveOpInterface>(op);
      if (isColl || startOp) {
        Coll c;
        c.op = &op;
        c.existing = static_cast<bool>(startOp);
        Operation *inner = startOp ? startOp.getCollective() : &op;
        c.group =
            inner ? Attribute(cast<CollectiveOpInterface>(inner).getGroupAttr())
                  : Attribute();
        if (inner)
          if (auto pb = getPayloadBytes(cast<CollectiveOpInterface>(inner)))
            c.bytes = static_cast<double>(*pb);
        c.seconds = inner ? seconds.lookup(inner) : 0;
        int64_t cn = static_cast<int64_t>(colls.size());
        c.start = addNode(&op, Kind::Start, idx);
        nodes[c.start].coll = cn;
        if (!startOp) {
          c.wait = addNode(&op, Kind::Wait, idx);
          nodes[c.wait].coll = cn;
          addEdge(c.start, c.wait);
          producer[&op] = {c.wait, defineResults(c.start, &op)};
          for (Value v : operands)
            addEdge(useBy(c.wait, v), c.start);
          sinceBarrier.push_back(c.wait);
        } else {
          c.wait = -1; // set when its comm.wait is seen
          existingStart[&op] = cn;
          for (Value v : operands)
            addEdge(useBy(c.start, v), c.start);
        }
        addEdge(lastStart, c.start);
        addEdge(lastBarrier, c.start);
        lastStart = c.start;
        colls.push_back(c);
        continue;
      }
      if (waitOp) {
        int64_t n = addNode(&op, Kind::Wait, idx);
        Operation *s = waitOp.getToken().getDefiningOp();
        auto it = s ? existingStart.find(s) : existingStart.end();
        if (it != existingStart.end()) {
          Coll &c = colls[it->second];
          c.wait = n;
          nodes[n].coll = it->second;
          // The token gives no producer edge (a comm.start has no node
          // entry in `producer`): without this a wait could be scheduled
          // before its own start.
          addEdge(c.start, n);
        }
        for (Value v : operands)
          addEdge(producerOf(v), n);
        addEdge(lastBarrier, n);
        producer[&op] = {n, defineResults(n, &op)};
        sinceBarrier.push_back(n);
        continue;
      }

      int64_t n = addNode(&op, Kind::Other, idx);
      for (Value v : operands)
        addEdge(useBy(n, v), n);
      producer[&op] = {n, defineResults(n, &op)};
      if (isMemoryEffectFree(&op)) {
        addEdge(lastBarrier, n);
        sinceBarrier.push_back(n);
        continue;
      }
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      bool knownNonComm = false;
      if (iface) {
        SmallVector<MemoryEffects::EffectInstance> effects;
        iface.getEffects(effects);
        knownNonComm = llvm::none_of(effects, [](auto &e) {
          return e.getResource() == CommResource::get();
        });
      }
      if (knownNonComm) {
        addEdge(lastMem, n);
        addEdge(lastBarrier, n);
        lastMem = n;
        sinceBarrier.push_back(n);
      } else {
        // Unknown effects: order against every effectful node and wait.
        addEdge(lastStart, n);
        addEdge(lastMem, n);
        addEdge(lastBarrier, n);
        for (int64_t w : sinceBarrier)
          if (nodes[w].kind == Kind::Wait)
            addEdge(w, n);
        sinceBarrier.clear();
        lastBarrier = lastStart = lastMem = n;
      }
    }
    if (colls.empty())
      return;

    for (auto &[n, v] : forwardUses) {
      auto it = producer.find(v.getDefiningOp());
      if (it != producer.end())
        nodes[n].uses.push_back(slotOf(it->second, v));
    }
    // Liveness of the values the block's ops define: remaining consumers
    // of each slot (a node that uses a value twice consumes it once).
    std::vector<int64_t> remaining(slotValue.size(), 0);
    for (Node &n : nodes) {
      llvm::sort(n.uses);
      n.uses.erase(std::unique(n.uses.begin(), n.uses.end()), n.uses.end());
      for (int32_t v : n.uses)
        ++remaining[v];
    }
    for (Node &n : nodes)
      if (n.kind == Kind::Wait)
        for (int64_t s : n.succ)
          n.firstUse = std::min(n.firstUse, nodes[s].index);
    // Values the terminator (or ops outside the block) uses stay live.
    for (size_t i = 0; i < slotValue.size(); ++i)
      for (OpOperand &u : slotValue[i].getUses()) {
        Operation *anc = block.findAncestorOpInBlock(*u.getOwner());
        if (!anc || anc == terminator)
          ++remaining[i];
      }

    // List scheduling.
    std::vector<int64_t> order;
    order.reserve(nodes.size());
    std::set<std::pair<int64_t, int64_t>> readyOther;          // (index, node)
    std::set<std::tuple<int64_t, int64_t, int64_t>> readyWait; // (use, idx, n)
    int64_t readyStart = -1;
    auto makeReady = [&](int64_t n) {
      Node &nd = nodes[n];
      if (nd.kind == Kind::Start)
        readyStart = n;
      else if (nd.kind == Kind::Wait)
        readyWait.insert({nd.firstUse, nd.index, n});
      else
        readyOther.insert({nd.index, n});
    };
    for (size_t n = 0; n < nodes.size(); ++n)
      if (nodes[n].preds == 0)
        makeReady(static_cast<int64_t>(n));

    double live = 0, clockUs = 0;
    int64_t inFlight = 0;
    double bytesInFlight = 0;
    std::set<int64_t> flight; // collective numbers, oldest first
    llvm::DenseMap<Attribute, double> streamFree;
    bool capMissed = false;

    auto fits = [&](const Node &n) {
      return memCap <= 0 || live + n.defBytes <= memCap;
    };
    auto schedule = [&](int64_t n) {
      Node &nd = nodes[n];
      if (nd.kind == Kind::Start)
        readyStart = -1;
      else if (nd.kind == Kind::Wait)
        readyWait.erase({nd.firstUse, nd.index, n});
      else
        readyOther.erase({nd.index, n});
      order.push_back(n);
      live += nd.defBytes;
      for (int32_t v : nd.uses)
        if (--remaining[v] == 0)
          live -= slotBytes[v];
      for (int32_t v = nd.firstDef, e = v + nd.numDefs; v < e; ++v)
        if (remaining[v] == 0)
          live -= slotBytes[v];
      if (nd.kind == Kind::Start) {
        Coll &c = colls[nd.coll];
        double &free = streamFree[c.group];
        double begin = std::max(clockUs, free);
        c.endUs = begin + c.seconds * 1e6;
        free = c.endUs;
        flight.insert(nd.coll);
        ++inFlight;
        bytesInFlight += c.bytes;
      } else if (nd.kind == Kind::Wait) {
        if (nd.coll >= 0) {
          Coll &c = colls[nd.coll];
          clockUs = std::max(clockUs, c.endUs);
          if (flight.erase(nd.coll)) {
            --inFlight;
            bytesInFlight -= c.bytes;
          }
        }
      } else {
        clockUs += computeCostUs(nd.op, computeOpts);
      }
      for (int64_t s : nd.succ)
        if (--nodes[s].preds == 0)
          makeReady(s);
    };
    auto limitsAllow = [&](const Coll &c) {
      if (inFlight == 0)
        return true;
      if (maxInFlight > 0 && inFlight >= maxInFlight)
        return false;
      return !(maxBytes > 0 && bytesInFlight + c.bytes > maxBytes);
    };
    // The wait of the oldest in-flight collective, if it is ready.
    auto oldestWait = [&]() -> int64_t {
      for (int64_t cn : flight) {
        int64_t w = colls[cn].wait;
        if (w >= 0 && nodes[w].preds == 0)
          return w;
      }
      return -1;
    };

    while (order.size() < nodes.size()) {
      bool startHeld = false;
      if (readyStart >= 0) {
        const Coll &c = colls[nodes[readyStart].coll];
        if (limitsAllow(c)) {
          if (fits(nodes[readyStart])) {
            schedule(readyStart);
            continue;
          }
        } else {
          startHeld = true;
          int64_t w = oldestWait();
          if (w >= 0 && colls[nodes[w].coll].endUs <= clockUs) {
            schedule(w);
            continue;
          }
        }
      }
      // The first ready op in the original order that fits under the cap.
      int64_t pick = -1, scanned = 0;
      for (auto &[idx, n] : readyOther) {
        if (fits(nodes[n])) {
          pick = n;
          break;
        }
        if (++scanned >= kMemoryScan)
          break;
      }
      if (pick >= 0) {
        schedule(pick);
        continue;
      }
      if (!readyWait.empty()) {
        int64_t w = startHeld ? oldestWait() : -1;
        schedule(w >= 0 ? w : std::get<2>(*readyWait.begin()));
        continue;
      }
      // Nothing fits under the memory cap: the original order decides.
      int64_t fallback = -1;
      if (!readyOther.empty())
        fallback = readyOther.begin()->second;
      if (readyStart >= 0 && !startHeld &&
          (fallback < 0 || nodes[readyStart].index < nodes[fallback].index))
        fallback = readyStart;
      if (fallback < 0)
        break; // unreachable for a DAG; keep what we have
      capMissed = true;
      schedule(fallback);
    }
    if (order.size() != nodes.size()) {
      block.getParentOp()->emitError()
          << kPass << ": internal error: dependence cycle in a block";
      return signalPassFailure();
    }
    if (capMissed)
      emitWarning(block.getParentOp()->getLoc())
          << kPass << ": memory-cap=" << memoryCap
          << " cannot be met in this block: the original order was kept "
             "where no op fitted";

    // Materialise: sync collectives become start/wait pairs.
    MLIRContext *ctx = &getContext();
    llvm::DenseMap<int64_t, Operation *> opOfNode;
    for (Coll &c : colls) {
      if (c.existing) {
        opOfNode[c.start] = c.op;
        continue;
      }
      Operation *coll = c.op;
      OpBuilder b(ctx);
      b.setInsertionPoint(coll);
      auto start = b.create<StartOp>(coll->getLoc());
      Block *body = b.createBlock(&start.getBody());
      coll->moveBefore(body, body->end());
      b.setInsertionPointToEnd(body);
      auto yield = b.create<YieldOp>(coll->getLoc(), coll->getResults());
      b.setInsertionPointAfter(start);
      auto wait = b.create<WaitOp>(coll->getLoc(), coll->getResultTypes(),
                                   start.getToken());
      for (auto [from, to] : llvm::zip(coll->getResults(), wait.getResults()))
        from.replaceUsesWithIf(to, [&](OpOperand &u) {
          return u.getOwner() != yield.getOperation();
        });
      opOfNode[c.start] = start;
      opOfNode[c.wait] = wait;
      ++numAsync;
    }
    // Compute ops that changed rank among the compute ops were reordered.
    int64_t otherRank = 0;
    llvm::DenseMap<int64_t, int64_t> rankOf;
    for (size_t n = 0; n < nodes.size(); ++n)
      if (nodes[n].kind == Kind::Other)
        rankOf[n] = otherRank++;
    otherRank = 0;
    for (int64_t n : order) {
      Operation *op = opOfNode.lookup(n);
      if (!op)
        op = nodes[n].op;
      if (terminator)
        op->moveBefore(terminator);
      else
        op->moveBefore(&block, block.end());
      if (nodes[n].kind == Kind::Other && rankOf[n] != otherRank++)
        ++numMoved;
    }
  }
};

} // namespace
