//===- CostModel.cpp - Cost analysis shared by the comm passes ------------===//
//
// Collective prices come from lib/schedule (closedFormCost, selectAlgorithm)
// so that every pass prices a collective as the runtime's simulator does.
// Bucket pricers are fitted to affine pieces by probing the closed forms at
// two sizes and checking two more; a closed form that is not affine keeps
// the exact (slower) path in the planner instead of an approximation.
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"

#include "hccl-mlir/schedule/Cost.h"
#include "llvm/Support/MemoryBuffer.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallSet.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

LogicalResult mlir::comm::verifyComputeOptions(Operation *anchor,
                                               StringRef pass,
                                               const ComputeCostOptions &o) {
  if (!(o.peakTflops > 0) || !std::isfinite(o.peakTflops))
    return emitError(anchor->getLoc())
           << pass << ": option peak-tflops must be a positive number, found "
           << o.peakTflops;
  if (!(o.memoryGBps > 0) || !std::isfinite(o.memoryGBps))
    return emitError(anchor->getLoc())
           << pass << ": option memory-gbps must be a positive number, found "
           << o.memoryGBps;
  return success();
}

bool mlir::comm::isCommOp(Operation *op) {
  // comm.compute is the imported graphs' compute, not communication.
  return isa_and_nonnull<CommDialect>(op->getDialect()) && !isa<ComputeOp>(op);
}

std::optional<double> mlir::comm::linalgFlops(Operation *op) {
  auto lop = dyn_cast<linalg::LinalgOp>(op);
  if (!lop)
    return std::nullopt;
  double iterations = 1;
  for (int64_t r : lop.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    iterations *= static_cast<double>(r);
  }
  Block *body = lop.getBlock();
  if (!body)
    return std::nullopt;
  // Every payload op but the yield is one arithmetic operation.
  double perIteration = static_cast<double>(body->getOperations().size()) - 1;
  return iterations * std::max(0.0, perIteration);
}

static double staticBytes(Type t) {
  auto st = dyn_cast<ShapedType>(t);
  if (!st || !st.getElementType().isIntOrFloat())
    return 0;
  // Sizes that overflow are rejected before pricing (verifySizesFit).
  return static_cast<double>(getStaticByteSize(t).value_or(0));
}

double mlir::comm::bytesTouched(Operation *op) {
  double bytes = 0;
  for (Type t : op->getOperandTypes())
    bytes += staticBytes(t);
  for (Type t : op->getResultTypes())
    bytes += staticBytes(t);
  return bytes;
}

double mlir::comm::computeCostUs(Operation *op,
                                 const ComputeCostOptions &opts) {
  if (Attribute a = op->getAttr(CommDialect::getCostAttrName())) {
    if (auto f = dyn_cast<FloatAttr>(a))
      return std::max(0.0, f.getValueAsDouble());
    if (auto i = dyn_cast<IntegerAttr>(a))
      return std::max<double>(0.0, static_cast<double>(i.getInt()));
  }
  if (isCommOp(op) || op->hasTrait<OpTrait::IsTerminator>() ||
      op->hasTrait<OpTrait::ConstantLike>())
    return 0;
  double memUs = bytesTouched(op) / (opts.memoryGBps * 1e9) * 1e6;
  if (auto c = dyn_cast<ComputeOp>(op)) {
    // An imported op without a predicted time: roofline from its FLOPs and
    // bytes when the exporter recorded them.
    double flopsUs = c.getFlopsAttr() ? c.getFlopsAttr().getValueAsDouble() /
                                            (opts.peakTflops * 1e12) * 1e6
                                      : 0;
    double bytesUs = c.getBytesAttr() ? c.getBytesAttr().getValueAsDouble() /
                                            (opts.memoryGBps * 1e9) * 1e6
                                      : memUs;
    return std::max(flopsUs, bytesUs);
  }
  if (std::optional<double> flops = linalgFlops(op))
    return std::max(*flops / (opts.peakTflops * 1e12) * 1e6, memUs);
  if (op->getNumRegions() > 0) {
    // A structured op we do not model: its body, once.
    double sum = 0;
    for (Region &r : op->getRegions())
      for (Block &b : r)
        for (Operation &inner : b)
          sum += computeCostUs(&inner, opts);
    return sum;
  }
  // Producers that read no tensor (tensor.empty, ...) move nothing.
  bool readsShaped = llvm::any_of(op->getOperandTypes(),
                                  [](Type t) { return staticBytes(t) > 0; });
  return readsShaped ? memUs : 0;
}

