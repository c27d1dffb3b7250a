//===- StableHLOImport.cpp - StableHLO collectives -> comm ----------------===//
//
// Debian's MLIR 19 has no StableHLO dialect, and linking one would pull a
// second LLVM-sized dependency for the handful of ops we map. The generic op
// form carries everything we need (operands, attributes, regions), so we
// parse it with unregistered dialects allowed and read the ops by name.
//
//===----------------------------------------------------------------------===//
#include "StableHLOImport.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Generate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::comm;

namespace {

constexpr llvm::StringLiteral kPrefix = "stablehlo.";

/// An attribute from the op's properties or its attribute dictionary.
Attribute getAttr(Operation *op, StringRef name) {
  if (Attribute a = op->getAttr(name))
    return a;
  if (auto props = dyn_cast_or_null<DictionaryAttr>(
          op->getPropertiesAsAttribute()))
    return props.get(name);
  return {};
}

/// Most replica ids an import accepts (lib/schedule's largest group): ids
/// size the groups the importer builds, so an id of 2^40 must not become a
/// loop of 2^40.
constexpr int64_t kMaxReplicas = hccl::sched::kMaxRanks;

/// The ids of a replica-id attribute, after checking that it is a dense
/// integer tensor of at most `2 * kMaxReplicas` elements (every id appears
/// once per group list; a pair list names each source once).
FailureOr<SmallVector<int64_t>> getIds(Operation *op, DenseIntElementsAttr attr,
                                       StringRef name) {
  std::optional<int64_t> n = getStaticElementCount(attr.getType());
  if (!n || *n > 2 * kMaxReplicas)
    return op->emitError() << "'" << name << "' of type " << attr.getType()
                           << " lists more than " << 2 * kMaxReplicas
                           << " replica ids";
  return llvm::to_vector(attr.getValues<int64_t>());
}

FailureOr<int64_t> getInt(Operation *op, StringRef name) {
  auto a = dyn_cast_or_null<IntegerAttr>(getAttr(op, name));
  if (!a)
    return op->emitError() << "expected integer attribute '" << name << "'";
  return a.getInt();
}

class Importer {
public:
  Importer(ModuleOp module, const StableHLOImportOptions &opts)
      : module(module), opts(opts), b(module.getContext()) {}

