//===- CommOps.cpp - comm ops: parsing, verification, type inference ------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::comm;

#include "hccl-mlir/Dialect/Comm/CommInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

GroupOp mlir::comm::lookupGroup(Operation *op, FlatSymbolRefAttr group) {
  if (!group)
    return {};
  return SymbolTable::lookupNearestSymbolFrom<GroupOp>(op, group);
}

TopologyAttr mlir::comm::getTopology(Operation *op) {
  ModuleOp module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  while (module) {
    if (auto t = module->getAttrOfType<TopologyAttr>(
            CommDialect::getTopologyAttrName()))
      return t;
    module = module->getParentOfType<ModuleOp>();
  }
  return {};
}

std::optional<int64_t>
mlir::comm::getRanksPerServer(GroupOp group, const hccl::sched::Topology &topo,
                              bool perPod) {
  std::vector<std::vector<int64_t>> subgroups;
  for (int64_t g = 0, e = group.getNumSubgroups(); g < e; ++g) {
    ArrayRef<int64_t> ranks = group.getSubgroup(g);
    subgroups.emplace_back(ranks.begin(), ranks.end());
  }
  auto pl = hccl::sched::placeGroup(topo, subgroups);
  if (pl && perPod)
    return pl->podHierarchical() ? std::optional(pl->ranksPerPod)
                                 : std::nullopt;
  if (!pl || pl->ranksPerServer == 0)
    return std::nullopt;
  return pl->ranksPerServer;
}

std::optional<hccl::sched::Collective>
mlir::comm::getScheduleCollective(Operation *op) {
  using hccl::sched::Collective;
  return llvm::TypeSwitch<Operation *, std::optional<Collective>>(op)
      .Case([](AllReduceOp) { return Collective::AllReduce; })
      .Case([](AllGatherOp) { return Collective::AllGather; })
      .Case([](ReduceScatterOp) { return Collective::ReduceScatter; })
      .Case([](BroadcastOp) { return Collective::Broadcast; })
      .Case([](ReduceOp) { return Collective::Reduce; })
      .Case([](AllToAllOp) { return Collective::AllToAll; })
      .Case([](PermuteOp) { return Collective::Permute; })
      .Default([](Operation *) { return std::nullopt; });
}

static int64_t outerOf(Type t, int64_t dim) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || dim > rt.getRank())
    return 1;
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) {
    if (rt.isDynamicDim(d))
      return 1;
    outer *= rt.getDimSize(d);
  }
  return outer;
}

BlockLayout mlir::comm::getBlockLayout(Operation *op) {
  BlockLayout l;
  if (op->getNumOperands() == 0 || op->getNumResults() == 0)
    return l;
  Type in = op->getOperand(0).getType(), out = op->getResult(0).getType();
  if (auto g = dyn_cast<AllGatherOp>(op))
    l.outputOuter = outerOf(in, g.getDimAttr().getInt());
  else if (auto r = dyn_cast<ReduceScatterOp>(op))
    l.inputOuter = outerOf(in, r.getDimAttr().getInt());
  else if (auto a = dyn_cast<AllToAllOp>(op)) {
    l.inputOuter = outerOf(in, a.getSplitDimAttr().getInt());
    l.outputOuter = outerOf(out, a.getConcatDimAttr().getInt());
  }
  return l;
}

std::optional<int64_t> mlir::comm::getPayloadBytes(CollectiveOpInterface op) {
  int64_t total = 0;
  auto add = [&](Type t) -> bool {
    std::optional<int64_t> b = getStaticByteSize(t);
    return b && !llvm::AddOverflow(total, *b, total);
  };
  // recv has no payload operand: its result is what moves.
  if (auto recv = dyn_cast<RecvOp>(op.getOperation()))
    return add(recv.getType()) ? std::optional<int64_t>(total) : std::nullopt;
  for (Value v : op.getPayload())
    if (!add(v.getType()))
      return std::nullopt;
  return total;
}

/// Resolves the group of `op` for verifySymbolUses and returns its size p.
static FailureOr<int64_t> verifyGroupRef(Operation *op,
                                         SymbolTableCollection &tables,
                                         FlatSymbolRefAttr group) {
  auto g = tables.lookupNearestSymbolFrom<GroupOp>(op, group);
  if (!g) {
    Operation *other = tables.lookupNearestSymbolFrom(op, group);
    if (other)
      return op->emitOpError()
             << "expected " << group << " to be a comm.group, found '"
             << other->getName() << "'";
    return op->emitOpError() << "references unknown group " << group;
  }
  return g.getGroupSize();
}

