//===- StableHLOSharding.cpp - programs whose communication is implicit ---===//
#include "StableHLOSharding.h"

#include "hccl-mlir/Dialect/StableHLO/Sdy.h"
#include "hccl-mlir/Dialect/StableHLO/StableHLO.h"
#include "hccl-mlir/schedule/Generate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

const char *comm::shlo::shardyAdvice() {
  return "the program is sharded with Shardy (sdy): its communication is "
         "not in it yet and the importer reads explicit collectives only; "
         "partition it first (XLA's Shardy partitioner, "
         "use_shardy_partitioner), or write the collectives with shard_map";
}

/// A GSPMD sharding that splits a value over devices (not replicated,
/// manual or on one device).
static bool isTiled(Attribute a) {
  auto s = dyn_cast_or_null<StringAttr>(a);
  return s && s.getValue().contains("devices=");
}

LogicalResult comm::shlo::refuseImplicitSharding(ModuleOp module) {
  constexpr llvm::StringLiteral kSharding = "mhlo.sharding";
  bool shardMap = false;
  Operation *sdy = nullptr;
  module.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name.starts_with("sdy.") && !sdy)
      sdy = op;
    for (NamedAttribute a : op->getAttrs())
      if (!sdy && a.getName().strref().starts_with("sdy."))
        sdy = op;
    if (name == "stablehlo.custom_call")
      if (auto t = op->getAttrOfType<StringAttr>("call_target_name"))
        shardMap |= t.getValue() == "SPMDFullToShardShape";
  });
  if (sdy)
    return sdy->emitError() << shardyAdvice();
  if (shardMap)
    return success();
  auto refuse =
      [&](Operation *at, const std::string &where, Attribute value) {
        return at->emitError()
               << kSharding << " = " << value << " on " << where
               << ": the program is GSPMD-sharded and the communication its "
                  "shardings imply is not in it yet; the importer reads "
                  "explicit collectives only: partition it first (XLA's SPMD "
                  "partitioner), or write the collectives with shard_map";
      };
  for (func::FuncOp f : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0, e = f.getNumArguments(); i < e; ++i)
      if (Attribute a = f.getArgAttr(i, kSharding); isTiled(a))
        return refuse(
            f, "argument " + std::to_string(i) + " of @" + f.getSymName().str(),
            a);
    for (unsigned i = 0, e = f.getNumResults(); i < e; ++i)
      if (Attribute a = f.getResultAttr(i, kSharding); isTiled(a))
        return refuse(
            f, "result " + std::to_string(i) + " of @" + f.getSymName().str(),
            a);
  }
  Operation *tiled = nullptr;
  module.walk([&](Operation *op) {
    if (!tiled && isTiled(op->getAttr(kSharding)))
      tiled = op;
  });
  if (tiled)
    return refuse(tiled, "'" + tiled->getName().getStringRef().str() + "'",
                  tiled->getAttr(kSharding));
  return success();
}

//===----------------------------------------------------------------------===//
// shard_map in Shardy's form
//===----------------------------------------------------------------------===//

/// "@mesh" of a sharding's text ("@mesh, [{...}]").
static StringRef meshOf(Attribute sharding) {
  auto s = dyn_cast<StringAttr>(sharding);
  if (!s || !s.getValue().starts_with("@"))
    return "";
  return s.getValue().drop_front().take_until([](char c) { return c == ','; });
}

/// Drops the sdy.* entries of an attribute dictionary.
static DictionaryAttr withoutSdy(DictionaryAttr d, MLIRContext *ctx) {
  if (!d)
    return d;
  SmallVector<NamedAttribute> keep;
  for (NamedAttribute a : d)
    if (!a.getName().strref().starts_with("sdy."))
      keep.push_back(a);
  return DictionaryAttr::get(ctx, keep);
}