std::optional<double> mlir::comm::hcclBytes(Operation *op) {
  std::optional<sched::Collective> c = getScheduleCollective(op);
  if (!c)
    return std::nullopt;
  auto bytesOf = [](Type t) -> std::optional<double> {
    auto st = dyn_cast<ShapedType>(t);
    if (!st || !st.hasStaticShape())
      return std::nullopt;
    return staticBytes(t);
  };
  switch (*c) {
  case sched::Collective::AllReduce: {
    double sum = 0;
    for (Type t : op->getOperandTypes()) {
      std::optional<double> b = bytesOf(t);
      if (!b)
        return std::nullopt;
      sum += *b;
    }
    return sum;
  }
  case sched::Collective::ReduceScatter:
    return bytesOf(op->getResult(0).getType());
  case sched::Collective::AllToAll: {
    std::optional<double> b = bytesOf(op->getOperand(0).getType());
    GroupOp g = lookupGroup(op, cast<CollectiveOpInterface>(op).getGroupAttr());
    if (!b || !g || g.getSize() <= 0)
      return std::nullopt;
    return *b / static_cast<double>(g.getSize());
  }
  default:
    return bytesOf(op->getOperand(0).getType());
  }
}

//===----------------------------------------------------------------------===//
// CommCostModel
//===----------------------------------------------------------------------===//

CommCostModel::CommCostModel(sched::Topology t,
                             std::optional<sched::HcclAlgoSpec> o)
    : topo(std::move(t)), algoOverride(std::move(o)) {}

FailureOr<CommCostModel> CommCostModel::get(Operation *anchor, bool required,
                                            StringRef pass) {
  TopologyAttr attr = getTopology(anchor);
  if (!attr) {
    if (required)
      return anchor->emitError()
             << pass << " needs the cluster topology: add a '"
             << CommDialect::getTopologyAttrName()
             << "' attribute to the enclosing module, e.g. "
                "#comm.topology<\"910b-8\">";
    return CommCostModel();
  }
  return CommCostModel(attr.toSchedule());
}

static std::string groupName(Operation *op) {
  auto coll = dyn_cast<CollectiveOpInterface>(op);
  return coll && coll.getGroupAttr() ? coll.getGroupAttr().getValue().str()
                                     : std::string("?");
}

/// The group a communication op runs on, or an error at it.
static FailureOr<GroupOp> groupOf(Operation *op) {
  auto coll = dyn_cast<CollectiveOpInterface>(op);
  if (!coll)
    return op->emitOpError() << "is not a communication op";
  GroupOp g = lookupGroup(op, coll.getGroupAttr());
  if (!g)
    return op->emitOpError()
           << "references unknown group " << coll.getGroupAttr();
  return g;
}

CommCostModel::GroupKey CommCostModel::groupKey(GroupOp g) {
  return {g.getRanksAttr().getAsOpaquePointer(),
          static_cast<int64_t>(g.getGroupSize())};
}

FailureOr<GroupPlacement> CommCostModel::placement(Operation *op) {
  FailureOr<GroupOp> found = groupOf(op);
  if (failed(found))
    return failure();
  GroupOp g = *found;
  auto coll = cast<CollectiveOpInterface>(op);
  auto it = placements.find(groupKey(g));
  if (it != placements.end())
    return it->second;
  if (!topo)
    return op->emitOpError() << "cannot place group " << coll.getGroupAttr()
                             << ": the module has no topology";
  std::vector<std::vector<int64_t>> subgroups;
  for (int64_t i = 0, e = g.getNumSubgroups(); i < e; ++i) {
    ArrayRef<int64_t> ranks = g.getSubgroup(i);
    subgroups.emplace_back(ranks.begin(), ranks.end());
  }
  sched::Result<GroupPlacement> place = sched::placeGroup(*topo, subgroups);
  if (!place)
    return op->emitOpError()
           << "group " << coll.getGroupAttr() << ": " << place.message();
  placements[groupKey(g)] = *place;
  return *place;
}

