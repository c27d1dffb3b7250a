//===- PlanExport.cpp - comm IR -> plan JSON ------------------------------===//
//
// The plan is the runtime's input (docs/plan-format.md). Every collective
// must be lowered (comm.schedule): the plan carries the program read back
// from the IR, and that program is proven (lib/schedule's verifier, once per
// comm.program) before anything is written, so what runs is what was
// verified whether or not the pipeline ran comm-verify-schedule.
//
//===----------------------------------------------------------------------===//
#include "PlanExport.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/Dialect/Comm/ProgramIR.h"
#include "hccl-mlir/schedule/Verify.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

namespace {

double costOf(Operation *op) {
  Attribute a = op->getAttr(CommDialect::getCostAttrName());
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getInt());
  return 0;
}

std::string nameOf(Operation *op) {
  if (auto n = op->getAttrOfType<StringAttr>("comm.name"))
    return n.str();
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    return loc.getName().str();
  return op->getName().getStringRef().str();
}

struct PlanBuilder {
  sched::Plan plan;
  SymbolTableCollection tables;
  int64_t nextId = 0;
  llvm::DenseMap<Operation *, int64_t> startIds;

  /// Plan program id of (program, group): the program's symbol, with the
  /// group appended when one program runs on several groups.
  std::map<std::pair<std::string, std::string>, std::string> ids;
  std::map<std::string, int> usesOfProgram;

  LogicalResult addProgram(ScheduleOp s, std::string &idOut) {
    auto prog =
        tables.lookupNearestSymbolFrom<ProgramOp>(s, s.getProgramAttr());
    if (!prog)
      return s.emitOpError()
             << "references unknown program " << s.getProgramAttr();
    std::string pname = prog.getSymName().str();
    std::string gname = s.getGroupAttr().getValue().str();
    auto key = std::make_pair(pname, gname);
    auto found = ids.find(key);
    if (found != ids.end()) {
      idOut = found->second;
      return success();
    }
    FailureOr<sched::Program> program = readProgram(prog);
    if (failed(program))
      return failure();
    if (failed(prove(prog, *program)))
      return failure();
    GroupOp g = tables.lookupNearestSymbolFrom<GroupOp>(s, s.getGroupAttr());
    if (!g)
      return s.emitOpError() << "references unknown group " << s.getGroupAttr();
    sched::PlanProgram pp;
    pp.id = usesOfProgram[pname]++ == 0 ? pname : pname + "@" + gname;
    pp.program = std::move(*program);
    // A partitioned group runs the program in each subgroup at once.
    for (int64_t k = 0; k < g.getNumSubgroups(); ++k) {
      ArrayRef<int64_t> sub = g.getSubgroup(k);
      pp.groups.emplace_back(sub.begin(), sub.end());
    }
    idOut = pp.id;
    ids[key] = pp.id;
    plan.programs.push_back(std::move(pp));
    return success();
  }

  /// Proves each program once (several groups may run it).
  std::set<std::string> proven;
  LogicalResult prove(ProgramOp op, const sched::Program &program) {
    std::string name = op.getSymName().str();
    if (proven.count(name))
      return success();
    if (sched::Status st = sched::prove(program); !st)
      return op.emitOpError()
             << "cannot be exported: its step schedule " << st.message();
    proven.insert(name);
    return success();
  }