LogicalResult comm::shlo::unwrapShardMap(ModuleOp module) {
  SmallVector<sdy::ManualComputationOp> manuals;
  module.walk([&](sdy::ManualComputationOp m) { manuals.push_back(m); });
  if (manuals.empty())
    return success();
  MLIRContext *ctx = module.getContext();
  int64_t devices = 0;
  for (sdy::ManualComputationOp m : manuals) {
    auto fn = dyn_cast<func::FuncOp>(m->getParentOp());
    if (!fn)
      return m.emitError() << "'sdy.manual_computation' nested in '"
                           << m->getParentOp()->getName()
                           << "': the importer reads shard_map as a "
                              "function's whole body";
    // Not in the entry block (after a return, say), its body would be
    // spliced into a block it is not in.
    if (!fn.getBody().hasOneBlock() || m->getBlock() != &fn.getBody().front())
      return m.emitError() << "'sdy.manual_computation' in @" << fn.getSymName()
                           << ", whose body has "
                           << fn.getBody().getBlocks().size()
                           << " blocks: the importer reads shard_map as the "
                              "whole body of a single-block function";
    // Its mesh, and that every axis of it (of size > 1) is manual.
    StringRef meshName;
    for (ArrayAttr list : {m.getInShardings(), m.getOutShardings()})
      for (Attribute s : list)
        if (meshName.empty())
          meshName = meshOf(s);
    auto mesh = dyn_cast_or_null<sdy::MeshOp>(
        SymbolTable::lookupSymbolIn(module, meshName));
    if (!mesh)
      return m.emitError() << "'sdy.manual_computation' names mesh @"
                           << meshName << ", which the module does not define";
    llvm::StringSet<> manual;
    for (Attribute a : m.getManualAxes())
      manual.insert(cast<StringAttr>(a).getValue());
    std::string free;
    for (auto [name, size] :
         llvm::zip(mesh.getAxisNames(), mesh.getAxisSizes()))
      if (size > 1 && !manual.contains(cast<StringAttr>(name).getValue()))
        free += (free.empty() ? "\"" : ", \"") +
                cast<StringAttr>(name).getValue().str() + "\"";
    if (!free.empty())
      return m.emitError()
             << "'sdy.manual_computation' leaves mesh axes {" << free
             << "} of @" << mesh.getSymName()
             << " to the partitioner, whose communication is not in the "
                "program yet; partition it first (XLA's Shardy partitioner), "
                "or make every axis manual";
    // The devices become the partitions, a rank each.
    std::optional<int64_t> n = mesh.getNumDevices();
    if (!n || *n > hccl::sched::kMaxRanks) {
      InFlightDiagnostic d = mesh.emitError() << "mesh @" << mesh.getSymName();
      if (n)
        d << " has " << *n << " devices";
      else
        d << " has more devices than a 64-bit count holds";
      return d << "; the importer accepts at most " << hccl::sched::kMaxRanks;
    }
    if (devices && devices != *n)
      return m.emitError() << "shard_maps over meshes of " << devices << " and "
                           << *n << " devices";
    devices = *n;
    // The function must be the manual computation and the return of its
    // results: anything else runs on the global arrays, partitioned.
    Block &fb = fn.getBody().front();
    Operation *ret = fb.getTerminator();
    for (Operation &op : fb)
      if (&op != m.getOperation() && &op != ret)
        return op.emitError()
               << "'" << op.getName() << "' in @" << fn.getSymName()
               << " is outside its shard_map (sdy.manual_computation), on "
                  "the global arrays the partitioner shards; partition it "
                  "first (XLA's Shardy partitioner), or move it into the "
                  "shard_map";
    if (ret->getOperands() != m->getResults() ||
        m.getTensors() != ValueRange(fb.getArguments()))
      return m.emitError() << "@" << fn.getSymName()
                           << " must pass its arguments to the shard_map and "
                              "return its results as they are";
    // The body becomes the function: the per-device program.
    Block &body = m.getBody().front();
    Operation *bodyRet = body.getTerminator();
    // The op's verifier checks these; the rewiring below needs them.
    if (body.getNumArguments() != fb.getNumArguments() ||
        bodyRet->getNumOperands() != m->getNumResults())
      return m.emitError() << "'sdy.manual_computation' body takes "
                           << body.getNumArguments() << " arguments for "
                           << fb.getNumArguments() << " operands and returns "
                           << bodyRet->getNumOperands() << " values for "
                           << m->getNumResults() << " results";
    auto type = FunctionType::get(ctx, body.getArgumentTypes(),
                                  bodyRet->getOperandTypes());
    SmallVector<Value> results(bodyRet->getOperands());
    ret->setOperands(results);
    bodyRet->erase();
    fb.getOperations().splice(Block::iterator(m), body.getOperations());
    for (auto [outer, inner] :
         llvm::zip(fb.getArguments(), body.getArguments())) {
      outer.setType(inner.getType());
      inner.replaceAllUsesWith(outer);
    }
    m.erase();
    fn.setType(type);
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      fn.setArgAttrs(i, withoutSdy(fn.getArgAttrDict(i), ctx));
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      fn.setResultAttrs(i, withoutSdy(fn.getResultAttrDict(i), ctx));
  }
  for (sdy::MeshOp mesh :
       llvm::make_early_inc_range(module.getOps<sdy::MeshOp>()))
    mesh.erase();
  // The mesh's devices are the partitions the replica groups number.
  Attribute parts = module->getAttr("mhlo.num_partitions");
  // As JAX writes it, an i32: devices <= kMaxRanks fits.
  if (!parts)
    module->setAttr("mhlo.num_partitions",
                    IntegerAttr::get(IntegerType::get(ctx, 32), devices));
  else if (std::optional<int64_t> p = stablehlo::intValue(parts);
           p != devices) {
    InFlightDiagnostic d = module.emitError() << "mhlo.num_partitions = ";
    if (p)
      d << *p;
    else
      d << parts;
    return d << " but the shard_map's mesh has " << devices << " devices";
  }
  return success();
}