static std::string algoText(sched::Algorithm a, sched::Algorithm l0,
                            sched::Algorithm l1) {
  std::string s = sched::algorithmName(a);
  if (a == sched::Algorithm::Hierarchical)
    s += std::string("(") + sched::algorithmName(l0) + ", " +
         sched::algorithmName(l1) + ")";
  return s;
}

static double elemBytesOf(Operation *op) {
  for (Value v : op->getOperands())
    if (auto st = dyn_cast<ShapedType>(v.getType()))
      if (st.getElementType().isIntOrFloat())
        return (st.getElementTypeBitWidth() + 7) / 8;
  return 4;
}

sched::Result<double> CommCostModel::closedForm(const Choice &ch,
                                                sched::Collective c,
                                                double bytes, double elemBytes,
                                                const GroupPlacement &pl,
                                                int64_t pieces) const {
  sched::ClosedFormRequest req;
  req.pieces = pieces;
  req.collective = c;
  req.algorithm = ch.algorithm;
  req.level0 = ch.level0;
  req.level1 = ch.level1;
  req.slices = ch.slices;
  req.podSplit = ch.podSplit;
  req.bytes = bytes;
  req.elemBytes = elemBytes;
  return sched::placedClosedFormCost(req, pl, *topo);
}

sched::Result<std::vector<CommCostModel::Choice>>
CommCostModel::choices(sched::Collective c, double bytes, double elemBytes,
                       const GroupPlacement &pl, int64_t pieces) const {
  using R = sched::Result<std::vector<Choice>>;
  sched::SelectRequest req;
  req.pieces = pieces;
  req.collective = c;
  req.bytes = bytes;
  req.elemBytes = elemBytes;
  req.placement = pl;
  req.override = getOverride();
  sched::Result<sched::Selection> sel = sched::selectAlgorithm(req, *topo);
  if (!sel)
    return R::error(sel.message());
  std::vector<Choice> out;
  for (const sched::Candidate &cand : sel->candidates)
    out.push_back({cand.algorithm, cand.level0, cand.level1, 1, cand.seconds,
                   cand.podSplit});
  return out;
}

FailureOr<CollectivePrice> CommCostModel::price(Operation *op, bool useAttr,
                                                std::optional<double> bytes) {
  std::optional<sched::Collective> coll = getScheduleCollective(op);
  if (!coll)
    return op->emitOpError() << "is not a collective the cost model prices";
  if (!topo)
    return op->emitOpError() << "cannot be priced: the module has no "
                                "topology";
  if (!bytes)
    bytes = hcclBytes(op);
  if (!bytes)
    return op->emitOpError() << "has a dynamically shaped payload; the cost "
                                "model needs static shapes";
  FailureOr<GroupPlacement> pl = placement(op);
  if (failed(pl))
    return failure();
  double elemBytes = elemBytesOf(op);

  AlgorithmAttr attr = cast<CollectiveOpInterface>(op).getAlgorithm();
  BlockLayout layout = getBlockLayout(op);
  int64_t pieces = std::max(layout.inputOuter, layout.outputOuter);
  // Graphs repeat the same sizes: price each distinct request once.
  PriceKey key{
      static_cast<int>(*coll),
      groupKey(lookupGroup(op, cast<CollectiveOpInterface>(op).getGroupAttr())),
      *bytes,
      elemBytes,
      useAttr && attr ? attr.getAsOpaquePointer() : nullptr,
      pieces};
  if (auto hit = priceCache.find(key); hit != priceCache.end())
    return hit->second;
  FailureOr<CollectivePrice> priced = priceUncached(
      op, *coll, *bytes, elemBytes, *pl, useAttr ? attr : nullptr, pieces);
  if (failed(priced))
    return failure();
  // The latency part: the same algorithm moving one element per piece
  // (what link sharing does not stretch).
  Choice ch{priced->algorithm, priced->level0, priced->level1, priced->slices,
            0};
  sched::Result<double> lat =
      closedForm(ch, *coll, elemBytes * static_cast<double>(pieces), elemBytes,
                 *pl, pieces);
  priced->latencySeconds = lat ? std::min(*lat, priced->seconds) : 0.0;
  priceCache.emplace(key, *priced);
  return priced;
}

