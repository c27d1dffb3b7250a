//===- BlockScheduler.cpp - One block of comm-overlap-schedule ------------===//
//
// See BlockScheduler.h for the graph, the priorities and the complexity.
//
//===----------------------------------------------------------------------===//
#include "BlockScheduler.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::comm;

static double valueBytes(Value v) {
  auto st = dyn_cast<ShapedType>(v.getType());
  if (!st || !st.getElementType().isIntOrFloat())
    return 0;
  return static_cast<double>(getStaticByteSize(st).value_or(0));
}

BlockScheduler::BlockScheduler(Block &block, const OverlapLimits &limits,
                               CommCostModel *model)
    : block(block), limits(limits), model(model),
      wakeupUs(model ? model->topology().collectiveWakeupUs : 0),
      wakeupIdleUs(model ? model->topology().collectiveWakeupIdleUs : 0) {}

LogicalResult BlockScheduler::run(BlockScheduleStats &stats) {
  // Sized up front: a Node holds SmallVectors, which std::vector copies
  // (their moves are not noexcept) every time it grows.
  size_t numOps = block.getOperations().size();
  nodes.reserve(2 * numOps);
  producer.reserve(numOps);
  slotValue.reserve(numOps);
  slotBytes.reserve(numOps);
  if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
    terminator = &block.back();

  priceCollectives();
  if (!buildGraph())
    return success();
  countLiveness();
  if (failed(listSchedule()))
    return failure();
  materialise(stats);
  return success();
}

//===----------------------------------------------------------------------===//
// priceCollectives
//===----------------------------------------------------------------------===//

/// Times of the block's collectives on the cost model, before the graph,
/// because a start's predicted end decides whether waiting for it is free.
/// A collective that cannot be priced (no topology, dynamic shapes) costs
/// 0, quietly: the schedule is then driven by the dependences and limits
/// alone, and pricing errors are other passes' to report.
void BlockScheduler::priceCollectives() {
  if (!model)
    return;
  ScopedDiagnosticHandler quiet(block.getParentOp()->getContext(),
                                [](Diagnostic &) { return success(); });
  for (Operation &op : block) {
    Operation *coll = &op;
    if (auto start = dyn_cast<StartOp>(op))
      coll = start.getCollective();
    if (!coll || !getScheduleCollective(coll))
      continue;
    FailureOr<CollectivePrice> p = model->price(coll);
    FailureOr<std::vector<int64_t>> fp = model->footprint(coll);
    if (succeeded(p))
      prices[coll] = {p->seconds, p->latencySeconds,
                      succeeded(fp) ? std::move(*fp) : std::vector<int64_t>()};
  }
}

//===----------------------------------------------------------------------===//
// buildGraph
//===----------------------------------------------------------------------===//

int64_t BlockScheduler::addNode(Operation *op, Kind k, int64_t idx) {
  nodes.push_back({op, k, idx});
  return static_cast<int64_t>(nodes.size() - 1);
}

/// Gives node n the results of op as the values it makes live.
int32_t BlockScheduler::defineResults(int64_t n, Operation *op) {
  Node &nd = nodes[n];
  nd.firstDef = static_cast<int32_t>(slotValue.size());
  nd.numDefs = static_cast<int32_t>(op->getNumResults());
  for (Value v : op->getResults()) {
    slotValue.push_back(v);
    slotBytes.push_back(valueBytes(v));
    nd.defBytes += slotBytes.back();
  }
  return nd.firstDef;
}

/// The liveness slot of v, a result of the op whose slots begin at
/// firstSlot.
static int32_t slotOf(int32_t firstSlot, Value v) {
  return firstSlot + static_cast<int32_t>(cast<OpResult>(v).getResultNumber());
}

void BlockScheduler::addEdge(int64_t from, int64_t to) {
  if (from < 0 || from == to)
    return;
  nodes[from].succ.push_back(to);
  ++nodes[to].preds;
}

