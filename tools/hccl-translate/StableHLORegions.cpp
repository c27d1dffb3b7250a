//===- StableHLORegions.cpp - collectives in calls and regions ------------===//
//
// Inlining is exact (a call's semantics is its callee's body), and so is
// unrolling a loop whose trip count is static (StableHLOLoops.h). Other
// loops and branches are not: the comm IR that the passes schedule and the
// plan that the runtime executes are straight-line programs, so a
// collective in such a while body or a case branch is refused rather than
// run once or never.
//
//===----------------------------------------------------------------------===//
#include "StableHLORegions.h"

#include "StableHLOLoops.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace mlir;

namespace {

/// "line L" of an op's location, for naming a second op in one message.
std::string where(Operation *op) {
  if (auto l = dyn_cast<FileLineColLoc>(op->getLoc()))
    return "line " + std::to_string(l.getLine());
  return "unknown location";
}

/// How the spec names region `i` of a control-flow op.
std::string regionName(Operation *parent, unsigned i) {
  StringRef m = parent->getName().getStringRef().rsplit('.').second;
  if (m == "while")
    return i == 0 ? "the condition" : "the body";
  if (m == "if")
    return i == 0 ? "the true branch" : "the false branch";
  if (m == "case")
    return "branch " + std::to_string(i);
  if (m == "all_reduce" || m == "reduce_scatter")
    return "the reduction computation";
  return "region " + std::to_string(i);
}

/// The first communication op in `op`'s body, or null.
Operation *firstCommunication(Operation *op) {
  Operation *found = nullptr;
  op->walk([&](Operation *o) {
    if (o != op && mlir::comm::shlo::isCommunication(o)) {
      found = o;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// An op's attributes with its properties (`<{...}>`: func.call's callee,
/// an unregistered op's inherent attributes).
SmallVector<NamedAttribute> allAttributes(Operation *op) {
  SmallVector<NamedAttribute> all(op->getAttrs());
  if (auto props =
          dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()))
    llvm::append_range(all, props.getValue());
  return all;
}

class CallsAndRegions {
public:
  explicit CallsAndRegions(ModuleOp module) : module(module), symbols(module) {}

  LogicalResult run() {
    findHolders();
    if (failed(refuseRecursion()) || failed(inlineCalls()) ||
        failed(mlir::comm::shlo::unrollCommunicatingLoops(module)))
      return failure();
    findHolders(); // what is left after inlining
    if (failed(checkRegions()))
      return failure();
    return checkSymbolUses();
  }

private:
  /// Functions that communicate, directly or through func.call: those that
  /// reach a communicating one backwards along the calls (a fixed point
  /// over every function would be quadratic in a chain of calls).
  void findHolders() {
    holders.clear();
    llvm::DenseMap<Operation *, SmallVector<Operation *>> callers;
    SmallVector<Operation *> work;
    module.walk([&](func::FuncOp f) {
      bool communicates = false;
      f.walk([&](Operation *o) {
        if (mlir::comm::shlo::isCommunication(o))
          communicates = true;
        else if (auto call = dyn_cast<func::CallOp>(o))
          if (func::FuncOp callee = calleeOf(call))
            callers[callee].push_back(f);
      });
      if (communicates && holders.insert(f).second)
        work.push_back(f);
    });
    while (!work.empty()) {
      Operation *f = work.pop_back_val();
      auto it = callers.find(f);
      if (it == callers.end())
        continue;
      for (Operation *caller : it->second)
        if (holders.insert(caller).second)
          work.push_back(caller);
    }
  }

  func::FuncOp calleeOf(func::CallOp call) {
    return symbols.lookup<func::FuncOp>(call.getCallee());
  }

  /// The calls in `f` to communicating functions.
  SmallVector<func::CallOp> holderCalls(func::FuncOp f) {
    SmallVector<func::CallOp> calls;
    f.walk([&](func::CallOp call) {
      if (func::FuncOp callee = calleeOf(call); callee && holders.count(callee))
        calls.push_back(call);
    });
    return calls;
  }

  /// A cycle of calls through communicating functions cannot be inlined.
  /// Depth-first with an explicit stack: a chain of 10^4 calls must not
  /// overflow the native one.
  LogicalResult refuseRecursion() {
    llvm::DenseMap<Operation *, int> state; // 1 visiting, 2 done
    struct Frame {
      func::FuncOp f;
      SmallVector<func::CallOp> calls;
      size_t next = 0;
    };
    for (Operation *root : holders) {
      if (state[root] != 0)
        continue;
      SmallVector<Frame> stack;
      auto push = [&](func::FuncOp f) {
        state[f] = 1;
        stack.push_back({f, holderCalls(f)});
      };
      push(cast<func::FuncOp>(root));
      while (!stack.empty()) {
        Frame &top = stack.back();
        if (top.next == top.calls.size()) {
          state[top.f] = 2;
          stack.pop_back();
          continue;
        }
        func::CallOp call = top.calls[top.next++];
        func::FuncOp callee = calleeOf(call);
        if (state[callee] == 1)
          return call.emitError()
                 << "'func.call' to @" << callee.getSymName()
                 << " is recursive and reaches collectives; the importer "
                    "inlines calls into communicating functions, which "
                    "recursion makes endless";
        if (state[callee] == 0)
          push(callee); // invalidates `top`
      }
    }
    return success();
  }

  LogicalResult inlineCalls() {
    SmallVector<func::CallOp> work;
    auto collect = [&](Operation *root) {
      root->walk([&](func::CallOp call) {
        if (func::FuncOp callee = calleeOf(call);
            callee && holders.count(callee))
          work.push_back(call);
      });
    };
    collect(module);
    SmallVector<func::FuncOp> inlined;
    // Calls nest: f0 calling f1 twice, f1 calling f2 twice, ... make 2^N
    // copies of the last body from a file of N functions.
    int64_t clonedOps = 0;
    while (!work.empty()) {
      func::CallOp call = work.pop_back_val();
      func::FuncOp callee = calleeOf(call);
      Region &body = callee.getBody();
      if (!body.hasOneBlock())
        return call.emitError()
               << "'func.call' to @" << callee.getSymName()
               << ", which communicates, cannot be inlined: its body has "
               << body.getBlocks().size()
               << " blocks and the importer inlines single-block functions";
      Block &b = body.front();
      auto ret = dyn_cast<func::ReturnOp>(b.getTerminator());
      if (!ret || ret.getNumOperands() != call.getNumResults() ||
          b.getNumArguments() != call.getNumOperands())
        return call.emitError() << "'func.call' to @" << callee.getSymName()
                                << " does not match the callee's arguments "
                                   "and func.return";
      for (Operation &o : b.without_terminator())
        o.walk([&](Operation *) { ++clonedOps; });
      if (clonedOps > mlir::comm::shlo::kMaxUnrolledOps)
        return call.emitError()
               << "'func.call' to @" << callee.getSymName()
               << ": inlining the calls into communicating functions would "
                  "clone more than "
               << mlir::comm::shlo::kMaxUnrolledOps
               << " ops (the importer's limit); calls that nest this deep "
                  "or wide expand exponentially";
      IRMapping map;
      map.map(b.getArguments(), call.getOperands());
      OpBuilder ob(call);
      SmallVector<Operation *> cloned;
      for (Operation &o : b.without_terminator())
        cloned.push_back(mlir::comm::shlo::cloneWithProperties(ob, o, map));
      for (auto [res, v] : llvm::zip(call.getResults(), ret.getOperands()))
        res.replaceAllUsesWith(map.lookupOrDefault(v));
      call.erase();
      for (Operation *o : cloned)
        collect(o);
      if (!llvm::is_contained(inlined, callee))
        inlined.push_back(callee);
    }
    // A private callee no one calls any more would be a second function
    // with collectives for the plan exporter to choose from.
    for (func::FuncOp f : inlined)
      if (f.isPrivate() && !referenced(f.getSymNameAttr())) {
        holders.erase(f);
        symbols.erase(f);
      }
    return success();
  }

  /// Whether any attribute in the module names `name`.
  bool referenced(StringAttr name) {
    WalkResult r = module.walk([&](Operation *op) {
      for (NamedAttribute a : allAttributes(op)) {
        bool found = false;
        a.getValue().walk([&](SymbolRefAttr ref) {
          found |= ref.getRootReference() == name;
        });
        if (found)
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return r.wasInterrupted();
  }

  /// Communication whose parent is not a function body.
  LogicalResult checkRegions() {
    WalkResult r = module.walk([&](Operation *op) {
      if (!mlir::comm::shlo::isCommunication(op))
        return WalkResult::advance();
      Operation *parent = op->getParentOp();
      if (!parent || isa<func::FuncOp>(parent))
        return WalkResult::advance();
      unsigned idx = op->getParentRegion()->getRegionNumber();
      InFlightDiagnostic d = op->emitError();
      d << "'" << op->getName() << "' in " << regionName(parent, idx) << " of '"
        << parent->getName() << "' (" << where(parent)
        << ") is not imported: the comm IR has no loops or branches, so a "
           "collective there would run once or never";
      // The innermost while around it, if that is what stopped unrolling.
      std::string why;
      if (parent->getName().getStringRef().ends_with(".while") &&
          !mlir::comm::shlo::staticTripCount(parent, why))
        d << "; the loop is not unrolled because " << why;
      d << "; unroll the loop or move the collective out of the region";
      return WalkResult::interrupt();
    });
    return failure(r.wasInterrupted());
  }

  /// Symbol references (other than the calls inlined) to communicating
  /// functions: async_start, custom_call, composite, an unknown op.
  LogicalResult checkSymbolUses() {
    WalkResult r = module.walk([&](Operation *op) {
      if (isa<func::FuncOp, ModuleOp>(op))
        return WalkResult::advance();
      for (NamedAttribute a : allAttributes(op)) {
        Operation *bad = nullptr;
        a.getValue().walk([&](SymbolRefAttr ref) {
          if (bad)
            return;
          Operation *f = symbols.lookup(ref.getRootReference());
          if (f && holders.count(f))
            bad = f;
        });
        if (!bad)
          continue;
        Operation *comm = firstCommunication(bad);
        auto f = cast<func::FuncOp>(bad);
        InFlightDiagnostic d = op->emitError();
        d << "'" << op->getName() << "' reaches @" << f.getSymName()
          << " through '" << a.getName().getValue() << "', and @"
          << f.getSymName() << " communicates";
        if (comm)
          d << " ('" << comm->getName() << "', " << where(comm) << ")";
        d << "; only func.call is inlined, so collectives reached through '"
          << op->getName() << "' are not imported";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  ModuleOp module;
  SymbolTable symbols;
  llvm::DenseSet<Operation *> holders;
};

} // namespace

bool mlir::comm::shlo::isCommunication(Operation *op) {
  auto [dialect, mnemonic] = op->getName().getStringRef().split('.');
  if (dialect != "stablehlo" && dialect != "mhlo")
    return false;
  return llvm::is_contained({"all_reduce", "all_gather", "reduce_scatter",
                             "all_to_all", "collective_permute",
                             "collective_broadcast", "send", "recv"},
                            mnemonic);
}

LogicalResult mlir::comm::shlo::prepareCallsAndRegions(ModuleOp module) {
  return CallsAndRegions(module).run();
}