FailureOr<std::vector<int64_t>> CommCostModel::footprint(Operation *op) {
  FailureOr<GroupOp> found = groupOf(op);
  if (failed(found))
    return failure();
  GroupOp g = *found;
  auto coll = cast<CollectiveOpInterface>(op);
  if (!topo)
    return op->emitOpError() << "cannot place group " << coll.getGroupAttr()
                             << ": the module has no topology";
  // Which member only sends (broadcast's root) or only receives (reduce's).
  std::optional<int64_t> sendOnly, recvOnly;
  if (auto b = dyn_cast<BroadcastOp>(op))
    sendOnly = b.getRoot();
  if (auto r = dyn_cast<ReduceOp>(op))
    recvOnly = r.getRoot();
  FootprintKey key{groupKey(g), sendOnly.value_or(-1), recvOnly.value_or(-1)};
  if (auto hit = footprints.find(key); hit != footprints.end())
    return hit->second;
  const int64_t world = topo->worldSize();
  // A rank's ports per link tier (Topology::tierBetween: its server's
  // mesh, its pod's scale-up bus, its NIC) and direction.
  auto resource = [&](int tier, bool out, int64_t rank) {
    return (tier * 2 + (out ? 1 : 0)) * world + rank;
  };
  std::vector<int64_t> out;
  for (int64_t i = 0, e = g.getNumSubgroups(); i < e; ++i) {
    ArrayRef<int64_t> ranks = g.getSubgroup(i);
    const int64_t size = static_cast<int64_t>(ranks.size());
    llvm::DenseMap<int, int> perServer, perPod;
    auto serverOf = [&](int64_t r) {
      return topo->serverOf(static_cast<int>(r));
    };
    for (int64_t r : ranks) {
      ++perServer[serverOf(r)];
      ++perPod[topo->podOfServer(serverOf(r))];
    }
    for (auto [local, r] : llvm::enumerate(ranks)) {
      bool sends = !(recvOnly && *recvOnly == static_cast<int64_t>(local));
      bool receives = !(sendOnly && *sendOnly == static_cast<int64_t>(local));
      // Members beside r: on its server, in its pod beyond its server, and
      // beyond its pod (without pods, every other server is "beyond").
      int onServer = perServer[serverOf(r)];
      int inPod =
          topo->hasPods() ? perPod[topo->podOfServer(serverOf(r))] : onServer;
      bool uses[3] = {onServer > 1, inPod > onServer, size > inPod};
      for (int cls = 0; cls < 3; ++cls) {
        if (!uses[cls])
          continue;
        if (sends)
          out.push_back(resource(cls, true, r));
        if (receives)
          out.push_back(resource(cls, false, r));
      }
    }
  }
  footprints.emplace(key, out);
  return out;
}

FailureOr<CollectivePrice> CommCostModel::priceUncached(
    Operation *op, sched::Collective coll, double bytes, double elemBytes,
    const GroupPlacement &place, AlgorithmAttr attr, int64_t pieces) {
  const GroupPlacement *pl = &place;
  CollectivePrice out;
  out.collective = coll;
  out.bytes = bytes;
  out.p = pl->p;
  if (attr) {
    Choice ch{attr.getKind(),
              attr.getLevel0(),
              attr.getLevel1(),
              attr.getSlices(),
              0,
              attr.getPodSplit()};
    sched::Result<double> t =
        closedForm(ch, coll, bytes, elemBytes, *pl, pieces);
    if (!t)
      return op->emitOpError()
             << "algorithm '"
             << algoText(attr.getKind(), attr.getLevel0(), attr.getLevel1())
             << "' cannot serve " << sched::collectiveName(coll)
             << " on group @" << groupName(op) << " (p = " << pl->p
             << "): " << t.message();
    out.algorithm = ch.algorithm;
    out.level0 = ch.level0;
    out.level1 = ch.level1;
    out.slices = ch.slices;
    out.podSplit = ch.podSplit;
    out.seconds = *t;
    out.fromAttr = true;
    return out;
  }

  sched::Result<std::vector<Choice>> all =
      choices(coll, bytes, elemBytes, *pl, pieces);
  if (!all)
    return op->emitOpError()
           << "no algorithm can serve " << sched::collectiveName(coll)
           << " on group @" << groupName(op) << " (p = " << pl->p
           << "): " << all.message();
  const Choice *best = &all->front();
  for (const Choice &ch : *all)
    if (sched::cheaperBeyondRounding(ch.seconds, best->seconds))
      best = &ch;
  out.algorithm = best->algorithm;
  out.level0 = best->level0;
  out.level1 = best->level1;
  out.podSplit = best->podSplit;
  out.seconds = best->seconds;
  return out;
}

