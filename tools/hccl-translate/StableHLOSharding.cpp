//===- StableHLOSharding.cpp - programs whose communication is implicit ---===//
#include "StableHLOSharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

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
