//===- GraphImport.cpp - Exported graphs <-> comm IR ----------------------===//
#include "GraphImport.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::comm;
namespace graph = hccl::graph;
namespace sched = hccl::sched;

static constexpr llvm::StringLiteral kNameAttr = "comm.name";
static constexpr llvm::StringLiteral kOutputsAttr = "comm.outputs";

static Type elementType(MLIRContext *ctx, sched::DataType t) {
  using D = sched::DataType;
  switch (t) {
  case D::Fp16:
    return Float16Type::get(ctx);
  case D::Bf16:
    return BFloat16Type::get(ctx);
  case D::Fp32:
    return Float32Type::get(ctx);
  case D::Fp64:
    return Float64Type::get(ctx);
  case D::Int8:
    return IntegerType::get(ctx, 8);
  case D::Int16:
    return IntegerType::get(ctx, 16);
  case D::Int32:
    return IntegerType::get(ctx, 32);
  case D::Int64:
    return IntegerType::get(ctx, 64);
  case D::Uint8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case D::Uint16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case D::Uint32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case D::Uint64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  }
  return {};
}

static RankedTensorType tensorType(MLIRContext *ctx, const graph::Tensor &t) {
  return RankedTensorType::get(t.shape, elementType(ctx, t.dtype));
}

OwningOpRef<ModuleOp> mlir::comm::importGraph(const graph::Graph &g,
                                              MLIRContext *ctx, Location loc) {
  ctx->loadDialect<CommDialect, func::FuncDialect>();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  if (g.topology) {
    const sched::Topology &t = g.topology->topology;
    FailureOr<TopologyAttr> attr =
        TopologyAttr::fromSchedule(ctx, t, [&] { return emitError(loc); });
    if (failed(attr))
      return nullptr;
    module->getOperation()->setAttr(CommDialect::getTopologyAttrName(), *attr);
  }
  b.setInsertionPointToEnd(module->getBody());
  for (const graph::Group &grp : g.groups) {
    SmallVector<int64_t> flat;
    for (const auto &sub : grp.subgroups)
      flat.append(sub.begin(), sub.end());
    b.create<GroupOp>(loc, b.getStringAttr(grp.name),
                      b.getDenseI64ArrayAttr(flat),
                      b.getI64IntegerAttr(grp.size()), FlatSymbolRefAttr());
  }

  // Inputs and outputs, derived when the file does not list them.
  std::vector<std::string> inputs = g.inputs, outputs = g.outputs;
  llvm::StringSet<> produced, consumed;
  for (const graph::Op &op : g.ops) {
    for (const std::string &in : op.inputs) {
      if (g.inputs.empty() && !produced.contains(in) && !consumed.contains(in))
        inputs.push_back(in);
      consumed.insert(in);
    }
    for (const std::string &o : op.outputs)
      produced.insert(o);
  }
  if (g.outputs.empty())
    for (const graph::Op &op : g.ops)
      for (const std::string &o : op.outputs)
        if (!consumed.contains(o))
          outputs.push_back(o);

  SmallVector<Type> argTypes, resultTypes;
  for (const std::string &n : inputs)
    argTypes.push_back(tensorType(ctx, *g.findTensor(n)));
  for (const std::string &n : outputs)
    resultTypes.push_back(tensorType(ctx, *g.findTensor(n)));
  std::string fnName = g.name.empty() ? "graph" : g.name;
  auto fn = b.create<func::FuncOp>(loc, fnName,
                                   b.getFunctionType(argTypes, resultTypes));
  Block *body = fn.addEntryBlock();
  llvm::StringMap<Value> values;
  for (auto [i, n] : llvm::enumerate(inputs)) {
    values[n] = body->getArgument(i);
    fn.setArgAttr(i, kNameAttr, b.getStringAttr(n));
  }
  b.setInsertionPointToEnd(body);

  for (const graph::Op &op : g.ops) {
    Location opLoc = NameLoc::get(b.getStringAttr(op.name), loc);
    SmallVector<Value> ins;
    for (const std::string &n : op.inputs)
      ins.push_back(values.lookup(n));
    SmallVector<Type> outs;
    for (const std::string &n : op.outputs)
      outs.push_back(tensorType(ctx, *g.findTensor(n)));
    auto group = FlatSymbolRefAttr::get(ctx, op.group);
    auto kind = ReductionKindAttr::get(
        ctx, static_cast<ReductionKind>(static_cast<int>(op.reduction)));
    Operation *created = nullptr;
    switch (op.kind) {
    case graph::OpKind::Compute: {
      auto c = b.create<ComputeOp>(
          opLoc, outs, b.getStringAttr(op.name), ins,
          op.flops ? b.getF64FloatAttr(*op.flops) : FloatAttr(),
          op.bytes ? b.getF64FloatAttr(*op.bytes) : FloatAttr());
      if (op.timeUs)
        c->setAttr(CommDialect::getCostAttrName(),
                   b.getF64FloatAttr(*op.timeUs));
      created = c;
      break;
    }
    case graph::OpKind::AllReduce:
      created = b.create<AllReduceOp>(opLoc, kind, ins, group, nullptr);
      break;
    case graph::OpKind::AllGather:
      created = b.create<AllGatherOp>(opLoc, outs[0], ins[0], group,
                                      b.getI64IntegerAttr(op.dim), nullptr);
      break;
    case graph::OpKind::ReduceScatter:
      created = b.create<ReduceScatterOp>(opLoc, outs[0], kind, ins[0], group,
                                          b.getI64IntegerAttr(op.dim), nullptr);
      break;
    case graph::OpKind::Broadcast:
      created = b.create<BroadcastOp>(opLoc, outs[0], ins[0], group,
                                      b.getI64IntegerAttr(op.root), nullptr);
      break;
    case graph::OpKind::Reduce:
      created = b.create<ReduceOp>(opLoc, outs[0], kind, ins[0], group,
                                   b.getI64IntegerAttr(op.root), nullptr);
      break;
    case graph::OpKind::AllToAll:
      created = b.create<AllToAllOp>(
          opLoc, outs[0], ins[0], group, b.getI64IntegerAttr(op.splitDim),
          b.getI64IntegerAttr(op.concatDim), nullptr);
      break;
    }
    SmallVector<Attribute> names;
    for (auto [i, n] : llvm::enumerate(op.outputs)) {
      values[n] = created->getResult(i);
      names.push_back(b.getStringAttr(n));
    }
    created->setAttr(kOutputsAttr, b.getArrayAttr(names));
    if (op.kind != graph::OpKind::Compute)
      created->setAttr(kNameAttr, b.getStringAttr(op.name));
  }
  SmallVector<Value> results;
  for (const std::string &n : outputs)
    results.push_back(values.lookup(n));
  b.create<func::ReturnOp>(loc, results);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

namespace {

std::optional<sched::DataType> dataTypeOf(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt ? toScheduleType(rt.getElementType()) : std::nullopt;
}

std::string locName(Operation *op) {
  if (auto n = op->getAttrOfType<StringAttr>(kNameAttr))
    return n.str();
  if (auto nl = dyn_cast<NameLoc>(op->getLoc()))
    return nl.getName().str();
  return {};
}

struct Exporter {
  graph::Graph g;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringSet<> used;
  int64_t fresh = 0;

  std::string uniqueName(std::string base) {
    if (base.empty())
      base = "t";
    std::string n = base;
    while (used.contains(n))
      n = base + "." + std::to_string(fresh++);
    used.insert(n);
    return n;
  }

  LogicalResult addTensor(Value v, std::string name, Operation *where) {
    auto rt = dyn_cast<RankedTensorType>(v.getType());
    auto dt = dataTypeOf(v.getType());
    if (!rt || !rt.hasStaticShape() || !dt)
      return where->emitOpError()
             << "produces " << v.getType()
             << ", which the graph format cannot hold (statically shaped "
                "tensors of the HCCL data types only)";
    graph::Tensor t;
    t.name = uniqueName(std::move(name));
    t.shape.assign(rt.getShape().begin(), rt.getShape().end());
    t.dtype = *dt;
    names[v] = t.name;
    g.tensors.push_back(std::move(t));
    return success();
  }

  LogicalResult addOp(Operation *op) {
    graph::Op gop;
    auto outNames = op->getAttrOfType<ArrayAttr>(kOutputsAttr);
    for (auto [i, res] : llvm::enumerate(op->getResults())) {
      std::string n;
      if (outNames && i < outNames.size())
        if (auto s = dyn_cast<StringAttr>(outNames[i]))
          n = s.str();
      if (failed(addTensor(res, n, op)))
        return failure();
      gop.outputs.push_back(names[res]);
    }
    for (Value in : op->getOperands()) {
      auto it = names.find(in);
      if (it == names.end())
        return op->emitOpError() << "uses a value defined outside the "
                                    "exported function body";
      gop.inputs.push_back(it->second);
    }
    gop.name = locName(op);
    if (auto kind = getScheduleCollective(op)) {
      auto coll = cast<CollectiveOpInterface>(op);
      gop.group = coll.getGroupAttr().getValue().str();
      if (auto k = coll.getReductionKind())
        gop.reduction = toSchedule(*k);
      LogicalResult r = llvm::TypeSwitch<Operation *, LogicalResult>(op)
                            .Case([&](AllReduceOp) {
                              gop.kind = graph::OpKind::AllReduce;
                              return success();
                            })
                            .Case([&](AllGatherOp o) {
                              gop.kind = graph::OpKind::AllGather;
                              gop.dim = o.getDimAttr().getInt();
                              return success();
                            })
                            .Case([&](ReduceScatterOp o) {
                              gop.kind = graph::OpKind::ReduceScatter;
                              gop.dim = o.getDimAttr().getInt();
                              return success();
                            })
                            .Case([&](BroadcastOp o) {
                              gop.kind = graph::OpKind::Broadcast;
                              gop.root = o.getRootAttr().getInt();
                              return success();
                            })
                            .Case([&](comm::ReduceOp o) {
                              gop.kind = graph::OpKind::Reduce;
                              gop.root = o.getRootAttr().getInt();
                              return success();
                            })
                            .Case([&](AllToAllOp o) {
                              gop.kind = graph::OpKind::AllToAll;
                              gop.splitDim = o.getSplitDimAttr().getInt();
                              gop.concatDim = o.getConcatDimAttr().getInt();
                              return success();
                            })
                            .Default([&](Operation *o) {
                              return o->emitOpError()
                                     << "has no graph-format equivalent";
                            });
      if (failed(r))
        return failure();
      if (gop.name.empty())
        gop.name = op->getName().getStringRef().str();
    } else {
      gop.kind = graph::OpKind::Compute;
      if (auto c = dyn_cast<ComputeOp>(op)) {
        gop.name = c.getName().str();
        if (auto f = c.getFlopsAttr())
          gop.flops = f.getValueAsDouble();
        if (auto f = c.getBytesAttr())
          gop.bytes = f.getValueAsDouble();
      } else if (gop.name.empty()) {
        gop.name = op->getName().getStringRef().str();
      }
      Attribute cost = op->getAttr(CommDialect::getCostAttrName());
      if (auto f = dyn_cast_or_null<FloatAttr>(cost))
        gop.timeUs = f.getValueAsDouble();
      else if (auto i = dyn_cast_or_null<IntegerAttr>(cost))
        gop.timeUs = static_cast<double>(i.getInt());
      if (!gop.timeUs && !gop.flops && !gop.bytes)
        gop.timeUs = 0.0;
      if (gop.outputs.empty())
        return op->emitOpError() << "has no results; the graph format's "
                                    "compute ops need at least one output";
    }
    g.ops.push_back(std::move(gop));
    return success();
  }
};

} // namespace

FailureOr<graph::Graph> mlir::comm::exportGraph(ModuleOp module,
                                                StringRef function) {
  SmallVector<func::FuncOp> fns;
  module.walk([&](func::FuncOp f) {
    if (!function.empty() ? f.getName() == function : true)
      fns.push_back(f);
  });
  if (fns.size() != 1)
    return module.emitError()
           << (fns.empty() ? "no function to export"
                           : "several functions; name one with "
                             "--graph-function");
  func::FuncOp fn = fns.front();
  if (fn.getBody().getBlocks().size() != 1)
    return fn.emitOpError() << "must have a single block to be a graph";
  Exporter ex;
  ex.g.name = fn.getName().str();
  if (TopologyAttr t = getTopology(module)) {
    graph::TopologySpec spec;
    spec.topology = t.toSchedule();
    if (!t.getPreset().empty()) {
      spec.preset = t.getPreset().str();
    } else {
      // Custom figures: a preset of the same shape plus link parameters
      // that override all of its figures.
      if (t.getServers() == 1)
        spec.preset = "host-" + std::to_string(t.getDevices());
      else if (t.getDevices() == 8)
        spec.preset = "910b-8x" + std::to_string(t.getServers());
      else
        return module.emitError()
               << "the graph format names a topology by a preset shape "
                  "(one server, or servers of 8 devices) or a rank table; "
                  "this module's #comm.topology has "
               << t.getServers() << " servers of " << t.getDevices()
               << " devices";
      spec.linkParamsJson = sched::linkParamsToJson(spec.topology);
    }
    ex.g.topology = spec;
  }
  for (GroupOp grp : module.getOps<GroupOp>()) {
    graph::Group gg;
    gg.name = grp.getSymName().str();
    for (int64_t i = 0, e = grp.getNumSubgroups(); i < e; ++i) {
      auto sub = grp.getSubgroup(i);
      gg.subgroups.emplace_back(sub.begin(), sub.end());
    }
    ex.g.groups.push_back(std::move(gg));
  }
  Block &body = fn.getBody().front();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    std::string n;
    if (auto s = fn.getArgAttrOfType<StringAttr>(i, kNameAttr))
      n = s.str();
    if (failed(
            ex.addTensor(arg, n.empty() ? "arg" + std::to_string(i) : n, fn)))
      return failure();
    ex.g.inputs.push_back(ex.names[arg]);
  }
  llvm::DenseMap<Operation *, Operation *> pendingWaits;
  for (Operation &op : body) {
    if (isa<func::ReturnOp>(op)) {
      for (Value v : op.getOperands())
        ex.g.outputs.push_back(ex.names[v]);
      continue;
    }
    if (isa<ScheduleOp>(op))
      return op.emitOpError() << "is a lowered schedule: export the graph "
                                 "before comm-lower-schedule";
    if (auto start = dyn_cast<StartOp>(op)) {
      Operation *coll = start.getCollective();
      if (isa_and_nonnull<ScheduleOp>(coll))
        return coll->emitOpError() << "is a lowered schedule: export the "
                                      "graph before comm-lower-schedule";
      if (failed(ex.addOp(coll)))
        return failure();
      // The wait's results are the collective's.
      WaitOp w = start.getWait();
      for (auto [r, c] : llvm::zip(w.getResults(), coll->getResults()))
        ex.names[r] = ex.names[c];
      continue;
    }
    if (isa<WaitOp>(op))
      continue;
    if (op.getNumRegions() != 0)
      return op.emitOpError() << "has regions; graphs are straight-line";
    if (op.getNumResults() == 0)
      return op.emitOpError() << "has no results and cannot be a graph op";
    if (failed(ex.addOp(&op)))
      return failure();
  }
  if (hccl::sched::Status s = graph::validateGraph(ex.g); !s)
    return module.emitError() << "exported graph is invalid: " << s.message();
  return std::move(ex.g);
}
