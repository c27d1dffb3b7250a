//===- LowerSchedule.cpp - comm-lower-schedule ----------------------------===//
//
// Collective -> comm.schedule. The program comes from lib/schedule's
// generators (the runtime executes the same ones); ProgramIR emits it.
//
//===----------------------------------------------------------------------===//
#include "CostModel.h"

#include "hccl-mlir/Dialect/Comm/ProgramIR.h"
#include "hccl-mlir/Passes/Passes.h"
#include "hccl-mlir/schedule/Generate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace mlir::comm {
#define GEN_PASS_DEF_LOWERSCHEDULE
#include "hccl-mlir/Passes/Passes.h.inc"
} // namespace mlir::comm

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

namespace {

/// Elements of a statically shaped tensor (the collectives' verifier
/// guarantees their bytes, and so their sum, fit in int64_t).
std::optional<int64_t> elements(Type t) {
  if (!isa<RankedTensorType>(t))
    return std::nullopt;
  return getStaticElementCount(t);
}

struct LowerSchedulePass
    : public comm::impl::LowerScheduleBase<LowerSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    // The range of #comm.algo's slices; 0 keeps each op's own.
    if (defaultSlices < 0 || defaultSlices > 4096) {
      getOperation()->emitError()
          << "comm-lower-schedule: option slices="
          << static_cast<int64_t>(defaultSlices)
          << " is not valid: expected 0 (keep the op's) or 1..4096";
      return signalPassFailure();
    }
    programs.clear();
    byRequest.clear();
    models.clear();
    SmallVector<Operation *> work;
    getOperation()->walk([&](Operation *op) {
      if (getScheduleCollective(op))
        work.push_back(op);
    });
    for (Operation *op : work)
      if (failed(lower(op)))
        return signalPassFailure();
  }

  LogicalResult lower(Operation *op) {
    auto coll = cast<CollectiveOpInterface>(op);
    sched::GenerateRequest req;
    req.collective = *getScheduleCollective(op);
    GroupOp group = lookupGroup(op, coll.getGroupAttr());
    if (!group)
      return op->emitOpError()
             << "references unknown group " << coll.getGroupAttr();
    req.ranks = group.getGroupSize();
    if (auto k = coll.getReductionKind())
      req.reduceOp = toSchedule(*k);

    Type et =
        cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
    auto dt = toScheduleType(et);
    if (!dt)
      return op->emitOpError() << "element type " << et << " cannot be lowered";
    req.dtype = *dt;

    int64_t total = 0;
    for (Type t : op->getOperandTypes()) {
      auto n = elements(t);
      if (!n)
        return op->emitOpError()
               << "cannot lower a collective on the dynamically shaped " << t
               << ": the step program needs static element counts";
      total += *n;
    }
    if (failed(countFor(op, req, total)))
      return failure();

    AlgorithmAttr algo = coll.getAlgorithm();
    TopologyAttr topoAttr = getTopology(op);
    std::optional<sched::Topology> topo;
    if (topoAttr)
      topo = topoAttr.toSchedule();
    if (!algo) {
      if (!topo)
        return op->emitOpError()
               << "has no algorithm and the module has no comm.topology to "
                  "choose one: run comm-select-algorithm or add an algo";
      // The choice comm-select-algorithm would make.
      auto model = models.try_emplace(topoAttr, *topo).first;
      FailureOr<CollectivePrice> sel =
          model->second.price(op, /*useAttr=*/false);
      if (failed(sel))
        return failure();
      algo = AlgorithmAttr::get(op->getContext(), sel->algorithm, sel->level0,
                                sel->level1, 1, sel->podSplit);
    }
    if (defaultSlices > 0 && algo.getSlices() == 1)
      algo = AlgorithmAttr::get(op->getContext(), algo.getKind(),
                                algo.getLevel0(), algo.getLevel1(),
                                defaultSlices, algo.getPodSplit());
    req.algorithm = algo.getKind();
    req.level0 = algo.getLevel0();
    req.level1 = algo.getLevel1();
    req.slices = algo.getSlices();
    if (algo.isHierarchical()) {
      if (!topo)
        return op->emitOpError() << "hierarchical algorithm needs a "
                                    "comm.topology on the module";
      auto m = getRanksPerServer(group, *topo, algo.getPodSplit());
      if (!m)
        return op->emitOpError()
               << "hierarchical algorithm needs group " << coll.getGroupAttr()
               << " to split evenly across the topology's "
               << (algo.getPodSplit() ? "super pods (two or more)" : "servers")
               << ", server-major";
      req.ranksPerServer = *m;
    }

    // Identical requests give identical programs: generate each once.
    Operation *tableOp = SymbolTable::getNearestSymbolTable(op->getParentOp());
    std::string key = requestKey(req) + (algo.getPodSplit() ? "|pod" : "");
    FlatSymbolRefAttr progRef;
    auto cached = byRequest.find({tableOp, key});
    if (cached != byRequest.end()) {
      progRef = cached->second;
    } else {
      auto prog = sched::generate(req);
      if (!prog)
        return op->emitOpError() << "cannot lower with algorithm '"
                                 << sched::algorithmName(req.algorithm)
                                 << "': " << prog.message();
      progRef = programFor(op, *prog, et, algo.getPodSplit());
      if (!progRef)
        return failure();
      byRequest[{tableOp, key}] = progRef;
    }
    OpBuilder b(op);
    ReductionKindAttr kind;
    if (auto k = coll.getReductionKind())
      kind = ReductionKindAttr::get(op->getContext(), *k);
    auto s = b.create<ScheduleOp>(
        op->getLoc(), op->getResultTypes(), progRef,
        CollectiveKindAttr::get(
            op->getContext(),
            static_cast<CollectiveKind>(static_cast<int>(req.collective))),
        kind, op->getOperands(), coll.getGroupAttr(), algo);
    // Keep discardable annotations (comm.bucket, ...).
    for (NamedAttribute a : op->getDiscardableAttrs())
      s->setAttr(a.getName(), a.getValue());
    op->replaceAllUsesWith(s->getResults());
    op->erase();
    ++numLowered;
    return success();
  }

  /// The comm.program for `prog` in the op's symbol table: an existing one
  /// with the same (deterministic) name, or a new one placed before the
  /// symbol-table child that holds the op. Identical collectives share it.
  /// `podSplit`: the collective's hierarchy splits at the super pod (the
  /// program's attribute and name say so).
  FlatSymbolRefAttr programFor(Operation *op, const sched::Program &prog,
                               Type elementType, bool podSplit) {
    Operation *tableOp = SymbolTable::getNearestSymbolTable(op->getParentOp());
    if (!tableOp) {
      op->emitOpError() << "is not inside a symbol table to hold its "
                           "comm.program";
      return {};
    }
    std::string name = programSymbolName(prog) + (podSplit ? "_pod" : "");
    auto &known = programs[tableOp];
    auto it = known.find(name);
    if (it == known.end()) {
      // Programs lowered by an earlier run of the pass are reused too.
      if (Operation *sym = SymbolTable::lookupSymbolIn(tableOp, name)) {
        if (isa<ProgramOp>(sym)) {
          it = known.insert({name, name}).first;
        } else {
          std::string alt = name + "_program";
          for (int i = 1; SymbolTable::lookupSymbolIn(tableOp, alt); ++i)
            alt = name + "_program" + std::to_string(i);
          name = alt;
        }
      }
    }
    if (it == known.end()) {
      Operation *anchor = op;
      while (anchor->getParentOp() != tableOp)
        anchor = anchor->getParentOp();
      OpBuilder b(anchor);
      buildProgramOp(b, op->getLoc(), prog, name, elementType, podSplit);
      it = known.insert({name, name}).first;
    }
    return FlatSymbolRefAttr::get(op->getContext(), it->second);
  }

  static std::string requestKey(const sched::GenerateRequest &r) {
    std::string k;
    for (int64_t t : r.permuteTargets)
      k += std::to_string(t) + ";";
    for (int64_t v :
         {static_cast<int64_t>(r.collective), static_cast<int64_t>(r.algorithm),
          static_cast<int64_t>(r.level0), static_cast<int64_t>(r.level1),
          r.ranks, r.count, static_cast<int64_t>(r.dtype),
          static_cast<int64_t>(r.reduceOp), r.root, r.slices, r.ranksPerServer,
          r.chunks, r.inputOuter, r.outputOuter})
      k += std::to_string(v) + ",";
    return k;
  }

  /// Prices collectives that come without an algorithm, per topology.
  llvm::DenseMap<Attribute, CommCostModel> models;

  /// Program symbol per (symbol table, generate request) during this run.
  std::map<std::pair<Operation *, std::string>, FlatSymbolRefAttr> byRequest;

  /// Programs created or found per symbol table during this run.
  llvm::DenseMap<Operation *, std::map<std::string, std::string>> programs;

  /// HCCL's element count of the collective, with the layout checks.
  LogicalResult countFor(Operation *op, sched::GenerateRequest &req,
                         int64_t total) {
    int64_t p = req.ranks;
    // Along a dimension that is not the leading one, every block is
    // `outer` rows (the dimensions before it): the program moves the rows
    // where they lie (a block layout), no transpose.
    BlockLayout layout = getBlockLayout(op);
    req.inputOuter = layout.inputOuter;
    req.outputOuter = layout.outputOuter;
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](AllGatherOp) -> LogicalResult {
          req.count = total;
          return success();
        })
        .Case([&](ReduceScatterOp) -> LogicalResult {
          req.count = total / p;
          return success();
        })
        .Case([&](AllToAllOp) -> LogicalResult {
          req.count = total / p;
          return success();
        })
        .Case([&](BroadcastOp bc) -> LogicalResult {
          req.root = bc.getRootAttr().getInt();
          req.count = total;
          return success();
        })
        .Case([&](ReduceOp rd) -> LogicalResult {
          req.root = rd.getRootAttr().getInt();
          req.count = total;
          return success();
        })
        .Case([&](PermuteOp pm) -> LogicalResult {
          // The pairs (source, target) as each rank's target.
          req.permuteTargets.assign(static_cast<size_t>(p), -1);
          ArrayRef<int64_t> pairs = pm.getPairs();
          for (size_t i = 0; i + 1 < pairs.size(); i += 2)
            req.permuteTargets[static_cast<size_t>(pairs[i])] = pairs[i + 1];
          req.count = total;
          return success();
        })
        .Default([&](Operation *) -> LogicalResult {
          req.count = total; // all_reduce: the fused flat buffer
          return success();
        });
  }
};

} // namespace