/// The values op reads, its nested regions' uses of values defined
/// outside it included: an op runs as one node, so whatever its body needs
/// must be ready before it.
SmallVector<Value, 4> BlockScheduler::operandsOf(Operation &op) {
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
  return operands;
}

/// The producer node of v (-1: none in this block); `slot` gets v's
/// liveness slot when a top-level op of the block defines it.
int64_t BlockScheduler::producerOf(Value v, int32_t *slot) {
  Operation *d = v.getDefiningOp();
  if (!d)
    return -1;
  Operation *anc = block.findAncestorOpInBlock(*d);
  auto it = anc ? producer.find(anc) : producer.end();
  if (it == producer.end())
    return -1;
  if (slot && anc == d)
    *slot = slotOf(it->second.firstSlot, v);
  return it->second.node;
}

/// Records v as used by node n (for liveness) and returns its producer.
/// A use before its definition (graph regions) gets its slot once the
/// whole block is numbered.
int64_t BlockScheduler::useBy(int64_t n, Value v) {
  int32_t slot = -1;
  int64_t from = producerOf(v, &slot);
  if (slot >= 0)
    nodes[n].uses.push_back(slot);
  else if (from < 0 && v.getDefiningOp() &&
           v.getDefiningOp()->getBlock() == &block)
    forwardUses.push_back({n, v});
  return from;
}

/// A collective (or an existing comm.start): a start node chained after
/// the previous start, since every rank must issue collectives in the same
/// order. A sync collective also gets its wait node here; its inputs are
/// consumed by the wait, as the transport reads them until then, and its
/// results are made live by the start, where their buffers are needed.
void BlockScheduler::addCollective(Operation &op, int64_t idx,
                                   ArrayRef<Value> operands) {
  auto startOp = dyn_cast<StartOp>(op);
  Coll c;
  c.op = &op;
  c.existing = static_cast<bool>(startOp);
  Operation *inner = startOp ? startOp.getCollective() : &op;
  c.group = inner ? Attribute(cast<CollectiveOpInterface>(inner).getGroupAttr())
                  : Attribute();
  if (inner)
    if (auto pb = getPayloadBytes(cast<CollectiveOpInterface>(inner)))
      c.bytes = static_cast<double>(*pb);
  if (auto it = inner ? prices.find(inner) : prices.end(); it != prices.end())
    c.price = it->second;
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
}

/// An existing comm.wait: the wait node of its start's collective.
void BlockScheduler::addWait(WaitOp wait, int64_t idx,
                             ArrayRef<Value> operands) {
  Operation *op = wait.getOperation();
  int64_t n = addNode(op, Kind::Wait, idx);
  Operation *s = wait.getToken().getDefiningOp();
  auto it = s ? existingStart.find(s) : existingStart.end();
  if (it != existingStart.end()) {
    Coll &c = colls[it->second];
    c.wait = n;
    nodes[n].coll = it->second;
    // The token gives no producer edge (a comm.start has no node entry in
    // `producer`): without this a wait could be scheduled before its own
    // start.
    addEdge(c.start, n);
  }
  for (Value v : operands)
    addEdge(producerOf(v), n);
  addEdge(lastBarrier, n);
  producer[op] = {n, defineResults(n, op)};
  sinceBarrier.push_back(n);
}