  LogicalResult run() {
    // Collectives first, so groups exist before their users; then compute.
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (op->getName().getStringRef().starts_with(kPrefix) &&
          op->getParentOp() && isa<func::FuncOp>(op->getParentOp()))
        ops.push_back(op);
    });
    if (failed(inferReplicas(ops)))
      return failure();
    for (Operation *op : ops)
      if (failed(convert(op)))
        return failure();
    // Anything unregistered left (a stablehlo op outside a function, another
    // dialect) cannot be scheduled.
    WalkResult r = module.walk([&](Operation *op) {
      if (!op->isRegistered()) {
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
  /// The replica groups of an op as subgroups of global ranks.
  FailureOr<SmallVector<SmallVector<int64_t>>> replicaGroups(Operation *op,
                                                             StringRef name) {
    auto attr = dyn_cast_or_null<DenseIntElementsAttr>(getAttr(op, name));
    if (!attr)
      return op->emitError() << "expected '" << name
                             << "' as a dense integer tensor";
    auto type = cast<ShapedType>(attr.getType());
    SmallVector<SmallVector<int64_t>> groups;
    if (type.getRank() != 2)
      return op->emitError() << "'" << name << "' must be a 2-D tensor, found "
                             << type;
    if (getStaticElementCount(type) == 0) {
      if (numReplicas <= 0)
        return op->emitError()
               << "empty '" << name
               << "' means all replicas; give their number with "
                  "--num-replicas";
      groups.emplace_back();
      for (int64_t i = 0; i < numReplicas; ++i)
        groups.back().push_back(i);
      return groups;
    }
    FailureOr<SmallVector<int64_t>> values = getIds(op, attr, name);
    if (failed(values))
      return failure();
    int64_t cols = type.getDimSize(1);
    for (int64_t r = 0; r < type.getDimSize(0); ++r) {
      groups.emplace_back(values->begin() + r * cols,
                          values->begin() + (r + 1) * cols);
      for (int64_t v : groups.back()) {
        if (v < 0)
          return op->emitError()
                 << "'" << name << "' is padded with -1 (replica groups of "
                    "unequal size); comm groups need equal-size subgroups";
        if (failed(checkId(op, name, v)))
          return failure();
      }
    }
    return groups;
  }

  /// An id must name one of the program's replicas.
  LogicalResult checkId(Operation *op, StringRef name, int64_t id) {
    if (id >= 0 && id < numReplicas)
      return success();
    return op->emitError() << "'" << name << "' names replica " << id
                           << ", outside the " << numReplicas
                           << " replicas (0.." << numReplicas - 1 << ") "
                           << replicasFrom;
  }

  /// The number of replicas, which bounds every id: --num-replicas, else
  /// the module's mhlo.num_replicas x mhlo.num_partitions (JAX records
  /// both; global device ids go up to their product), else the largest id
  /// + 1, accepted only when the ids listed are at least that many (a
  /// partition of the replicas lists each once).
  LogicalResult inferReplicas(ArrayRef<Operation *> ops) {
    auto tooMany = [&](int64_t n, StringRef from) {
      return module.emitError()
             << from << " gives " << n << " replicas; the importer accepts "
             << "1.." << kMaxReplicas;
    };
    numReplicas = opts.numReplicas;
    if (numReplicas > 0) {
      replicasFrom = "(--num-replicas)";
      return numReplicas > kMaxReplicas ? tooMany(numReplicas, "--num-replicas")
                                        : success();
    }
    auto moduleInt = [&](StringRef name) -> std::optional<int64_t> {
      if (auto a = module->getAttrOfType<IntegerAttr>(name))
        return a.getInt();
      return std::nullopt;
    };
    std::optional<int64_t> r = moduleInt("mhlo.num_replicas");
    std::optional<int64_t> p = moduleInt("mhlo.num_partitions");
    if (r || p) {
      int64_t rv = r.value_or(1), pv = p.value_or(1);
      if (rv < 1 || pv < 1 || llvm::MulOverflow(rv, pv, numReplicas) ||
          numReplicas > kMaxReplicas)
        return module.emitError()
               << "mhlo.num_replicas = " << rv << " x mhlo.num_partitions = "
               << pv << " must be 1.." << kMaxReplicas << " replicas";
      replicasFrom = "(mhlo.num_replicas x mhlo.num_partitions)";
      return success();
    }
    int64_t maxId = -1, listed = 0;
    for (Operation *op : ops)
      for (StringRef name : {"replica_groups", "source_target_pairs"})
        if (auto a = dyn_cast_or_null<DenseIntElementsAttr>(getAttr(op, name))) {
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
    numReplicas = maxId + 1;
    replicasFrom = "(the largest id + 1)";
    return success();
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
    gb.create<GroupOp>(module.getLoc(), gb.getStringAttr(name),
                       gb.getDenseI64ArrayAttr(flat),
                       gb.getI64IntegerAttr(groups[0].size()),
                       FlatSymbolRefAttr());
    groupNames[key] = name;
    return FlatSymbolRefAttr::get(module.getContext(), name);
  }

  /// sum / prod / max / min from a reduction region, or a diagnostic.
  FailureOr<ReductionKind> reductionOf(Operation *op) {
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

  void keepChannel(Operation *from, Operation *to) {
    Attribute ch = getAttr(from, "channel_handle");
    if (!ch)
      return;
    // #stablehlo.channel_handle<handle = 1, type = 1> (opaque here).
    std::string text;
    llvm::raw_string_ostream os(text);
    ch.print(os);
    size_t pos = text.find("handle = ");
    if (pos == std::string::npos)
      return;
    int64_t handle = 0;
    if (!llvm::to_integer(
            StringRef(text).substr(pos + 9).take_while(llvm::isDigit), handle))
      return;
    to->setAttr("comm.channel", b.getI64IntegerAttr(handle));
  }

  LogicalResult checkTensors(Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Type t : types)
      if (!isa<RankedTensorType>(t))
        return op->emitError() << "has a non-tensor operand or result (" << t
                               << "); only tensor collectives map to comm";
    return success();
  }

  LogicalResult convert(Operation *op) {
    StringRef name = op->getName().getStringRef().drop_front(kPrefix.size());
    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    Operation *repl = nullptr;
    auto groups = [&](StringRef attr) { return replicaGroups(op, attr); };
    if (name == "all_reduce" || name == "reduce_scatter" ||
        name == "all_gather" || name == "all_to_all" ||
        name == "collective_broadcast" || name == "collective_permute")
      if (failed(checkTensors(op)))
        return failure();
    if (name == "all_reduce") {
      auto g = groups("replica_groups");
      auto k = reductionOf(op);
      if (failed(g) || failed(k))
        return failure();
      repl = b.create<AllReduceOp>(
          loc, ReductionKindAttr::get(b.getContext(), *k), op->getOperands(),
          groupFor(*g), nullptr);
    } else if (name == "reduce_scatter") {
      auto g = groups("replica_groups");
      auto k = reductionOf(op);
      auto d = getInt(op, "scatter_dimension");
      if (failed(g) || failed(k) || failed(d))
        return failure();
      repl = b.create<ReduceScatterOp>(
          loc, op->getResultTypes()[0],
          ReductionKindAttr::get(b.getContext(), *k), op->getOperand(0),
          groupFor(*g), b.getI64IntegerAttr(*d), nullptr);
    } else if (name == "all_gather") {
      auto g = groups("replica_groups");
      auto d = getInt(op, "all_gather_dim");
      if (failed(g) || failed(d))
        return failure();
      if (op->getNumOperands() != 1)
        return op->emitError() << "variadic all_gather is not supported; "
                                  "split it into one op per operand";
      repl = b.create<AllGatherOp>(loc, op->getResultTypes()[0],
                                   op->getOperand(0), groupFor(*g),
                                   b.getI64IntegerAttr(*d), nullptr);
    } else if (name == "all_to_all") {
      auto g = groups("replica_groups");
      auto s = getInt(op, "split_dimension");
      auto c = getInt(op, "concat_dimension");
      auto n = getInt(op, "split_count");
      if (failed(g) || failed(s) || failed(c) || failed(n))
        return failure();
      if (*n != static_cast<int64_t>((*g)[0].size()))
        return op->emitError() << "split_count " << *n
                               << " differs from the replica group size "
                               << (*g)[0].size();
      repl = b.create<AllToAllOp>(loc, op->getResultTypes()[0],
                                  op->getOperand(0), groupFor(*g),
                                  b.getI64IntegerAttr(*s),
                                  b.getI64IntegerAttr(*c), nullptr);
    } else if (name == "collective_broadcast") {
      auto g = groups("replica_groups");
      if (failed(g))
        return failure();
      repl = b.create<BroadcastOp>(loc, op->getResultTypes()[0],
                                   op->getOperand(0), groupFor(*g),
                                   b.getI64IntegerAttr(0), nullptr);
    } else if (name == "collective_permute") {
      auto pairs = dyn_cast_or_null<DenseIntElementsAttr>(
          getAttr(op, "source_target_pairs"));
      if (!pairs || cast<ShapedType>(pairs.getType()).getRank() != 2 ||
          cast<ShapedType>(pairs.getType()).getDimSize(1) != 2)
        return op->emitError() << "expected 'source_target_pairs' as an Nx2 "
                                  "integer tensor";
      if (numReplicas <= 0)
        return op->emitError() << "cannot tell the number of replicas; give "
                                  "--num-replicas";
      FailureOr<SmallVector<int64_t>> ids =
          getIds(op, pairs, "source_target_pairs");
      if (failed(ids))
        return failure();
      for (int64_t v : *ids)
        if (failed(checkId(op, "source_target_pairs", v)))
          return failure();
      SmallVector<SmallVector<int64_t>> world(1);
      for (int64_t i = 0; i < numReplicas; ++i)
        world[0].push_back(i);
      repl = b.create<PermuteOp>(
          loc, op->getResultTypes()[0], op->getOperand(0), groupFor(world),
          b.getDenseI64ArrayAttr(*ids));
    } else {
      // Opaque compute: same operands and results, the op name for a name.
      if (op->getNumResults() == 0) {
        op->emitWarning() << "dropped: '" << op->getName()
                          << "' has no results to schedule";
        op->erase();
        return success();
      }
      repl = b.create<ComputeOp>(loc, op->getResultTypes(),
                                 b.getStringAttr(op->getName().getStringRef()),
                                 op->getOperands(), FloatAttr(), FloatAttr());
    }
    if (getScheduleCollective(repl) || isa<PermuteOp>(repl))
      keepChannel(op, repl);
    op->replaceAllUsesWith(repl->getResults());
    op->erase();
    return success();
  }

  ModuleOp module;
  const StableHLOImportOptions &opts;
  OpBuilder b;
  int64_t numReplicas = 0;
  /// Where numReplicas came from, for diagnostics.
  StringRef replicasFrom;
  std::map<std::pair<SmallVector<int64_t>, int64_t>, std::string> groupNames;
};

} // namespace

OwningOpRef<ModuleOp>
mlir::comm::importStableHLO(llvm::SourceMgr &sm, MLIRContext *ctx,
                            const StableHLOImportOptions &opts) {
  ctx->allowUnregisteredDialects(true);
  ctx->loadDialect<CommDialect, func::FuncDialect>();
  // Rewrite "unknown custom op" errors from the pretty form into one
  // actionable message; other errors go out as they come (before the
  // parser's cleanup, which MLIR 19 can crash in: tools/common/Contained.cpp).
  bool prettyForm = false;
  Location prettyLoc = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      std::string msg = d.str();
      if (!StringRef(msg).contains("custom op 'stablehlo.") &&
          !StringRef(msg).contains("Dialect `stablehlo' not found"))
        return failure();
      if (!prettyForm)
        prettyLoc = d.getLocation();
      prettyForm = true;
      return success();
    });
    module = parseSourceFile<ModuleOp>(sm, ctx);
  }
  if (!module) {
    if (prettyForm)
      emitError(prettyLoc)
          << "StableHLO must be in the generic op form (\"stablehlo.add\"(...) "
             "...): this build has no StableHLO dialect to read the pretty "
             "form; print it with the generic printer (e.g. "
             "module.operation.print(print_generic_op_form=True) from JAX or "
             "torch_xla, or stablehlo-opt --mlir-print-op-generic)";
    return nullptr;
  }
  Importer imp(*module, opts);
  if (failed(imp.run()))
    return nullptr;
  ctx->allowUnregisteredDialects(false);
  return module;
}