/// Checks one dimension of a gather/scatter relation: big = p * small.
static LogicalResult verifyScaledDim(Operation *op, StringRef what, int64_t dim,
                                     int64_t small, int64_t big, int64_t p) {
  if (ShapedType::isDynamic(small) || ShapedType::isDynamic(big))
    return success();
  int64_t expected;
  if (llvm::MulOverflow(small, p, expected))
    return op->emitOpError()
           << what << " along dim " << dim << ": " << small << " x group size "
           << p << " does not fit in a 64-bit count";
  if (big != expected)
    return op->emitOpError()
           << what << " along dim " << dim << ": expected " << expected << " ("
           << small << " x group size " << p << "), found " << big;
  return success();
}

/// Element type and rank equal; every dim except `except` (and `except2`)
/// equal.
static LogicalResult verifySameShapeExcept(Operation *op, RankedTensorType a,
                                           RankedTensorType b, int64_t except,
                                           int64_t except2 = -1) {
  if (a.getElementType() != b.getElementType())
    return op->emitOpError()
           << "expected result element type " << a.getElementType()
           << ", found " << b.getElementType();
  if (a.getRank() != b.getRank())
    return op->emitOpError() << "expected result rank " << a.getRank()
                             << ", found " << b.getRank();
  for (int64_t d = 0; d < a.getRank(); ++d) {
    if (d == except || d == except2)
      continue;
    if (!ShapedType::isDynamic(a.getDimSize(d)) &&
        !ShapedType::isDynamic(b.getDimSize(d)) &&
        a.getDimSize(d) != b.getDimSize(d))
      return op->emitOpError()
             << "expected result dim " << d << " to be " << a.getDimSize(d)
             << " (unchanged), found " << b.getDimSize(d);
  }
  return success();
}

static LogicalResult verifyDimInRange(Operation *op, StringRef name,
                                      int64_t dim, RankedTensorType t) {
  if (dim < 0 || dim >= t.getRank())
    return op->emitOpError()
           << name << " " << dim << " out of range: expected 0.."
           << t.getRank() - 1 << " for " << t;
  return success();
}

static LogicalResult verifyRankIndex(Operation *op, StringRef name,
                                     int64_t value, int64_t p) {
  if (value < 0 || value >= p)
    return op->emitOpError() << name << " " << value
                             << " is outside the group: expected 0.." << p - 1;
  return success();
}

/// custom<ReductionKind>: the bare keyword (sum, prod, max, min).
static ParseResult parseReductionKind(OpAsmParser &parser,
                                      ReductionKindAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kw;
  if (parser.parseKeyword(&kw))
    return failure();
  std::optional<ReductionKind> k = symbolizeReductionKind(kw);
  if (!k)
    return parser.emitError(loc) << "unknown reduction '" << kw
                                 << "'; expected sum, prod, max or min";
  attr = ReductionKindAttr::get(parser.getContext(), *k);
  return success();
}

static void printReductionKind(OpAsmPrinter &p, Operation *,
                               ReductionKindAttr attr) {
  p << stringifyReductionKind(attr.getValue());
}

//===----------------------------------------------------------------------===//
// GroupOp
//===----------------------------------------------------------------------===//

// comm.group @tp ranks = [[0, 1], [2, 3]] parent @dp {attrs}
ParseResult GroupOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseKeyword("ranks") || parser.parseEqual())
    return failure();
  SmallVector<int64_t> ranks;
  int64_t groupSize = -1;
  SMLoc listLoc = parser.getCurrentLocation();
  auto parseInt = [&]() -> ParseResult {
    int64_t v;
    if (parser.parseInteger(v))
      return failure();
    ranks.push_back(v);
    return success();
  };
  if (parser.parseLSquare())
    return failure();
  if (succeeded(parser.parseOptionalRSquare())) {
    groupSize = 0;
  } else if (succeeded(parser.parseOptionalLSquare())) {
    // Partition form: a list of equal-size subgroups.
    bool first = true;
    do {
      if (!first && parser.parseLSquare())
        return failure();
      first = false;
      size_t before = ranks.size();
      if (parser.parseCommaSeparatedList(parseInt) || parser.parseRSquare())
        return failure();
      int64_t n = static_cast<int64_t>(ranks.size() - before);
      if (groupSize < 0)
        groupSize = n;
      else if (n != groupSize)
        return parser.emitError(listLoc)
               << "subgroups must have equal sizes: expected " << groupSize
               << " ranks, found " << n;
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRSquare())
      return failure();
  } else {
    if (parser.parseCommaSeparatedList(parseInt) || parser.parseRSquare())
      return failure();
    groupSize = static_cast<int64_t>(ranks.size());
  }
  Builder &b = parser.getBuilder();
  result.addAttribute(getRanksAttrName(result.name),
                      b.getDenseI64ArrayAttr(ranks));
  result.addAttribute(getGroupSizeAttrName(result.name),
                      b.getI64IntegerAttr(groupSize));
  if (succeeded(parser.parseOptionalKeyword("parent"))) {
    FlatSymbolRefAttr parent;
    if (parser.parseAttribute(parent, getParentAttrName(result.name),
                              result.attributes))
      return failure();
  }
  return parser.parseOptionalAttrDict(result.attributes);
}

void GroupOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << " ranks = ";
  ArrayRef<int64_t> ranks = getRanks();
  int64_t size = getGroupSize();
  auto printList = [&](ArrayRef<int64_t> l) {
    p << '[';
    llvm::interleaveComma(l, p);
    p << ']';
  };
  if (size <= 0 || getNumSubgroups() <= 1) {
    printList(ranks);
  } else {
    p << '[';
    for (int64_t i = 0, e = getNumSubgroups(); i < e; ++i) {
      if (i)
        p << ", ";
      printList(getSubgroup(i));
    }
    p << ']';
  }
  if (auto parent = getParentAttr())
    p << " parent " << parent;
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSymNameAttrName(), getRanksAttrName(),
                           getGroupSizeAttrName(), getParentAttrName()});
}

LogicalResult GroupOp::verify() {
  ArrayRef<int64_t> ranks = getRanks();
  int64_t size = getGroupSize();
  if (ranks.empty())
    return emitOpError() << "expected at least one rank, found an empty group";
  if (size < 1 || static_cast<int64_t>(ranks.size()) % size != 0)
    return emitOpError() << "group_size " << size << " does not divide the "
                         << ranks.size() << " ranks into equal subgroups";
  llvm::DenseSet<int64_t> seen;
  for (int64_t r : ranks) {
    if (r < 0)
      return emitOpError() << "rank " << r << " is negative";
    if (!seen.insert(r).second)
      return emitOpError() << "rank " << r << " appears more than once";
  }
  if (TopologyAttr topo = getTopology(*this)) {
    int64_t world = topo.getWorldSize();
    for (int64_t r : ranks)
      if (r >= world)
        return emitOpError()
               << "rank " << r << " out of range: the topology has " << world
               << " ranks (0.." << world - 1 << ")";
  }
  return success();
}

LogicalResult GroupOp::verifySymbolUses(SymbolTableCollection &tables) {
  FlatSymbolRefAttr parentRef = getParentAttr();
  if (!parentRef)
    return success();
  auto parent = tables.lookupNearestSymbolFrom<GroupOp>(*this, parentRef);
  if (!parent)
    return emitOpError() << "parent " << parentRef
                         << " is not a comm.group in scope";
  if (parent == *this)
    return emitOpError() << "a group cannot be its own parent";
  llvm::DenseSet<int64_t> parentRanks(parent.getRanks().begin(),
                                      parent.getRanks().end());
  for (int64_t r : getRanks())
    if (!parentRanks.contains(r))
      return emitOpError() << "rank " << r << " is not in parent group "
                           << parentRef;
  return success();
}

//===----------------------------------------------------------------------===//
// AllReduceOp
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            ValueRange operands, DictionaryAttr,
                                            OpaqueProperties, RegionRange,
                                            SmallVectorImpl<Type> &inferred) {
  for (Value v : operands)
    inferred.push_back(v.getType());
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expected at least one input tensor, found none";
  for (auto [i, in, out] :
       llvm::enumerate(getInputs().getTypes(), getResults().getTypes()))
    if (in != out)
      return emitOpError() << "result #" << i
                           << " must have the type of input #" << i << " ("
                           << in << "), found " << out;
  return success();
}

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyGroupRef(*this, tables, getGroupAttr());
}

std::optional<ReductionKind> AllReduceOp::getReductionKind() {
  return getKind();
}

//===----------------------------------------------------------------------===//
// AllGatherOp / ReduceScatterOp
//===----------------------------------------------------------------------===//

LogicalResult AllGatherOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (failed(verifyDimInRange(*this, "gather dim", getDimAttr().getInt(), in)))
    return failure();
  return verifySameShapeExcept(*this, in, out, getDimAttr().getInt());
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  int64_t d = getDimAttr().getInt();
  return verifyScaledDim(*this, "result size", d,
                         getInput().getType().getDimSize(d),
                         getResult().getType().getDimSize(d), *p);
}

