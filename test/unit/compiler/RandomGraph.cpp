//===- RandomGraph.cpp - Random training graphs for property tests --------===//
#include "RandomGraph.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Topology.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <map>
#include <random>

using namespace mlir;
using namespace mlir::comm;

void hccl::testing::loadDialects(MLIRContext &ctx) {
  ctx.loadDialect<CommDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect>();
}

func::FuncOp hccl::testing::getGraphFunc(ModuleOp m) {
  return m.lookupSymbol<func::FuncOp>("graph");
}

OwningOpRef<ModuleOp> hccl::testing::makeRandomGraph(MLIRContext &ctx,
                                                     const GraphSpec &spec) {
  loadDialects(ctx);
  std::mt19937_64 rng(spec.seed);
  auto uniform = [&](double a, double b) {
    return std::uniform_real_distribution<double>(a, b)(rng);
  };
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };

  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  auto topo = hccl::sched::Topology::preset(spec.topology);
  (*module)->setAttr(CommDialect::getTopologyAttrName(),
                     TopologyAttr::get(&ctx, *topo));
  b.setInsertionPointToEnd(module->getBody());
  int64_t world = topo->worldSize(), per = topo->devicesPerServer;
  SmallVector<int64_t> all, byServer;
  for (int64_t r = 0; r < world; ++r)
    all.push_back(r);
  b.create<GroupOp>(loc, "dp", all, world, FlatSymbolRefAttr());
  b.create<GroupOp>(loc, "tp", all, per, FlatSymbolRefAttr());

  // Element shapes: gradients from 1 KiB to 4 MiB, two element types.
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type();
  SmallVector<RankedTensorType> types = {RankedTensorType::get({256}, f32),
                                         RankedTensorType::get({4096}, f32),
                                         RankedTensorType::get({65536}, f32),
                                         RankedTensorType::get({1 << 20}, f32),
                                         RankedTensorType::get({2048}, bf16),
                                         RankedTensorType::get({262144}, bf16)};
  SmallVector<Type> argTypes(types.begin(), types.end());
  auto sinkTy = b.getFunctionType({types[0]}, {});
  auto sink = b.create<func::FuncOp>(loc, "sink", sinkTy);
  sink.setPrivate();
  auto fn = b.create<func::FuncOp>(loc, "graph",
                                   b.getFunctionType(argTypes, argTypes));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToEnd(body);

  std::map<size_t, SmallVector<Value>> pool;
  for (size_t t = 0; t < types.size(); ++t)
    pool[t].push_back(body->getArgument(t));
  // Prefer recent values, so chains (and dependences on collectives) form.
  auto recent = [&](size_t t) {
    SmallVector<Value> &vs = pool[t];
    size_t window = std::min<size_t>(vs.size(), 6);
    return vs[vs.size() - 1 - pick(window)];
  };
  FlatSymbolRefAttr dp = FlatSymbolRefAttr::get(&ctx, "dp"),
                    tp = FlatSymbolRefAttr::get(&ctx, "tp");
  int64_t tid = 0;
  auto tag = [&](Operation *op) {
    op->setAttr("tid", b.getI64IntegerAttr(tid++));
  };

  for (int i = 0; i < spec.ops; ++i) {
    size_t t = pick(types.size());
    double roll = uniform(0, 1);
    if (roll < spec.commShare) {
      Value v = spec.consumers ? recent(t) : pool[t][pick(pool[t].size())];
      SmallVector<Value> ins{v};
      if (uniform(0, 1) < 0.1)
        ins.push_back(recent(t));
      auto kind = uniform(0, 1) < 0.9 ? ReductionKind::sum : ReductionKind::max;
      auto ar = b.create<AllReduceOp>(loc, ReductionKindAttr::get(&ctx, kind),
                                      ins, uniform(0, 1) < 0.75 ? dp : tp,
                                      AlgorithmAttr());
      tag(ar);
      if (spec.consumers)
        for (Value r : ar.getResults())
          pool[t].push_back(r);
      continue;
    }
    if (spec.sideEffects && roll < spec.commShare + 0.03) {
      if (uniform(0, 1) < 0.5) {
        tag(b.create<func::CallOp>(loc, sink, ValueRange{recent(0)}));
      } else {
        auto bc = b.create<BroadcastOp>(
            loc, recent(t), dp, b.getI64IntegerAttr(0), AlgorithmAttr());
        tag(bc);
        if (spec.consumers)
          pool[t].push_back(bc.getResult());
      }
      continue;
    }
    // Compute: consumers of reduced values only when asked for.
    Value x = recent(t), y = recent(t);
    if (!spec.consumers) {
      x = pool[t].front();
      y = pool[t][pick(pool[t].size())];
    }
    Operation *op;
    switch (pick(3)) {
    case 0:
      op = b.create<arith::AddFOp>(loc, x, y);
      break;
    case 1:
      op = b.create<arith::MulFOp>(loc, x, y);
      break;
    default:
      op = b.create<arith::SubFOp>(loc, x, y);
      break;
    }
    op->setAttr(CommDialect::getCostAttrName(),
                b.getF64FloatAttr(std::floor(uniform(0, 200))));
    tag(op);
    pool[t].push_back(op->getResult(0));
  }
  SmallVector<Value> results;
  for (size_t t = 0; t < types.size(); ++t)
    results.push_back(pool[t].back());
  b.create<func::ReturnOp>(loc, results);
  return module;
}