FailureOr<hccl::bucket::BucketPricer>
CommCostModel::allReducePricer(Operation *op, AlgorithmAttr pinned) {
  if (!topo)
    return op->emitOpError() << "cannot be priced: the module has no "
                                "topology";
  FailureOr<GroupPlacement> pl = placement(op);
  if (failed(pl))
    return failure();
  constexpr sched::Collective ar = sched::Collective::AllReduce;
  double elemBytes = elemBytesOf(op);

  // An algorithm table with simulated times for this group size prices
  // what selection will then take from it (comm-select-algorithm table=).
  if (algoTable && !pinned) {
    std::vector<std::pair<double, double>> pts =
        algoTable->simulatedTimes(ar, pl->p);
    if (!pts.empty()) {
      hccl::bucket::BucketPricer pricer;
      pricer.general = [pts](double bytes) {
        return sched::interpolateTime(pts, bytes);
      };
      return pricer;
    }
  }

  // The options: the pinned algorithm, or every one selection may pick
  // (which options are allowed does not depend on the size).
  std::vector<Choice> usable;
  if (pinned) {
    Choice ch{pinned.getKind(),
              pinned.getLevel0(),
              pinned.getLevel1(),
              pinned.getSlices(),
              0,
              pinned.getPodSplit()};
    sched::Result<double> t = closedForm(ch, ar, 1048576.0, elemBytes, *pl);
    if (!t)
      return op->emitOpError()
             << "algorithm '"
             << algoText(pinned.getKind(), pinned.getLevel0(),
                         pinned.getLevel1())
             << "' cannot serve allreduce on group @" << groupName(op)
             << " (p = " << pl->p << "): " << t.message();
    usable.push_back(ch);
  } else {
    sched::Result<std::vector<Choice>> all =
        choices(ar, 1048576.0, elemBytes, *pl);
    if (!all)
      return op->emitOpError()
             << "no algorithm can serve allreduce on group @" << groupName(op)
             << " (p = " << pl->p << "): " << all.message();
    usable = *all;
  }

  // Affine pieces when every option's closed form is affine in bytes
  // (checked at two more sizes); otherwise the exact function.
  hccl::bucket::BucketPricer pricer;
  bool affine = true;
  const double b1 = 1048576.0, b2 = 268435456.0;
  for (size_t i = 0; i < usable.size() && affine; ++i) {
    sched::Result<double> t1 = closedForm(usable[i], ar, b1, elemBytes, *pl),
                          t2 = closedForm(usable[i], ar, b2, elemBytes, *pl);
    if (!t1 || !t2) {
      affine = false;
      break;
    }
    double beta = (*t2 - *t1) / (b2 - b1), alpha = *t1 - beta * b1;
    for (double check : {0.0, 65536.0, 4294967296.0}) {
      sched::Result<double> t =
          closedForm(usable[i], ar, check, elemBytes, *pl);
      double fit = alpha + beta * check;
      if (!t || std::fabs(*t - fit) > 1e-9 * std::max(std::fabs(*t), 1e-6))
        affine = false;
    }
    pricer.pieces.push_back({alpha, beta, static_cast<int>(i)});
  }
  if (!affine) {
    pricer.pieces.clear();
    CommCostModel self = *this;
    GroupPlacement place = *pl;
    pricer.general = [self, usable, place, elemBytes](double bytes) {
      double best = std::numeric_limits<double>::infinity();
      for (const Choice &ch : usable)
        if (sched::Result<double> t =
                self.closedForm(ch, ar, bytes, elemBytes, place))
          best = std::min(best, *t);
      return best;
    };
  }
  return pricer;
}