LogicalResult ReduceScatterOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (failed(verifyDimInRange(*this, "scatter dim", getDimAttr().getInt(), in)))
    return failure();
  return verifySameShapeExcept(*this, in, out, getDimAttr().getInt());
}

LogicalResult ReduceScatterOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  int64_t d = getDimAttr().getInt();
  return verifyScaledDim(*this, "input size", d,
                         getResult().getType().getDimSize(d),
                         getInput().getType().getDimSize(d), *p);
}

std::optional<ReductionKind> ReduceScatterOp::getReductionKind() {
  return getKind();
}

//===----------------------------------------------------------------------===//
// BroadcastOp / ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  if (getRootAttr().getInt() < 0)
    return emitOpError() << "root " << getRootAttr().getInt()
                         << " is negative: expected a rank of the group";
  return success();
}

LogicalResult BroadcastOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  return verifyRankIndex(*this, "root", getRootAttr().getInt(), *p);
}

LogicalResult ReduceOp::verify() {
  if (getRootAttr().getInt() < 0)
    return emitOpError() << "root " << getRootAttr().getInt()
                         << " is negative: expected a rank of the group";
  return success();
}

LogicalResult ReduceOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  return verifyRankIndex(*this, "root", getRootAttr().getInt(), *p);
}

std::optional<ReductionKind> ReduceOp::getReductionKind() { return getKind(); }

//===----------------------------------------------------------------------===//
// AllToAllOp
//===----------------------------------------------------------------------===//

LogicalResult AllToAllOp::verify() {
  auto in = getInput().getType(), out = getResult().getType();
  if (failed(verifyDimInRange(*this, "split_dim", getSplitDimAttr().getInt(),
                              in)) ||
      failed(verifyDimInRange(*this, "concat_dim", getConcatDimAttr().getInt(),
                              in)))
    return failure();
  return verifySameShapeExcept(*this, in, out, getSplitDimAttr().getInt(),
                               getConcatDimAttr().getInt());
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  auto in = getInput().getType(), out = getResult().getType();
  int64_t s = getSplitDimAttr().getInt(), c = getConcatDimAttr().getInt();
  int64_t inS = in.getDimSize(s);
  if (!ShapedType::isDynamic(inS) && inS % *p != 0)
    return emitOpError() << "split_dim " << s << " has size " << inS
                         << ", expected a multiple of the group size " << *p;
  if (s == c)
    return verifyScaledDim(*this, "result size", s, inS, out.getDimSize(s), 1);
  if (!ShapedType::isDynamic(inS) &&
      failed(
          verifyScaledDim(*this, "result size", s, out.getDimSize(s), inS, *p)))
    return failure();
  return verifyScaledDim(*this, "result size", c, in.getDimSize(c),
                         out.getDimSize(c), *p);
}

//===----------------------------------------------------------------------===//
// PermuteOp
//===----------------------------------------------------------------------===//

// custom<Pairs>: [[s, t], [s, t], ...] stored flat.
static ParseResult parsePairs(OpAsmParser &parser, DenseI64ArrayAttr &attr) {
  SmallVector<int64_t> flat;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t a, b;
            if (parser.parseLSquare() || parser.parseInteger(a) ||
                parser.parseComma() || parser.parseInteger(b) ||
                parser.parseRSquare())
              return failure();
            flat.push_back(a);
            flat.push_back(b);
            return success();
          }))
    return failure();
  attr = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printPairs(OpAsmPrinter &p, Operation *, DenseI64ArrayAttr attr) {
  p << '[';
  for (int64_t i = 0, e = attr.size() / 2; i < e; ++i)
    p << (i ? ", [" : "[") << attr[2 * i] << ", " << attr[2 * i + 1] << ']';
  p << ']';
}

LogicalResult PermuteOp::verify() {
  ArrayRef<int64_t> pairs = getPairs();
  if (pairs.size() % 2 != 0)
    return emitOpError() << "pairs must hold (source, target) pairs, found "
                         << pairs.size() << " values";
  llvm::DenseSet<int64_t> sources, targets;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    if (pairs[i] < 0 || pairs[i + 1] < 0)
      return emitOpError() << "pair [" << pairs[i] << ", " << pairs[i + 1]
                           << "] has a negative rank";
    if (!sources.insert(pairs[i]).second)
      return emitOpError() << "rank " << pairs[i]
                           << " is the source of more than one pair";
    if (!targets.insert(pairs[i + 1]).second)
      return emitOpError() << "rank " << pairs[i + 1]
                           << " is the target of more than one pair";
  }
  return success();
}

