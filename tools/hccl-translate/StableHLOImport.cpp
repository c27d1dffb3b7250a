//===- StableHLOImport.cpp - StableHLO collectives -> comm ----------------===//
//
// StableHLO is read in either form it is printed in: the pretty form JAX,
// torch_xla and StableHLO's tests write, through the reader dialect in
// dialects/stablehlo, and the generic form. The collectives stay generic,
// unregistered ops of that dialect, so every attribute they carry reaches
// the importer; any other name that is not one of the dialect's ops is an
// error naming it.
//
// Process groups follow the StableHLO specification: the grid is
// num_replicas x num_partitions (StableHLOGroups.h), each collective picks
// one of the four strategies from channel_handle and use_global_device_ids,
// and comm ranks are the spec's flattened process ids. Every attribute of a
// collective is either honoured or an error naming it.
//
//===----------------------------------------------------------------------===//
#include "StableHLOImport.h"
#include "StableHLOCost.h"
#include "StableHLOGroups.h"
#include "StableHLORegions.h"
#include "StableHLOSharding.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Dialect/StableHLO/Chlo.h"
#include "hccl-mlir/Dialect/StableHLO/Sdy.h"
#include "hccl-mlir/Dialect/StableHLO/StableHLO.h"
#include "hccl-mlir/schedule/Generate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::comm;
using shlo::GroupMode;
using shlo::Groups;