//===----------------------------------------------------------------------===//
// Gradient-ready timeline
//===----------------------------------------------------------------------===//

ReadyTimeline mlir::comm::buildReadyTimeline(Block &block,
                                             const ComputeCostOptions &opts) {
  ReadyTimeline tl;
  // Per op: for each group (stream) the latest collective item it depends
  // on, and whether it depends on any communication result at all.
  using DepSet = SmallVector<std::pair<Attribute, int64_t>, 2>;
  llvm::DenseMap<Operation *, DepSet> deps;
  llvm::DenseSet<Operation *> onComm;
  // Per group: the latest item some op with side effects depends on.
  DepSet barrier;
  double clockUs = 0;

  auto merge = [](DepSet &into, const DepSet &from) {
    // Not a structured binding: a lambda may capture one only from C++20.
    for (const std::pair<Attribute, int64_t> &dep : from) {
      auto it =
          llvm::find_if(into, [&](auto &e) { return e.first == dep.first; });
      if (it == into.end())
        into.push_back(dep);
      else
        it->second = std::max(it->second, dep.second);
    }
  };

  for (Operation &op : block) {
    DepSet mine;
    bool dependent = false;
    auto visitOperand = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def)
        return;
      Operation *anc = block.findAncestorOpInBlock(*def);
      if (!anc || anc == &op)
        return;
      auto it = deps.find(anc);
      if (it != deps.end())
        merge(mine, it->second);
      if (onComm.contains(anc))
        dependent = true;
    };
    for (Value v : op.getOperands())
      visitOperand(v);
    if (op.getNumRegions())
      op.walk([&](Operation *inner) {
        if (inner != &op)
          for (Value v : inner->getOperands())
            visitOperand(v);
      });

    bool isItem = getScheduleCollective(&op).has_value();
    Attribute group =
        isItem ? cast<CollectiveOpInterface>(op).getGroupAttr() : Attribute();
    // Fusion cannot move an op with side effects past a bucket: the items
    // it depends on cannot share a bucket with anything after it.
    if (!isMemoryEffectFree(&op))
      for (auto &[g, idx] : mine)
        if (g != group)
          merge(barrier, DepSet{{g, idx}});
    if (isItem) {
      int64_t idx = static_cast<int64_t>(tl.items.size());
      int64_t dep = -1;
      for (const DepSet *set : {&mine, &barrier})
        for (auto &[g, i] : *set)
          if (g == group)
            dep = std::max(dep, i);
      tl.items.push_back({&op, clockUs * 1e-6, dep});
      merge(mine, DepSet{{group, idx}});
      deps[&op] = std::move(mine);
      onComm.insert(&op);
      continue;
    }
    if (!mine.empty())
      deps[&op] = std::move(mine);
    if (isCommOp(&op)) {
      // start / wait / send / recv: their results come from communication.
      if (op.getNumResults())
        onComm.insert(&op);
      continue;
    }
    if (dependent)
      onComm.insert(&op);
    double cost = computeCostUs(&op, opts);
    if (dependent) {
      tl.dependentUs += cost;
    } else {
      tl.independentUs += cost;
      clockUs += cost;
      if (cost > 0)
        tl.boundaries.push_back(clockUs * 1e-6);
    }
  }
  return tl;
}