LogicalResult PermuteOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  for (int64_t r : getPairs())
    if (failed(verifyRankIndex(*this, "pair rank", r, *p)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// SendOp / RecvOp / BarrierOp
//===----------------------------------------------------------------------===//

LogicalResult SendOp::verify() {
  if (getPeerAttr().getInt() < 0)
    return emitOpError() << "peer " << getPeerAttr().getInt() << " is negative";
  if (getTagAttr().getInt() < 0)
    return emitOpError() << "tag " << getTagAttr().getInt() << " is negative";
  return success();
}

LogicalResult SendOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  return verifyRankIndex(*this, "peer", getPeerAttr().getInt(), *p);
}

LogicalResult RecvOp::verify() {
  if (getPeerAttr().getInt() < 0)
    return emitOpError() << "peer " << getPeerAttr().getInt() << " is negative";
  if (getTagAttr().getInt() < 0)
    return emitOpError() << "tag " << getTagAttr().getInt() << " is negative";
  return success();
}

LogicalResult RecvOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto p = verifyGroupRef(*this, tables, getGroupAttr());
  if (failed(p))
    return failure();
  return verifyRankIndex(*this, "peer", getPeerAttr().getInt(), *p);
}

LogicalResult BarrierOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyGroupRef(*this, tables, getGroupAttr());
}

//===----------------------------------------------------------------------===//
// ComputeOp
//===----------------------------------------------------------------------===//

LogicalResult ComputeOp::verify() {
  if (getOutputs().empty())
    return emitOpError() << "expected at least one output: a compute op "
                            "without results would be dead code";
  for (auto [name, attr] : {std::make_pair("flops", getFlopsAttr()),
                            std::make_pair("bytes", getBytesAttr())})
    if (attr && !(attr.getValueAsDouble() >= 0 &&
                  std::isfinite(attr.getValueAsDouble())))
      return emitOpError() << name << " must be a finite number >= 0, found "
                           << attr.getValueAsDouble();
  return success();
}

//===----------------------------------------------------------------------===//
// StartOp / WaitOp
//===----------------------------------------------------------------------===//

Operation *StartOp::getCollective() {
  Block &body = getBody().front();
  return body.empty() ? nullptr : &body.front();
}

YieldOp StartOp::getYield() {
  Block &body = getBody().front();
  return body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
}

WaitOp StartOp::getWait() {
  if (!getToken().hasOneUse())
    return {};
  return dyn_cast<WaitOp>(*getToken().getUsers().begin());
}

LogicalResult StartOp::verify() {
  Block &body = getBody().front();
  if (body.getOperations().size() != 2)
    return emitOpError() << "body must hold exactly one communication op and "
                            "a comm.yield, found "
                         << body.getOperations().size() << " ops";
  Operation *coll = &body.front();
  if (!isa<CollectiveOpInterface>(coll))
    return emitOpError() << "expected a communication op in the body, found '"
                         << coll->getName() << "'";
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError() << "body must end with comm.yield";
  if (yield.getValues() != coll->getResults())
    return emitOpError() << "comm.yield must yield the "
                         << coll->getNumResults() << " result(s) of '"
                         << coll->getName() << "' in order";
  size_t uses = std::distance(getToken().use_begin(), getToken().use_end());
  if (uses != 1)
    return emitOpError() << "token must be consumed by exactly one comm.wait, "
                         << (uses == 0 ? "but it is never waited"
                                       : "but it is used " +
                                             std::to_string(uses) + " times");
  Operation *user = *getToken().getUsers().begin();
  if (!isa<WaitOp>(user))
    return emitOpError() << "token may only be consumed by comm.wait, found '"
                         << user->getName() << "'";
  if (user->getBlock() != (*this)->getBlock())
    return emitOpError() << "token must be waited in the block of its "
                            "comm.start, found its comm.wait in another block";
  return success();
}

StartOp WaitOp::getStart() { return getToken().getDefiningOp<StartOp>(); }

LogicalResult WaitOp::verify() {
  StartOp start = getStart();
  if (!start)
    return emitOpError() << "token must come from a comm.start in the same "
                            "block";
  YieldOp yield = start.getYield();
  if (!yield)
    return success(); // reported by comm.start
  if (yield.getValues().getTypes() != getResults().getTypes()) {
    InFlightDiagnostic d = emitOpError() << "result types (";
    llvm::interleaveComma(getResults().getTypes(), d);
    d << ") must match the started op's results (";
    llvm::interleaveComma(yield.getValues().getTypes(), d);
    return d << ")";
  }
  return success();
}

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/Comm/CommOps.cpp.inc"