  LogicalResult visit(Block &block) {
    for (Operation &op : block) {
      if (auto s = dyn_cast<ScheduleOp>(op)) {
        std::string pid;
        if (failed(addProgram(s, pid)))
          return failure();
        int64_t id = nextId++;
        plan.items.push_back({sched::PlanItemKind::Start, "", 0, id, pid});
        plan.items.push_back({sched::PlanItemKind::Wait, "", 0, id, ""});
        continue;
      }
      if (auto start = dyn_cast<StartOp>(op)) {
        auto s = dyn_cast_or_null<ScheduleOp>(start.getCollective());
        if (!s)
          return start.emitOpError()
                 << "starts an unlowered '"
                 << (start.getCollective()
                         ? start.getCollective()->getName().getStringRef()
                         : StringRef("?"))
                 << "': run comm-lower-schedule before exporting a plan";
        std::string pid;
        if (failed(addProgram(s, pid)))
          return failure();
        int64_t id = nextId++;
        startIds[start] = id;
        plan.items.push_back({sched::PlanItemKind::Start, "", 0, id, pid});
        continue;
      }
      if (auto wait = dyn_cast<WaitOp>(op)) {
        auto it = startIds.find(wait.getStart());
        if (it == startIds.end())
          return wait.emitOpError() << "waits for a collective the plan has "
                                       "not started";
        plan.items.push_back(
            {sched::PlanItemKind::Wait, "", 0, it->second, ""});
        continue;
      }
      if (isa<CollectiveOpInterface>(op)) {
        if (getScheduleCollective(&op))
          return op.emitOpError()
                 << "is not lowered: run comm-lower-schedule before "
                    "exporting a plan";
        return op.emitOpError() << "cannot be exported to a plan (only "
                                   "lowered collectives run from plans)";
      }
      if (op.getNumRegions() != 0 && !op.hasTrait<OpTrait::IsTerminator>())
        return op.emitOpError() << "has regions; plans hold straight-line "
                                   "training steps only";
      double cost = costOf(&op);
      if (cost > 0)
        plan.items.push_back(
            {sched::PlanItemKind::Compute, nameOf(&op), cost, 0, ""});
    }
    return success();
  }
};

} // namespace

FailureOr<sched::Plan> mlir::comm::buildPlan(ModuleOp module,
                                             const PlanExportOptions &opts) {
  FunctionOpInterface fn;
  SmallVector<FunctionOpInterface> candidates;
  module.walk([&](FunctionOpInterface f) {
    if (!opts.function.empty()) {
      if (f.getName() == opts.function)
        candidates.push_back(f);
      return;
    }
    bool hasComm = false;
    f.walk([&](CollectiveOpInterface) { hasComm = true; });
    if (hasComm)
      candidates.push_back(f);
  });
  if (candidates.empty())
    return module.emitError()
           << (opts.function.empty()
                   ? std::string("no function holds collectives to export")
                   : "no function named '" + opts.function + "'");
  if (candidates.size() > 1)
    return module.emitError()
           << candidates.size()
           << " functions hold collectives; name one with --plan-function";
  fn = candidates.front();
  if (fn.getFunctionBody().getBlocks().size() != 1)
    return fn.emitOpError() << "has " << fn.getFunctionBody().getBlocks().size()
                            << " blocks; plans hold straight-line training "
                               "steps only";
  PlanBuilder b;
  if (TopologyAttr t = getTopology(module))
    b.plan.topology = t.toSchedule();
  if (failed(b.visit(fn.getFunctionBody().front())))
    return failure();
  // The schedule's group: the union of the programs' groups (the world the
  // plan runs on), in ascending order.
  std::set<int64_t> ranks;
  for (const sched::PlanProgram &pp : b.plan.programs)
    for (int64_t r : pp.allRanks())
      ranks.insert(r);
  b.plan.groupRanks.assign(ranks.begin(), ranks.end());
  return std::move(b.plan);
}

LogicalResult mlir::comm::exportPlan(ModuleOp module,
                                     const PlanExportOptions &opts,
                                     llvm::raw_ostream &os) {
  FailureOr<sched::Plan> plan = buildPlan(module, opts);
  if (failed(plan))
    return failure();
  sched::PlanWriteOptions wo;
  wo.form = opts.form;
  auto text = sched::writePlan(*plan, wo);
  if (!text)
    return module.emitError() << "cannot write the plan: " << text.message();
  os << *text;
  if (text->empty() || text->back() != '\n')
    os << '\n';
  return success();
}