FailureOr<SmallVector<BucketStream>> mlir::comm::buildBucketStreams(
    Block &block, const ComputeCostOptions &opts, hccl::bucket::Caps caps,
    llvm::function_ref<FailureOr<CommCostModel *>(Operation *)> getModel) {
  SmallVector<BucketStream> out;
  if (llvm::none_of(block, [](Operation &op) { return isa<AllReduceOp>(op); }))
    return out;
  ReadyTimeline tl = buildReadyTimeline(block, opts);

  // One stream per group, in order of first appearance.
  llvm::MapVector<Attribute, SmallVector<int64_t>> byGroup;
  for (size_t i = 0; i < tl.items.size(); ++i)
    byGroup[cast<CollectiveOpInterface>(tl.items[i].op).getGroupAttr()]
        .push_back(static_cast<int64_t>(i));

  for (auto &[group, members] : byGroup) {
    if (llvm::none_of(members, [&](int64_t g) {
          return isa<AllReduceOp>(tl.items[g].op);
        }))
      continue;
    BucketStream stream;
    hccl::bucket::Problem &prob = stream.problem;
    prob.caps = caps;
    prob.limits.boundaries = tl.boundaries;
    SmallVector<std::tuple<Attribute, Type, Attribute>> keys;
    llvm::DenseMap<int64_t, int64_t> localOf;
    for (int64_t g : members) {
      const ReadyTimeline::Item &src = tl.items[g];
      hccl::bucket::Item item;
      item.ready = src.readySeconds;
      auto dep = localOf.find(src.dependsOn);
      item.dependsOn = dep == localOf.end() ? -1 : dep->second;
      localOf[g] = static_cast<int64_t>(prob.items.size());

      std::optional<double> bytes = hcclBytes(src.op);
      if (auto ar = dyn_cast<AllReduceOp>(src.op)) {
        if (!bytes)
          return ar.emitOpError() << "has a dynamically shaped operand; "
                                     "comm-bucket-sizing needs static sizes";
        item.bytes = *bytes;
        std::tuple<Attribute, Type, Attribute> key{
            ar.getKindAttr(),
            cast<ShapedType>(ar.getInputs().front().getType()).getElementType(),
            ar.getAlgoAttr()};
        auto it = llvm::find(keys, key);
        item.key = static_cast<int>(it - keys.begin());
        if (it == keys.end()) {
          keys.push_back(key);
          prob.pricers.emplace_back();
          if (getModel) {
            FailureOr<CommCostModel *> m = getModel(ar);
            if (failed(m))
              return failure();
            prob.wakeup = (*m)->topology().collectiveWakeup();
            prob.steal = (*m)->topology().computeSteal();
            FailureOr<hccl::bucket::BucketPricer> pr =
                (*m)->allReducePricer(ar, ar.getAlgoAttr());
            if (failed(pr))
              return failure();
            prob.pricers.back() = std::move(*pr);
          }
        }
      } else {
        item.key = -1;
        item.bytes = bytes.value_or(0);
        if (getModel) {
          FailureOr<CommCostModel *> m = getModel(src.op);
          if (failed(m))
            return failure();
          prob.wakeup = (*m)->topology().collectiveWakeup();
          prob.steal = (*m)->topology().computeSteal();
          FailureOr<CollectivePrice> pr = (*m)->price(src.op);
          if (failed(pr))
            return failure();
          item.fixedSeconds = pr->seconds;
        }
      }
      prob.items.push_back(item);
      stream.ops.push_back(src.op);
    }
    out.push_back(std::move(stream));
  }
  return out;
}

FailureOr<std::optional<sched::AlgoTable>>
mlir::comm::loadAlgoTable(StringRef path, Operation *anchor, StringRef pass) {
  if (path.empty())
    return std::optional<sched::AlgoTable>();
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return emitError(anchor->getLoc())
           << pass << ": option table='" << path
           << "': cannot read: " << buf.getError().message();
  sched::Result<sched::AlgoTable> parsed =
      sched::parseAlgoTable((*buf)->getBuffer());
  if (!parsed)
    return emitError(anchor->getLoc())
           << pass << ": option table='" << path << "': " << parsed.message();
  return std::optional<sched::AlgoTable>(parsed.take());
}

LogicalResult CommCostModel::setTable(std::optional<sched::AlgoTable> t,
                                      StringRef path, Operation *anchor,
                                      StringRef pass) {
  if (t && t->topology != topo->name)
    return emitError(anchor->getLoc())
           << pass << ": option table='" << path << "': made for topology '"
           << t->topology << "', the module's is '"
           << (topo->name.empty() ? std::string("(custom)") : topo->name)
           << "'";
  algoTable = std::move(t);
  return success();
}