/// Any other op: free to move within its SSA edges when it has no memory
/// effects; effects on resources other than communication keep their
/// order among themselves; unknown effects (a call) may touch anything, so
/// the op is a barrier.
void BlockScheduler::addOther(Operation &op, int64_t idx,
                              ArrayRef<Value> operands) {
  int64_t n = addNode(&op, Kind::Other, idx);
  for (Value v : operands)
    addEdge(useBy(n, v), n);
  producer[&op] = {n, defineResults(n, &op)};
  if (isMemoryEffectFree(&op)) {
    addEdge(lastBarrier, n);
    sinceBarrier.push_back(n);
    return;
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

/// Nodes and dependence edges for every op but the terminator, which stays
/// last. False when the block holds no collective: nothing to overlap.
bool BlockScheduler::buildGraph() {
  int64_t pos = 0;
  for (Operation &op : block) {
    if (&op == terminator)
      break;
    int64_t idx = pos++;
    SmallVector<Value, 4> operands = operandsOf(op);
    if (isa<CollectiveOpInterface, StartOp>(op))
      addCollective(op, idx, operands);
    else if (auto wait = dyn_cast<WaitOp>(op))
      addWait(wait, idx, operands);
    else
      addOther(op, idx, operands);
  }
  return !colls.empty();
}

//===----------------------------------------------------------------------===//
// countLiveness
//===----------------------------------------------------------------------===//

/// What the memory cap and the wait priority need before scheduling: the
/// consumers each value slot waits for (a node that uses a value twice
/// consumes it once; values the terminator or ops outside the block use
/// stay live), and for each wait the original position of the first op
/// that needs it, so the wait needed soonest goes first.
void BlockScheduler::countLiveness() {
  for (auto &[n, v] : forwardUses) {
    auto it = producer.find(v.getDefiningOp());
    if (it != producer.end())
      nodes[n].uses.push_back(slotOf(it->second.firstSlot, v));
  }
  remaining.assign(slotValue.size(), 0);
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
  for (size_t i = 0; i < slotValue.size(); ++i)
    for (OpOperand &u : slotValue[i].getUses()) {
      Operation *anc = block.findAncestorOpInBlock(*u.getOwner());
      if (!anc || anc == terminator)
        ++remaining[i];
    }
}

//===----------------------------------------------------------------------===//
// listSchedule
//===----------------------------------------------------------------------===//

/// A node whose predecessors are all placed joins the ready set of its
/// kind: there is at most one ready start (they form a chain), compute in
/// original order, waits by first use.
void BlockScheduler::makeReady(int64_t n) {
  Node &nd = nodes[n];
  if (nd.kind == Kind::Start)
    readyStart = n;
  else if (nd.kind == Kind::Wait)
    readyWait.insert({nd.firstUse, nd.index, n});
  else
    readyOther.insert({nd.index, n});
}

bool BlockScheduler::fits(const Node &n) const {
  return limits.memoryCap <= 0 || live + n.defBytes <= limits.memoryCap;
}

/// Whether starting c keeps the in-flight limits; the first collective in
/// flight always may, or a collective above a limit could never start.
bool BlockScheduler::limitsAllow(const Coll &c) const {
  if (inFlight == 0)
    return true;
  if (limits.maxInFlight > 0 && inFlight >= limits.maxInFlight)
    return false;
  return !(limits.maxBytesInFlight > 0 &&
           bytesInFlight + c.bytes > limits.maxBytesInFlight);
}

/// The wait of the oldest in-flight collective, if it is ready: the one
/// that frees a limit soonest.
int64_t BlockScheduler::oldestReadyWait() const {
  for (int64_t cn : flight) {
    int64_t w = colls[cn].wait;
    if (w >= 0 && nodes[w].preds == 0)
      return w;
  }
  return -1;
}

/// The next node by the priorities of BlockScheduler.h; -1 when nothing is
/// ready (a cycle).
int64_t BlockScheduler::pickNext() {
  // A start is held back by the in-flight limits, or by the memory cap
  // (its results would not fit). Either way the oldest in-flight wait goes
  // first when the model says it is free: it frees a limit and the
  // collective's inputs. Without that, a start the cap holds back waits
  // for compute to free memory, which is what made the schedule worse
  // under a looser cap than under a tighter one (issue 15, item 2).
  bool startHeld = false, memoryHeld = false;
  if (readyStart >= 0) {
    const Coll &c = colls[nodes[readyStart].coll];
    startHeld = !limitsAllow(c);
    memoryHeld = !startHeld && !fits(nodes[readyStart]);
    if (!startHeld && !memoryHeld)
      return readyStart;
    int64_t w = oldestReadyWait();
    if (w >= 0 && links.endedBy(colls[nodes[w].coll].job, clockUs))
      return w;
  }
  // The first ready op in the original order that fits under the cap.
  int64_t scanned = 0;
  for (auto &[idx, n] : readyOther) {
    if (fits(nodes[n]))
      return n;
    if (++scanned >= kMemoryScan)
      break;
  }
  if (!readyWait.empty()) {
    int64_t w = startHeld || memoryHeld ? oldestReadyWait() : -1;
    return w >= 0 ? w : std::get<2>(*readyWait.begin());
  }
  // Nothing fits under the memory cap: the original order decides.
  int64_t fallback = -1;
  if (!readyOther.empty())
    fallback = readyOther.begin()->second;
  if (readyStart >= 0 && !startHeld &&
      (fallback < 0 || nodes[readyStart].index < nodes[fallback].index))
    fallback = readyStart;
  if (fallback >= 0)
    capMissed = true;
  return fallback;
}

/// Appends n to the order and advances the model: live bytes (its results
/// become live, the values it was the last consumer of die), the
/// predicted clock (compute runs on one stream, each group's collectives
/// on a stream of their own, sharing links with other groups' in flight:
/// LinkSharing.h; a wait lasts until its collective ends) and
/// what is in flight.
void BlockScheduler::place(int64_t n) {
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
    // On the group's stream, sharing links with the other groups' (the
    // clock is in microseconds).
    c.job =
        links.add({clockUs, c.price.latency * 1e6,
                   (c.price.seconds - c.price.latency) * 1e6,
                   reinterpret_cast<uintptr_t>(c.group.getAsOpaquePointer()),
                   c.price.footprint, wakeupUs, wakeupIdleUs});
    flight.insert(nd.coll);
    ++inFlight;
    bytesInFlight += c.bytes;
  } else if (nd.kind == Kind::Wait) {
    if (nd.coll >= 0) {
      Coll &c = colls[nd.coll];
      clockUs = std::max(clockUs, links.endOf(c.job));
      if (flight.erase(nd.coll)) {
        --inFlight;
        bytesInFlight -= c.bytes;
      }
    }
  } else {
    clockUs += computeCostUs(nd.op, limits.compute);
  }
  for (int64_t s : nd.succ)
    if (--nodes[s].preds == 0)
      makeReady(s);
}

/// The order, chosen one node at a time, before any IR changes: the block
/// stays as it was if scheduling fails.
LogicalResult BlockScheduler::listSchedule() {
  order.reserve(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].preds == 0)
      makeReady(static_cast<int64_t>(n));
  while (order.size() < nodes.size()) {
    int64_t n = pickNext();
    if (n < 0)
      break; // unreachable for a DAG; keep what we have
    place(n);
  }
  if (order.size() != nodes.size())
    return block.getParentOp()->emitError()
           << kPass << ": internal error: dependence cycle in a block";
  if (capMissed)
    emitWarning(block.getParentOp()->getLoc())
        << kPass << ": memory-cap=" << limits.memoryCapText
        << " cannot be met in this block: the original order was kept "
           "where no op fitted";
  return success();
}

//===----------------------------------------------------------------------===//
// materialise
//===----------------------------------------------------------------------===//

/// Sync collectives become start/wait pairs in place; returns the op of
/// each start and wait node (nodes absent: their op as it is).
llvm::DenseMap<int64_t, Operation *>
BlockScheduler::splitCollectives(int64_t &async) {
  MLIRContext *ctx = block.getParentOp()->getContext();
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
    ++async;
  }
  return opOfNode;
}

/// Moves the ops into the scheduled order before the terminator; returns
/// how many compute ops changed rank among the compute ops (the ones the
/// schedule moved, not those shifted by a start or wait).
int64_t BlockScheduler::moveInOrder(
    const llvm::DenseMap<int64_t, Operation *> &opOfNode) {
  int64_t moved = 0;
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
      ++moved;
  }
  return moved;
}

/// The only phase that changes IR, once the order is known.
void BlockScheduler::materialise(BlockScheduleStats &stats) {
  llvm::DenseMap<int64_t, Operation *> opOfNode = splitCollectives(stats.async);
  stats.moved += moveInOrder(opOfNode);
}