namespace {

constexpr llvm::StringLiteral kPrefix = "stablehlo.";

/// An attribute from the op's properties or its attribute dictionary.
Attribute getAttr(Operation *op, StringRef name) {
  if (Attribute a = op->getAttr(name))
    return a;
  if (auto props =
          dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
    return props.get(name);
  return {};
}

/// Most processes an import accepts (lib/schedule's largest group): ids
/// size the groups the importer builds, so an id of 2^40 must not become a
/// loop of 2^40.
constexpr int64_t kMaxProcesses = hccl::sched::kMaxRanks;

/// The ids of an id-list attribute, after checking that it is a dense
/// integer tensor of at most `2 * kMaxProcesses` elements (every id appears
/// once per group list; a pair list names each source once). The spec's
/// type is si64; any integer type is read by value.
FailureOr<SmallVector<int64_t>> getIds(Operation *op, DenseIntElementsAttr attr,
                                       StringRef name) {
  std::optional<int64_t> n = getStaticElementCount(attr.getType());
  if (!n || *n > 2 * kMaxProcesses)
    return op->emitError() << "'" << name << "' of type " << attr.getType()
                           << " lists more than " << 2 * kMaxProcesses
                           << " replica ids";
  bool isUnsigned = attr.getElementType().isUnsignedInteger();
  SmallVector<int64_t> ids;
  for (const APInt &v : attr.getValues<APInt>()) {
    std::optional<int64_t> id = stablehlo::intValue(v, isUnsigned);
    if (!id)
      return op->emitError() << "'" << name << "' holds "
                             << llvm::toString(v, 10, /*Signed=*/!isUnsigned)
                             << ", which does not fit in 64 bits";
    ids.push_back(*id);
  }
  return ids;
}

FailureOr<int64_t> getInt(Operation *op, StringRef name) {
  Attribute a = getAttr(op, name);
  if (!isa_and_nonnull<IntegerAttr>(a))
    return op->emitError() << "expected integer attribute '" << name << "'";
  std::optional<int64_t> v = stablehlo::intValue(a);
  if (!v)
    return op->emitError() << "'" << name << "' = " << a
                           << " does not fit in 64 bits";
  return *v;
}

/// The attributes each collective has in the spec; anything else is an
/// error (nothing is ignored).
ArrayRef<StringRef> knownAttributes(StringRef name) {
  static const StringRef allReduce[] = {"replica_groups", "channel_handle",
                                        "use_global_device_ids"};
  static const StringRef allGather[] = {"all_gather_dim", "replica_groups",
                                        "channel_handle",
                                        "use_global_device_ids"};
  static const StringRef reduceScatter[] = {"scatter_dimension",
                                            "replica_groups", "channel_handle",
                                            "use_global_device_ids"};
  static const StringRef allToAll[] = {"split_dimension", "concat_dimension",
                                       "split_count", "replica_groups",
                                       "channel_handle"};
  static const StringRef permute[] = {"source_target_pairs", "channel_handle"};
  static const StringRef broadcast[] = {"replica_groups", "channel_handle"};
  if (name == "all_reduce")
    return allReduce;
  if (name == "all_gather")
    return allGather;
  if (name == "reduce_scatter")
    return reduceScatter;
  if (name == "all_to_all")
    return allToAll;
  if (name == "collective_permute")
    return permute;
  if (name == "collective_broadcast")
    return broadcast;
  return {};
}

bool isCollective(StringRef name) { return !knownAttributes(name).empty(); }

class Importer {
public:
  Importer(ModuleOp module, const StableHLOImportOptions &opts)
      : module(module), opts(opts), b(module.getContext()) {}

  LogicalResult run() {
    if (failed(shlo::unwrapShardMap(module)) ||
        failed(shlo::refuseImplicitSharding(module)) ||
        failed(shlo::prepareCallsAndRegions(module)))
      return failure();
    // Collectives first, so groups exist before their users; then compute.
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      StringRef n = op->getName().getStringRef();
      if ((n.starts_with(kPrefix) || n.starts_with("chlo.")) &&
          op->getParentOp() && isa<func::FuncOp>(op->getParentOp()))
        ops.push_back(op);
    });
    if (failed(inferGrid(ops)))
      return failure();
    for (Operation *op : ops)
      if (failed(convert(op)))
        return failure();
    // Anything unregistered or StableHLO left (an op outside a function,
    // another dialect) cannot be scheduled.
    WalkResult r = module.walk([&](Operation *op) {
      if (!op->isRegistered() ||
          op->getName().getStringRef().starts_with(kPrefix)) {
        op->emitError() << "'" << op->getName()
                        << "' is outside a func.func body or not StableHLO; "
                           "the importer maps StableHLO functions only";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
    return verify(module);
  }

private:
  //===--------------------------------------------------------------------===//
  // The process grid
  //===--------------------------------------------------------------------===//

  /// num_replicas: --num-replicas, else the module's mhlo.num_replicas, else
  /// the largest id + 1 (accepted only with one partition and when the ids
  /// listed are at least that many: a partition of the replicas lists each
  /// once). num_partitions: --num-partitions, else mhlo.num_partitions, else
  /// 1. At most kMaxProcesses processes.
  LogicalResult inferGrid(ArrayRef<Operation *> ops) {
    auto moduleInt = [&](StringRef name) -> FailureOr<std::optional<int64_t>> {
      Attribute a = module->getAttr(name);
      if (!a)
        return std::optional<int64_t>();
      std::optional<int64_t> i = stablehlo::intValue(a);
      if (!i || *i < 1 || *i > kMaxProcesses)
        return module.emitError()
               << "'" << name << "' must be an integer in 1.." << kMaxProcesses
               << ", found " << a;
      return i;
    };
    auto tooMany = [&](int64_t n, StringRef from) {
      return module.emitError()
             << from << " gives " << n << " replicas; the importer accepts "
             << "1.." << kMaxProcesses;
    };
    FailureOr<std::optional<int64_t>> r = moduleInt("mhlo.num_replicas");
    FailureOr<std::optional<int64_t>> p = moduleInt("mhlo.num_partitions");
    if (failed(r) || failed(p))
      return failure();
    if (opts.numPartitions > 0) {
      if (opts.numPartitions > kMaxProcesses)
        return module.emitError()
               << "--num-partitions gives " << opts.numPartitions
               << " partitions; the importer accepts 1.." << kMaxProcesses;
      grid.partitions = opts.numPartitions;
      grid.partitionsFrom = "(--num-partitions)";
    } else if (*p) {
      grid.partitions = **p;
      grid.partitionsFrom = "(mhlo.num_partitions)";
    } else {
      grid.partitions = 1;
      grid.partitionsFrom = "(one partition: no mhlo.num_partitions)";
    }
    if (opts.numReplicas > 0) {
      if (opts.numReplicas > kMaxProcesses)
        return tooMany(opts.numReplicas, "--num-replicas");
      grid.replicas = opts.numReplicas;
      grid.replicasFrom = "(--num-replicas)";
    } else if (*r) {
      grid.replicas = **r;
      grid.replicasFrom = "(mhlo.num_replicas)";
    } else if (failed(inferReplicas(ops))) {
      return failure();
    }
    int64_t n = 0;
    if (llvm::MulOverflow(grid.replicas, grid.partitions, n) ||
        n > kMaxProcesses)
      return module.emitError()
             << grid.replicas << " replicas " << grid.replicasFrom << " x "
             << grid.partitions << " partitions " << grid.partitionsFrom
             << " exceed the " << kMaxProcesses
             << " processes the importer accepts";
    return success();
  }

  LogicalResult inferReplicas(ArrayRef<Operation *> ops) {
    int64_t maxId = -1, listed = 0;
    for (Operation *op : ops)
      for (StringRef name : {"replica_groups", "source_target_pairs"})
        if (auto a =
                dyn_cast_or_null<DenseIntElementsAttr>(getAttr(op, name))) {
          FailureOr<SmallVector<int64_t>> ids = getIds(op, a, name);
          if (failed(ids))
            return failure();
          for (int64_t v : *ids)
            maxId = std::max(maxId, v);
          listed = std::max<int64_t>(listed, ids->size());
        }
    if (maxId >= listed && maxId >= 0)
      return module.emitError()
             << "cannot infer the number of replicas: ids go up to " << maxId
             << " but no replica_groups or source_target_pairs lists that "
                "many; give --num-replicas";
    if (grid.partitions > 1 && maxId >= 0)
      return module.emitError()
             << "cannot infer the number of replicas of a program with "
             << grid.partitions << " partitions " << grid.partitionsFrom
             << " from its ids; give mhlo.num_replicas or --num-replicas";
    grid.replicas = maxId + 1;
    grid.replicasFrom = "(the largest id + 1)";
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  /// Every attribute is one the spec gives this collective.
  LogicalResult checkAttributes(Operation *op, StringRef name) {
    ArrayRef<StringRef> known = knownAttributes(name);
    SmallVector<NamedAttribute> all(op->getAttrs());
    if (auto props =
            dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
      llvm::append_range(all, props.getValue());
    for (NamedAttribute a : all) {
      StringRef n = a.getName();
      if (llvm::is_contained(known, n))
        continue;
      if (n == "use_global_device_ids")
        return op->emitError()
               << "'use_global_device_ids' is not an attribute of '"
               << op->getName()
               << "': the spec chooses its process groups from "
                  "channel_handle alone";
      return op->emitError() << "attribute '" << n << "' of '" << op->getName()
                             << "' is not honoured by the importer (it maps "
                             << llvm::join(known, ", ") << ")";
    }
    return success();
  }

  /// The spec's channel_id: the handle of
  /// `#stablehlo.channel_handle<handle = H, type = T>`, 0 without one. Only
  /// device-to-device channels (type 1, or 0 for none) carry collectives.
  FailureOr<int64_t> channelId(Operation *op) {
    Attribute ch = getAttr(op, "channel_handle");
    if (!ch)
      return 0;
    auto s = dyn_cast<stablehlo::StructAttr>(ch);
    std::optional<int64_t> handle, type;
    if (s && s.getKind() == "channel_handle") {
      handle = s.getInt("handle");
      type = s.getInt("type");
    }
    if (!handle || !type)
      return op->emitError() << "expected 'channel_handle' as "
                                "#stablehlo.channel_handle<handle = N, type = "
                                "T>, found "
                             << ch;
    if (*type != 0 && *type != 1)
      return op->emitError()
             << "'channel_handle' has type " << *type
             << " (2 = device-to-host, 3 = host-to-device): a collective "
                "needs a device-to-device channel (type 1, or 0 for none)";
    return *handle;
  }

  /// use_global_device_ids: a unit attribute, or a bool.
  bool globalDeviceIds(Operation *op) {
    Attribute a = getAttr(op, "use_global_device_ids");
    if (auto bl = dyn_cast_or_null<BoolAttr>(a))
      return bl.getValue();
    return static_cast<bool>(a);
  }

  /// The spec's strategy for this op (its "Semantics" section).
  FailureOr<GroupMode> modeOf(Operation *op, StringRef name, int64_t channel) {
    bool global = globalDeviceIds(op);
    if (name == "all_to_all" || name == "collective_permute" ||
        name == "collective_broadcast")
      return channel > 0 ? GroupMode::CrossPartition : GroupMode::CrossReplica;
    if (global && channel <= 0)
      return op->emitError() << "'use_global_device_ids' needs a channel_id "
                                "> 0 (spec constraint: flattened ids are "
                                "cross-partition); found channel_id "
                             << channel;
    if (global)
      return GroupMode::FlattenedIds;
    return channel > 0 ? GroupMode::CrossReplicaAndPartition
                       : GroupMode::CrossReplica;
  }

  //===--------------------------------------------------------------------===//
  // Groups
  //===--------------------------------------------------------------------===//

  /// An id of `mode`'s lists must name one of the grid's replicas,
  /// partitions or processes.
  LogicalResult checkId(Operation *op, StringRef name, GroupMode mode,
                        int64_t id) {
    int64_t n = shlo::idDomain(mode, grid);
    if (id >= 0 && id < n)
      return success();
    StringRef kind = shlo::idKind(mode);
    return op->emitError() << "'" << name << "' names " << kind << " " << id
                           << ", outside the " << n << " " << kind << "s (0.."
                           << n - 1 << ") " << shlo::idDomainFrom(mode, grid)
                           << " of " << shlo::modeName(mode);
  }

  /// The op's process groups: its replica_groups read under `mode` and
  /// expanded over the grid (flattened process ids).
  FailureOr<Groups> processGroups(Operation *op, GroupMode mode) {
    StringRef name = "replica_groups";
    auto attr = dyn_cast_or_null<DenseIntElementsAttr>(getAttr(op, name));
    if (!attr)
      return op->emitError()
             << "expected '" << name << "' as a dense integer tensor";
    auto type = cast<ShapedType>(attr.getType());
    if (type.getRank() != 2)
      return op->emitError()
             << "'" << name << "' must be a 2-D tensor, found " << type;
    Groups lists;
    if (getStaticElementCount(type) == 0) {
      // Empty: one group of every id (XLA's reading; flattened ids need a
      // list).
      if (mode == GroupMode::FlattenedIds)
        return op->emitError() << "empty '" << name
                               << "' with use_global_device_ids "
                                  "(flattened_ids) names no process";
      int64_t n = shlo::idDomain(mode, grid);
      if (n <= 0)
        return op->emitError()
               << "empty '" << name
               << "' means all replicas; give their number with "
                  "--num-replicas";
      lists.emplace_back();
      for (int64_t i = 0; i < n; ++i)
        lists.back().push_back(i);
    } else {
      FailureOr<SmallVector<int64_t>> values = getIds(op, attr, name);
      if (failed(values))
        return failure();
      int64_t cols = type.getDimSize(1);
      llvm::DenseSet<int64_t> seen;
      for (int64_t r = 0; r < type.getDimSize(0); ++r) {
        lists.emplace_back(values->begin() + r * cols,
                           values->begin() + (r + 1) * cols);
        for (int64_t v : lists.back()) {
          if (v < 0)
            return op->emitError()
                   << "'" << name
                   << "' is padded with -1 (replica groups of "
                      "unequal size); comm groups need equal-size subgroups";
          if (failed(checkId(op, name, mode, v)))
            return failure();
          if (!seen.insert(v).second)
            return op->emitError()
                   << "'" << name << "' lists " << shlo::idKind(mode) << " "
                   << v << " twice (the spec requires unique ids)";
        }
      }
    }
    return shlo::processGroups(mode, lists, grid);
  }

  /// A comm.group for these subgroups (one per distinct value).
  FlatSymbolRefAttr groupFor(ArrayRef<SmallVector<int64_t>> groups) {
    SmallVector<int64_t> flat;
    for (const auto &g : groups)
      flat.append(g.begin(), g.end());
    auto key = std::make_pair(flat, static_cast<int64_t>(groups[0].size()));
    auto it = groupNames.find(key);
    if (it != groupNames.end())
      return FlatSymbolRefAttr::get(module.getContext(), it->second);
    std::string name = "rg" + std::to_string(groupNames.size());
    OpBuilder gb = OpBuilder::atBlockBegin(module.getBody());
    for (Operation &o : *module.getBody())
      if (isa<GroupOp>(o))
        gb.setInsertionPointAfter(&o);
    gb.create<GroupOp>(
        module.getLoc(), gb.getStringAttr(name), gb.getDenseI64ArrayAttr(flat),
        gb.getI64IntegerAttr(groups[0].size()), FlatSymbolRefAttr());
    groupNames[key] = name;
    return FlatSymbolRefAttr::get(module.getContext(), name);
  }

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  /// sum / prod / max / min from a reduction region, or a diagnostic.
  /// The spec's is_promotable(T, E), as far as comm can carry it: the
  /// same type, or a float / integer of the same kind (and signedness)
  /// that is wider. Narrower rules than the spec's are refused by name.
  static bool promotable(Type t, Type e) {
    if (t == e)
      return true;
    if (isa<FloatType>(t) && isa<FloatType>(e))
      return t.getIntOrFloatBitWidth() < e.getIntOrFloatBitWidth();
    auto ti = dyn_cast<IntegerType>(t), ei = dyn_cast<IntegerType>(e);
    return ti && ei && ti.getWidth() > 1 &&
           ti.getSignedness() == ei.getSignedness() &&
           ti.getWidth() < ei.getWidth();
  }

  /// The reduction of an all_reduce / reduce_scatter and, in
  /// `computeType`, the element type E its computation reduces in.
  FailureOr<ReductionKind> reductionOf(Operation *op,
                                       Type *computeType = nullptr) {
    if (op->getNumRegions() != 1 || op->getRegion(0).empty())
      return op->emitError() << "expected a reduction region";
    Block &body = op->getRegion(0).front();
    auto fail = [&]() {
      return op->emitError()
             << "unsupported reduction region: expected one stablehlo.add, "
                "multiply, maximum or minimum of the two block arguments "
                "followed by stablehlo.return of its result";
    };
    if (body.getNumArguments() != 2 || body.getOperations().size() != 2)
      return fail();
    Operation &combine = body.front();
    Operation &ret = body.back();
    if (ret.getName().getStringRef() != "stablehlo.return" ||
        ret.getNumOperands() != 1 || ret.getOperand(0) != combine.getResult(0))
      return fail();
    if (combine.getNumOperands() != 2 ||
        !((combine.getOperand(0) == body.getArgument(0) &&
           combine.getOperand(1) == body.getArgument(1)) ||
          (combine.getOperand(0) == body.getArgument(1) &&
           combine.getOperand(1) == body.getArgument(0))))
      return fail();
    // The computation's element type E: the results' (spec), and every
    // operand's element type promotable to it (the operands are converted
    // to E before they are reduced).
    auto argType = dyn_cast<RankedTensorType>(body.getArgument(0).getType());
    if (!argType || argType.getRank() != 0 ||
        body.getArgument(1).getType() != argType ||
        combine.getResult(0).getType() != argType)
      return op->emitError() << "reduction region must take and return "
                                "tensor<E> of one element type E";
    Type e = argType.getElementType();
    for (Type t : op->getResultTypes())
      if (auto tt = dyn_cast<RankedTensorType>(t);
          tt && tt.getElementType() != e)
        return op->emitError() << "reduces in " << e << " but has a " << t
                               << " result (the spec's results are of the "
                                  "computation's element type)";
    for (Type t : op->getOperandTypes())
      if (auto tt = dyn_cast<RankedTensorType>(t);
          tt && !promotable(tt.getElementType(), e))
        return op->emitError()
               << "reduces in " << e << " but has a " << t
               << " operand, which does not promote to " << e
               << " (same kind, wider; a narrowing or cross-kind promotion "
                  "is not imported)";
    if (computeType)
      *computeType = e;
    StringRef k = combine.getName().getStringRef();
    if (k == "stablehlo.add")
      return ReductionKind::sum;
    if (k == "stablehlo.multiply")
      return ReductionKind::prod;
    if (k == "stablehlo.maximum")
      return ReductionKind::max;
    if (k == "stablehlo.minimum")
      return ReductionKind::min;
    return fail();
  }

  LogicalResult checkTensors(Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Type t : types)
      if (!isa<RankedTensorType>(t))
        return op->emitError() << "has a non-tensor operand or result (" << t
                               << "); only tensor collectives map to comm";
    if (op->getNumOperands() == 0 ||
        op->getNumOperands() != op->getNumResults())
      return op->emitError() << "has " << op->getNumOperands()
                             << " operands and " << op->getNumResults()
                             << " results; a collective maps each operand "
                                "to one result";
    if (op->getName().getStringRef() == "stablehlo.collective_permute" &&
        op->getNumOperands() != 1)
      return op->emitError()
             << "has " << op->getNumOperands()
             << " operands; the spec's collective_permute permutes one";
    return success();
  }

  /// Every process in some group (collective_broadcast's non-members get
  /// zeros by the spec, which comm.broadcast does not produce).
  LogicalResult checkCovers(Operation *op, const Groups &groups) {
    int64_t covered = 0;
    for (const auto &g : groups)
      covered += g.size();
    if (covered == grid.processes())
      return success();
    return op->emitError()
           << "'replica_groups' cover " << covered << " of the "
           << grid.processes()
           << " processes; the spec gives the others zeros, which "
              "comm.broadcast does not produce (list every process)";
  }

  LogicalResult convert(Operation *op) {
    b.setInsertionPoint(op);
    if (op->getName().getStringRef().starts_with("chlo."))
      return convertCompute(op); // CHLO math: compute like any other
    StringRef name = op->getName().getStringRef().drop_front(kPrefix.size());
    if (name == "send" || name == "recv")
      return op->emitError() << "'" << op->getName()
                             << "' is not imported: point-to-point channels "
                                "have no comm mapping yet";
    if (!isCollective(name))
      return convertCompute(op);
    if (failed(checkAttributes(op, name)) || failed(checkTensors(op)))
      return failure();
    FailureOr<int64_t> channel = channelId(op);
    if (failed(channel))
      return failure();
    FailureOr<GroupMode> mode = modeOf(op, name, *channel);
    if (failed(mode))
      return failure();
    SmallVector<Value> results;
    if (name == "collective_permute") {
      if (failed(convertPermute(op, *mode, results)))
        return failure();
    } else {
      FailureOr<Groups> g = processGroups(op, *mode);
      if (failed(g))
        return failure();
      // Zero replicas (none given, no id listed anywhere) expand any list
      // to no group.
      if (g->empty() || g->front().empty())
        return op->emitError()
               << "has no process group: " << grid.replicas << " replicas "
               << grid.replicasFrom << " x " << grid.partitions
               << " partitions " << grid.partitionsFrom
               << "; give the number of replicas with --num-replicas";
      if (failed(convertGrouped(op, name, *g, results)))
        return failure();
    }
    // replaceAllUsesWith pairs results up to the shorter list: any result
    // left over would keep uses of the erased op.
    if (results.size() != op->getNumResults())
      return op->emitError()
             << "maps to " << results.size() << " comm results for its "
             << op->getNumResults() << " results";
    for (Value v : results)
      if (*channel > 0)
        v.getDefiningOp()->setAttr("comm.channel",
                                   b.getI64IntegerAttr(*channel));
    op->replaceAllUsesWith(results);
    op->erase();
    return success();
  }

  /// The collectives on process groups; a variadic one (the spec's
  /// all_gather and all_to_all take several operands) becomes one comm op
  /// per operand, which is its meaning.
  LogicalResult convertGrouped(Operation *op, StringRef name,
                               const Groups &groups,
                               SmallVectorImpl<Value> &results) {
    Location loc = op->getLoc();
    FlatSymbolRefAttr group = groupFor(groups);
    int64_t p = static_cast<int64_t>(groups[0].size());
    if (name == "all_reduce") {
      Type e;
      FailureOr<ReductionKind> k = reductionOf(op, &e);
      if (failed(k))
        return failure();
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(promote(v, e, loc));
      auto ar =
          b.create<AllReduceOp>(loc, ReductionKindAttr::get(b.getContext(), *k),
                                operands, group, nullptr);
      llvm::append_range(results, ar.getResults());
      return success();
    }
    std::optional<ReductionKind> kind;
    Type reduceType;
    if (name == "reduce_scatter") {
      FailureOr<ReductionKind> k = reductionOf(op, &reduceType);
      if (failed(k))
        return failure();
      kind = *k;
    }
    if (name == "collective_broadcast" && failed(checkCovers(op, groups)))
      return failure();
    for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i) {
      Value in = op->getOperand(i);
      Type out = op->getResult(i).getType();
      Operation *repl = nullptr;
      if (name == "all_gather") {
        FailureOr<int64_t> d = getInt(op, "all_gather_dim");
        if (failed(d))
          return failure();
        repl = b.create<AllGatherOp>(loc, out, in, group,
                                     b.getI64IntegerAttr(*d), nullptr);
      } else if (name == "reduce_scatter") {
        FailureOr<int64_t> d = getInt(op, "scatter_dimension");
        if (failed(d))
          return failure();
        repl = b.create<ReduceScatterOp>(
            loc, out, ReductionKindAttr::get(b.getContext(), *kind),
            promote(in, reduceType, loc), group, b.getI64IntegerAttr(*d),
            nullptr);
      } else if (name == "all_to_all") {
        FailureOr<int64_t> s = getInt(op, "split_dimension");
        FailureOr<int64_t> c = getInt(op, "concat_dimension");
        FailureOr<int64_t> n = getInt(op, "split_count");
        if (failed(s) || failed(c) || failed(n))
          return failure();
        if (*n != p)
          return op->emitError()
                 << "split_count " << *n
                 << " differs from the replica group size " << p;
        repl =
            b.create<AllToAllOp>(loc, out, in, group, b.getI64IntegerAttr(*s),
                                 b.getI64IntegerAttr(*c), nullptr);
      } else { // collective_broadcast: the root is each group's first.
        repl = b.create<BroadcastOp>(loc, out, in, group,
                                     b.getI64IntegerAttr(0), nullptr);
      }
      results.push_back(repl->getResult(0));
    }
    return success();
  }

  /// collective_permute: the spec's pairs (of replicas, or of partitions
  /// with a channel) expanded over the grid, on the group of all processes.
  LogicalResult convertPermute(Operation *op, GroupMode mode,
                               SmallVectorImpl<Value> &results) {
    StringRef name = "source_target_pairs";
    auto pairs = dyn_cast_or_null<DenseIntElementsAttr>(getAttr(op, name));
    if (!pairs || cast<ShapedType>(pairs.getType()).getRank() != 2 ||
        cast<ShapedType>(pairs.getType()).getDimSize(1) != 2)
      return op->emitError() << "expected 'source_target_pairs' as an Nx2 "
                                "integer tensor";
    if (grid.processes() <= 0)
      return op->emitError() << "cannot tell the number of replicas; give "
                                "--num-replicas";
    FailureOr<SmallVector<int64_t>> ids = getIds(op, pairs, name);
    if (failed(ids))
      return failure();
    llvm::DenseSet<int64_t> sources, targets;
    for (size_t i = 0; i < ids->size(); ++i) {
      int64_t v = (*ids)[i];
      if (failed(checkId(op, name, mode, v)))
        return failure();
      if (!(i % 2 ? targets : sources).insert(v).second)
        return op->emitError()
               << "'" << name << "' has " << shlo::idKind(mode) << " " << v
               << " as a " << (i % 2 ? "target" : "source")
               << " twice (the spec requires unique ones)";
    }
    Groups world(1);
    for (int64_t i = 0; i < grid.processes(); ++i)
      world[0].push_back(i);
    auto perm = b.create<PermuteOp>(
        op->getLoc(), op->getResultTypes()[0], op->getOperand(0),
        groupFor(world),
        b.getDenseI64ArrayAttr(shlo::processPairs(mode, *ids, grid)),
        AlgorithmAttr());
    results.push_back(perm.getResult());
    return success();
  }

  /// Opaque compute: same operands and results, the op name for a name,
  /// and the FLOPs and bytes the cost model prices it from
  /// (StableHLOCost.h).
  /// `v` converted to element type `e` (stablehlo.convert, as the spec
  /// promotes a reduction's operands to its computation's type), or `v`.
  Value promote(Value v, Type e, Location loc) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!e || !t || t.getElementType() == e)
      return v;
    auto to = RankedTensorType::get(t.getShape(), e);
    std::optional<int64_t> n = getStaticElementCount(t); // none on overflow
    auto figure = [&](std::optional<double> x) {
      return x ? b.getF64FloatAttr(*x) : FloatAttr();
    };
    std::optional<double> flops, bytes;
    if (n) {
      flops = static_cast<double>(*n);
      bytes = static_cast<double>(*n) * ((t.getElementTypeBitWidth() + 7) / 8 +
                                         (e.getIntOrFloatBitWidth() + 7) / 8);
    }
    auto c = b.create<ComputeOp>(loc, TypeRange{to},
                                 b.getStringAttr("stablehlo.convert"),
                                 ValueRange{v}, figure(flops), figure(bytes));
    return c->getResult(0);
  }

  LogicalResult convertCompute(Operation *op) {
    if (op->getNumResults() == 0) {
      op->emitWarning() << "dropped: '" << op->getName()
                        << "' has no results to schedule";
      op->erase();
      return success();
    }
    // comm.compute does not check this itself, and a count past int64 is
    // nothing the cost model or the runtime can size.
    if (failed(verifySizesFit(op)))
      return failure();
    shlo::ComputeCost cost = shlo::computeCost(op);
    auto figure = [&](std::optional<double> v) {
      return v ? b.getF64FloatAttr(*v) : FloatAttr();
    };
    auto c = b.create<ComputeOp>(op->getLoc(), op->getResultTypes(),
                                 b.getStringAttr(op->getName().getStringRef()),
                                 op->getOperands(), figure(cost.flops),
                                 figure(cost.bytes));
    op->replaceAllUsesWith(c->getResults());
    op->erase();
    return success();
  }

  ModuleOp module;
  const StableHLOImportOptions &opts;
  OpBuilder b;
  shlo::ProcessGrid grid;
  std::map<std::pair<SmallVector<int64_t>, int64_t>, std::string> groupNames;
};

} // namespace

/// MLIR bytecode starts with these four bytes (StableHLO's portable
/// artifacts are VHLO in bytecode).
static bool isBytecode(StringRef text) {
  return text.starts_with(StringRef("ML\xefR", 4));
}

OwningOpRef<ModuleOp> mlir::comm::parseStableHLO(llvm::SourceMgr &sm,
                                                 MLIRContext *ctx) {
  const llvm::MemoryBuffer *buf = sm.getMemoryBuffer(sm.getMainFileID());
  if (isBytecode(buf->getBuffer())) {
    emitError(FileLineColLoc::get(ctx, buf->getBufferIdentifier(), 1, 1))
        << "this is MLIR bytecode (a StableHLO portable artifact is VHLO "
           "bytecode); the importer reads StableHLO text: run "
           "`stablehlo-translate --deserialize FILE > FILE.mlir` first";
    return nullptr;
  }
  // Other dialects (mhlo, sdy, ...) parse opaque, for the importer to name.
  ctx->allowUnregisteredDialects(true);
  ctx->loadDialect<CommDialect, func::FuncDialect, stablehlo::StableHLODialect,
                   sdy::SdyDialect, chlo::ChloDialect>();
  // An unknown op in the pretty form fails the parse: say which names exist.
  // Other errors go out as they come (before the parser's cleanup, which
  // MLIR 19 can crash in: tools/common/Contained.cpp).
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      std::string text = d.str();
      StringRef msg = text;
      StringRef name;
      // Shardy ops other than shard_map's (sdy.reshard, ...), pretty or
      // generic.
      if (msg.starts_with("Dialect `sdy' not found") ||
          (msg.contains("'sdy.") &&
           (msg.contains("is unknown") || msg.contains("unregistered")))) {
        emitError(d.getLocation()) << shlo::shardyAdvice();
        return success();
      }
      if (msg.consume_front("custom op '") && msg.contains("' is unknown"))
        name = msg.take_until([](char c) { return c == '\''; });
      if (name.starts_with("chlo.")) {
        emitError(d.getLocation())
            << "'" << name
            << "' is not a CHLO op the importer reads (the op list is in "
               "docs/stablehlo-import.md)";
        return success();
      }
      if (!name.starts_with("stablehlo.") && !name.starts_with("vhlo."))
        return failure();
      StringRef mnemonic = name.split('.').second;
      InFlightDiagnostic e = emitError(d.getLocation());
      if (name.starts_with("vhlo."))
        e << "'" << name
          << "' is VHLO (StableHLO's portable form): run `stablehlo-translate "
             "--deserialize` first and import its StableHLO text";
      else if (stablehlo::StableHLODialect::isGenericCollective(mnemonic))
        e << "'" << name << "' has no pretty form: StableHLO prints it "
          << "generic, as \"" << name << "\"(...)";
      else
        e << "'" << name
          << "' is not a StableHLO op the importer reads (the op list is in "
             "docs/stablehlo-import.md)";
      return success();
    });
    module = parseSourceFile<ModuleOp>(sm, ctx);
  }
  if (!module)
    return nullptr;
  // The dialect lets unknown ops parse in the generic form, for the
  // collectives; any other is named here.
  WalkResult r = module->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    auto [dialect, mnemonic] = name.split('.');
    if (op->isRegistered() ||
        (dialect == "stablehlo" &&
         stablehlo::StableHLODialect::isGenericCollective(mnemonic)) ||
        (dialect != "stablehlo" && dialect != "vhlo"))
      return WalkResult::advance();
    if (dialect == "vhlo")
      op->emitError() << "'" << name
                      << "' is VHLO (StableHLO's portable form): run "
                         "`stablehlo-translate --deserialize` first and "
                         "import its StableHLO text";
    else
      op->emitError() << "'" << name
                      << "' is not a StableHLO op the importer reads (the op "
                         "list is in docs/stablehlo-import.md)";
    return WalkResult::interrupt();
  });
  if (r.wasInterrupted())
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
mlir::comm::importStableHLO(llvm::SourceMgr &sm, MLIRContext *ctx,
                            const StableHLOImportOptions &opts) {
  OwningOpRef<ModuleOp> module = parseStableHLO(sm, ctx);
  if (!module)
    return nullptr;
  Importer imp(*module, opts);
  if (failed(imp.run()))
    return nullptr;
  ctx->allowUnregisteredDialects(false);
  return module;
}
