//===- ProgramIR.cpp - Step programs <-> comm.schedule IR -----------------===//
//
// Emission places each expression at the outermost scope its variables allow
// (schedule body, phase body, repeat body) and emits it once per scope, so
// a program of k ops over any p is O(k + expression nodes) IR.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/Comm/ProgramIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

void mlir::comm::applyAlgorithm(AlgorithmAttr algo, sched::Program &prog) {
  prog.algorithm = algo.getKind();
  prog.level0 = algo.getLevel0();
  prog.level1 = algo.getLevel1();
  prog.slices = algo.getSlices();
}

//===----------------------------------------------------------------------===//
// Program -> IR
//===----------------------------------------------------------------------===//

namespace {

enum Level { Top = 0, InPhase = 1, InRepeat = 2 };

class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, const sched::Program &prog)
      : b(b), loc(loc), prog(prog), pool(prog.pool) {}

  ProgramOp run(StringRef name, Type elementType, bool podSplit) {
    MLIRContext *ctx = b.getContext();
    auto coll = static_cast<CollectiveKind>(static_cast<int>(prog.collective));
    ReductionKindAttr kind;
    if (sched::isReduction(prog.collective))
      kind = ReductionKindAttr::get(
          ctx, static_cast<ReductionKind>(static_cast<int>(prog.reduceOp)));
    ArrayAttr tables;
    if (!prog.tables.empty()) {
      SmallVector<Attribute> ts;
      for (const auto &t : prog.tables)
        ts.push_back(b.getDenseI64ArrayAttr(t));
      tables = b.getArrayAttr(ts);
    }
    auto algo = AlgorithmAttr::get(ctx, prog.algorithm, prog.level0,
                                   prog.level1, prog.slices, podSplit);
    auto op = b.create<ProgramOp>(
        loc, b.getStringAttr(name), CollectiveKindAttr::get(ctx, coll), kind,
        algo, b.getI64IntegerAttr(prog.p), b.getI64IntegerAttr(prog.n),
        b.getI64IntegerAttr(prog.root), TypeAttr::get(elementType), tables,
        IntegerAttr(), b.getI64IntegerAttr(prog.inputOuter),
        b.getI64IntegerAttr(prog.outputOuter));
    Block *body = b.createBlock(&op.getBody());
    Type idx = b.getIndexType();
    body->addArguments({idx, idx, idx}, {loc, loc, loc});
    vars[static_cast<int>(sched::ExprVar::R)] = body->getArgument(0);
    vars[static_cast<int>(sched::ExprVar::P)] = body->getArgument(1);
    vars[static_cast<int>(sched::ExprVar::N)] = body->getArgument(2);
    topBlock = body;

    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    topIp = b.saveInsertionPoint();
    Value sizes[3];
    for (int i = 0; i < sched::kNumBuffers; ++i)
      sizes[i] = prog.bufferSize[i] == sched::kNoExpr
                     ? constant(0, Top)
                     : emit(prog.bufferSize[i], Top);
    b.restoreInsertionPoint(topIp);
    b.create<BuffersOp>(loc, sizes[0], sizes[1], sizes[2]);
    topIp = b.saveInsertionPoint();

    for (const sched::Phase &ph : prog.phases)
      emitPhase(ph);
    return op;
  }

private:
  void emitPhase(const sched::Phase &ph) {
    int64_t steps = 0;
    sched::EvalEnv env = prog.env(0, paramValues());
    pool.evaluate(ph.steps, env, steps);
    b.restoreInsertionPoint(topIp);
    auto phase = b.create<PhaseOp>(loc, b.getStringAttr(ph.name),
                                   b.getI64IntegerAttr(steps), IntegerAttr());
    // Top-level values for this phase go right before it.
    b.setInsertionPoint(phase);
    topIp = b.saveInsertionPoint();
    Block *body = b.createBlock(&phase.getBody());
    vars[static_cast<int>(sched::ExprVar::S)] =
        body->addArgument(b.getIndexType(), loc);
    resetScope(InPhase);
    b.setInsertionPointToEnd(body);
    phaseIp = b.saveInsertionPoint();
    for (const sched::Op &op : ph.ops)
      emitOp(op);
    b.setInsertionPointAfter(phase);
    topIp = b.saveInsertionPoint();
  }

  bool usesT(const sched::Op &op) {
    for (sched::ExprId id : {op.when, op.peer, op.dst.off, op.src.off, op.count,
                             op.srcStride, op.srcN})
      if (id != sched::kNoExpr && pool.uses(id, sched::ExprVar::T))
        return true;
    return false;
  }

  void emitOp(const sched::Op &op) {
    // An op that reads t but does not repeat runs once with t = 0: it gets
    // a one-instance repeat so that t has a definition.
    bool repeated = op.repeat != sched::kNoExpr || usesT(op);
    RepeatOp rep;
    if (repeated) {
      Value count = op.repeat != sched::kNoExpr ? emit(op.repeat, InPhase)
                                                : constant(1, Top);
      b.restoreInsertionPoint(phaseIp);
      rep = b.create<RepeatOp>(loc, count);
      // Phase-level values the fields need go before the repeat, which
      // they must dominate; the phase continues after it.
      b.setInsertionPoint(rep);
      phaseIp = b.saveInsertionPoint();
      Block *body = b.createBlock(&rep.getBody());
      vars[static_cast<int>(sched::ExprVar::T)] =
          body->addArgument(b.getIndexType(), loc);
      resetScope(InRepeat);
      b.setInsertionPointToEnd(body);
      repeatIp = b.saveInsertionPoint();
    }
    Level level = repeated ? InRepeat : InPhase;
    SmallVector<OpFoldResult> fields;
    for (StepField f : getStepFields(op.kind)) {
      sched::ExprId id = sched::kNoExpr;
      switch (f) {
      case StepField::When:
        id = op.when;
        break;
      case StepField::Peer:
        id = op.peer;
        break;
      case StepField::DstOff:
        id = op.dst.off;
        break;
      case StepField::SrcOff:
        id = op.src.off;
        break;
      case StepField::Count:
        id = op.count;
        break;
      case StepField::Stride:
        id = op.srcStride;
        break;
      case StepField::SrcN:
        id = op.srcN;
        break;
      }
      int64_t c;
      if (id == sched::kNoExpr)
        fields.push_back(b.getIndexAttr(
            f == StepField::When || f == StepField::SrcN ? 1 : 0));
      else if (pool.isConstant(id, &c))
        fields.push_back(b.getIndexAttr(c));
      else
        fields.push_back(emit(id, level));
    }
    b.restoreInsertionPoint(repeated ? repeatIp : phaseIp);
    buildStepOp(b, loc, op.kind, fields,
                static_cast<BufferKind>(static_cast<int>(op.dst.buf)),
                static_cast<BufferKind>(static_cast<int>(op.src.buf)));
    if (repeated)
      b.setInsertionPointAfter(rep);
    phaseIp = b.saveInsertionPoint();
  }

  Level levelOf(sched::ExprId id) {
    if (pool.uses(id, sched::ExprVar::T))
      return InRepeat;
    if (pool.uses(id, sched::ExprVar::S))
      return InPhase;
    return Top;
  }

  void setInsertion(Level l) {
    b.restoreInsertionPoint(l == Top       ? topIp
                            : l == InPhase ? phaseIp
                                           : repeatIp);
  }
  void saveInsertion(Level l) {
    (l == Top       ? topIp
     : l == InPhase ? phaseIp
                    : repeatIp) = b.saveInsertionPoint();
  }

  /// Constants live at the top of the body, visible everywhere inside.
  Value constant(int64_t v, Level) {
    auto it = constants.find(v);
    if (it != constants.end())
      return it->second;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(topBlock);
    Value c = b.create<arith::ConstantIndexOp>(loc, v);
    constants[v] = c;
    return c;
  }

  /// Forgets what was emitted inside a scope that has been closed.
  void resetScope(Level l) {
    memo[l].clear();
    for (auto it = conditions.begin(); it != conditions.end();)
      it = it->first.first >= l ? conditions.erase(it) : std::next(it);
  }

  /// i1 form of a value used as a condition.
  Value asCondition(sched::ExprId id, Level at) {
    const sched::ExprNode &nd = pool.node(id);
    if (nd.op >= sched::ExprOp::Eq && nd.op <= sched::ExprOp::Ge) {
      auto it = conditions.find({at, id});
      if (it != conditions.end())
        return it->second;
    }
    Value v = emit(id, at);
    setInsertion(at);
    Value zero = constant(0, Top);
    setInsertion(at);
    Value c = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero);
    saveInsertion(at);
    return c;
  }

  /// Emits `id` at the outermost level its variables allow, but never
  /// outside `atMost` (the scope of the user).
  Value emit(sched::ExprId id, Level atMost) {
    Level l = std::min(levelOf(id), atMost);
    // Anything at Top or in the current phase is visible further in.
    for (int lv = l; lv >= Top; --lv) {
      auto it = memo[lv].find(id);
      if (it != memo[lv].end())
        return it->second;
    }
    const sched::ExprNode &nd = pool.node(id);
    Value result;
    auto child = [&](sched::ExprId c) { return emit(c, l); };
    switch (nd.op) {
    case sched::ExprOp::Const:
      return constant(nd.imm, l);
    case sched::ExprOp::Var:
      return vars[nd.imm];
    case sched::ExprOp::Param: {
      setInsertion(Top);
      const sched::Param &p = prog.params[nd.imm];
      result = b.create<ParamOp>(loc, b.getIndexType(), b.getStringAttr(p.name),
                                 b.getI64IntegerAttr(p.value));
      saveInsertion(Top);
      memo[Top][id] = result;
      return result;
    }
    case sched::ExprOp::Select: {
      Value cond = asCondition(nd.a, l);
      Value x = child(nd.b), y = child(nd.c);
      setInsertion(l);
      result = b.create<arith::SelectOp>(loc, cond, x, y);
      break;
    }
    case sched::ExprOp::Table: {
      Value e = child(nd.a);
      setInsertion(l);
      result = b.create<TableAtOp>(loc, b.getIndexType(), e,
                                   b.getI64IntegerAttr(nd.imm));
      break;
    }
    default: {
      Value x = child(nd.a), y = child(nd.b);
      setInsertion(l);
      result = binary(nd.op, x, y, id, l);
      break;
    }
    }
    saveInsertion(l);
    memo[l][id] = result;
    return result;
  }

  Value binary(sched::ExprOp op, Value x, Value y, sched::ExprId id, Level l) {
    using O = sched::ExprOp;
    auto cmp = [&](arith::CmpIPredicate pred) -> Value {
      Value c = b.create<arith::CmpIOp>(loc, pred, x, y);
      conditions[{l, id}] = c;
      return b.create<arith::IndexCastUIOp>(loc, b.getIndexType(), c);
    };
    switch (op) {
    case O::Add:
      return b.create<arith::AddIOp>(loc, x, y);
    case O::Sub:
      return b.create<arith::SubIOp>(loc, x, y);
    case O::Mul:
      return b.create<arith::MulIOp>(loc, x, y);
    case O::Div:
      return b.create<arith::FloorDivSIOp>(loc, x, y);
    case O::Mod:
      return b.create<EModOp>(loc, b.getIndexType(), x, y);
    case O::Xor:
      return b.create<arith::XOrIOp>(loc, x, y);
    case O::And:
      return b.create<arith::AndIOp>(loc, x, y);
    case O::Or:
      return b.create<arith::OrIOp>(loc, x, y);
    case O::Shl:
      return b.create<arith::ShLIOp>(loc, x, y);
    case O::Shr:
      return b.create<arith::ShRSIOp>(loc, x, y);
    case O::Min:
      return b.create<arith::MinSIOp>(loc, x, y);
    case O::Max:
      return b.create<arith::MaxSIOp>(loc, x, y);
    case O::Eq:
      return cmp(arith::CmpIPredicate::eq);
    case O::Ne:
      return cmp(arith::CmpIPredicate::ne);
    case O::Lt:
      return cmp(arith::CmpIPredicate::slt);
    case O::Le:
      return cmp(arith::CmpIPredicate::sle);
    case O::Gt:
      return cmp(arith::CmpIPredicate::sgt);
    case O::Ge:
      return cmp(arith::CmpIPredicate::sge);
    default:
      break;
    }
    llvm_unreachable("not a binary expression opcode");
  }

  const int64_t *paramValues() {
    if (values.empty())
      values = prog.paramValues();
    return values.data();
  }

  OpBuilder &b;
  Location loc;
  const sched::Program &prog;
  const sched::ExprPool &pool;
  Value vars[sched::kNumExprVars];
  Block *topBlock = nullptr;
  OpBuilder::InsertPoint topIp, phaseIp, repeatIp;
  llvm::DenseMap<sched::ExprId, Value> memo[3];
  std::map<int64_t, Value> constants;
  std::map<std::pair<Level, sched::ExprId>, Value> conditions;
  std::vector<int64_t> values;
};

} // namespace

ProgramOp mlir::comm::buildProgramOp(OpBuilder &b, Location loc,
                                     const sched::Program &prog, StringRef name,
                                     Type elementType, bool podSplit) {
  OpBuilder::InsertionGuard guard(b);
  return Emitter(b, loc, prog).run(name, elementType, podSplit);
}

std::string mlir::comm::programSymbolName(const sched::Program &prog) {
  std::string s = std::string(sched::collectiveName(prog.collective)) + "_" +
                  sched::algorithmName(prog.algorithm);
  if (prog.algorithm == sched::Algorithm::Hierarchical)
    s += std::string("_") + sched::algorithmName(prog.level0) + "_" +
         sched::algorithmName(prog.level1);
  s += "_p" + std::to_string(prog.p) + "_n" + std::to_string(prog.n) + "_" +
       sched::dataTypeName(prog.dtype);
  if (sched::isReduction(prog.collective))
    s += std::string("_") + sched::reduceOpName(prog.reduceOp);
  if (prog.slices != 1)
    s += "_s" + std::to_string(prog.slices);
  if (prog.inputOuter != 1)
    s += "_in" + std::to_string(prog.inputOuter);
  if (prog.outputOuter != 1)
    s += "_out" + std::to_string(prog.outputOuter);
  bool rootParam = false;
  for (const sched::Param &p : prog.params) {
    s += "_" + p.name + std::to_string(p.value);
    rootParam |= p.name == "root";
  }
  if (prog.root != 0 && !rootParam)
    s += "_root" + std::to_string(prog.root);
  if (!prog.tables.empty()) {
    // FNV-1a of the tables: all-to-all-v counts differ per call.
    uint64_t h = 1469598103934665603ull;
    for (const auto &t : prog.tables)
      for (int64_t v : t)
        for (int i = 0; i < 8; ++i) {
          h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xff;
          h *= 1099511628211ull;
        }
    char buf[20];
    std::snprintf(buf, sizeof(buf), "_t%016llx",
                  static_cast<unsigned long long>(h));
    s += buf;
  }
  return s;
}

//===----------------------------------------------------------------------===//
// IR -> Program
//===----------------------------------------------------------------------===//

namespace {

/// Bounds on what a comm.program may spell, since the plan writer and the
/// evaluators walk expressions as trees: a chain of 200k adds overflowed the
/// stack of --comm-to-plan, and 60 self-multiplications (a DAG of 60 nodes,
/// a tree of 2^60) printed for ever. Generated programs stay far below:
/// over every algorithm, collective, p <= 4096 and slicing, at most 12
/// levels, 279 nodes per field and 4941 per program.
constexpr uint32_t kMaxExprDepth = 64;
constexpr uint64_t kMaxExprNodes = 1 << 16;
constexpr uint64_t kMaxProgramExprNodes = 1 << 20;

class Reader {
public:
  explicit Reader(ProgramOp op) : op(op) {}

  FailureOr<sched::Program> run() {
    sched::Program &prog = builder.program();
    prog.collective =
        static_cast<sched::Collective>(static_cast<int>(op.getCollective()));
    if (auto k = op.getKindAttr())
      prog.reduceOp =
          static_cast<sched::ReduceOp>(static_cast<int>(k.getValue()));
    applyAlgorithm(op.getAlgoAttr(), prog);
    Type et = op.getElementType();
    auto dt = toScheduleType(et);
    if (!dt)
      return op.emitOpError()
             << "element type " << et << " has no lib/schedule data type";
    prog.dtype = *dt;
    prog.p = op.getRanksAttr().getInt();
    prog.n = op.getCountAttr().getInt();
    prog.root = op.getRootAttr().getInt();
    prog.inputOuter = op.getInputOuter();
    prog.outputOuter = op.getOutputOuter();
    if (auto tables = op.getTablesAttr())
      for (Attribute t : tables)
        prog.tables.emplace_back(
            cast<DenseI64ArrayAttr>(t).asArrayRef().begin(),
            cast<DenseI64ArrayAttr>(t).asArrayRef().end());

    Block &body = op.getBodyBlock();
    map[body.getArgument(0)] = builder.r().id();
    map[body.getArgument(1)] = builder.p().id();
    map[body.getArgument(2)] = builder.n().id();
    bool sawBuffers = false;
    for (Operation &o : body) {
      if (auto bufs = dyn_cast<BuffersOp>(o)) {
        sched::ExprId ids[3] = {sched::kNoExpr, sched::kNoExpr, sched::kNoExpr};
        if (failed(lookup(bufs, bufs.getInput(), ids[0])) ||
            failed(lookup(bufs, bufs.getOutput(), ids[1])) ||
            failed(lookup(bufs, bufs.getScratch(), ids[2])))
          return failure();
        for (int i = 0; i < 3; ++i)
          prog.bufferSize[i] = ids[i];
        sawBuffers = true;
        continue;
      }
      if (auto phase = dyn_cast<PhaseOp>(o)) {
        if (failed(readPhase(phase)))
          return failure();
        continue;
      }
      if (failed(readExpr(&o)))
        return failure();
    }
    if (!sawBuffers)
      return op.emitOpError() << "has no comm.buffers";
    sched::Program result = builder.take();
    if (sched::Status s = result.validate(); !s)
      return op.emitOpError()
             << "does not form a valid step program: " << s.message();
    return result;
  }

private:
  LogicalResult lookup(Operation *user, Value v, sched::ExprId &out) {
    auto it = map.find(v);
    if (it == map.end())
      return user->emitOpError()
             << "uses a value that is not a step-program expression";
    out = it->second;
    return success();
  }

  /// Depth and tree size of the pool's nodes, extended as it grows
  /// (children are interned before their parents).
  void measure() {
    const sched::ExprPool &pl = pool();
    for (size_t i = depth.size(); i < pl.size(); ++i) {
      const sched::ExprNode &nd = pl.node(i);
      uint32_t d = 0;
      uint64_t n = 1;
      sched::ExprId kids[3] = {nd.a, nd.b, nd.c};
      for (int k = 0; k < sched::exprOpArity(nd.op); ++k)
        if (kids[k] < i) {
          d = std::max(d, depth[kids[k]] + 1);
          n = std::min(n + nodes[kids[k]], kMaxProgramExprNodes + 1);
        }
      depth.push_back(d);
      nodes.push_back(n);
    }
  }

  /// The bounds above, at the op that builds or uses expression `id`;
  /// `used` counts it towards the program's total.
  LogicalResult checkExpr(Operation *o, sched::ExprId id, bool used) {
    measure();
    if (id >= depth.size())
      return success();
    if (depth[id] > kMaxExprDepth || nodes[id] > kMaxExprNodes)
      return o->emitOpError()
             << "builds a step-program expression " << depth[id]
             << " levels deep with " << nodes[id]
             << " nodes written out; the limits are " << kMaxExprDepth
             << " levels and " << kMaxExprNodes << " nodes";
    if (used && (total += nodes[id]) > kMaxProgramExprNodes)
      return o->emitOpError()
             << "brings the program's expressions to more than "
             << kMaxProgramExprNodes << " nodes written out";
    return success();
  }

  LogicalResult readPhase(PhaseOp phase) {
    int64_t first = phase.getStepAttr() ? phase.getStepAttr().getInt() : 0;
    builder.addPhase(phase.getName().str(),
                     builder.c(phase.getStepsAttr().getInt()));
    map[phase.getStepArg()] =
        first ? (builder.s() + first).id() : builder.s().id();
    for (Operation &o : phase.getBodyBlock()) {
      if (auto rep = dyn_cast<RepeatOp>(o)) {
        sched::ExprId count = sched::kNoExpr;
        if (failed(lookup(rep, rep.getCount(), count)))
          return failure();
        map[rep.getIndexArg()] = builder.t().id();
        for (Operation &inner : rep.getBodyBlock())
          if (failed(readOp(&inner, count)))
            return failure();
        continue;
      }
      if (failed(readOp(&o, sched::kNoExpr)))
        return failure();
    }
    return success();
  }

  LogicalResult readOp(Operation *o, sched::ExprId repeat) {
    auto kind = getStepKind(o);
    if (!kind)
      return readExpr(o);
    sched::Op op;
    op.kind = *kind;
    op.repeat = repeat;
    for (StepField f : getStepFields(*kind)) {
      OpFoldResult v = getStepField(o, f);
      sched::ExprId id = sched::kNoExpr;
      if (auto attr = dyn_cast_or_null<Attribute>(v))
        id = builder.c(cast<IntegerAttr>(attr).getInt()).id();
      else if (failed(lookup(o, cast<Value>(v), id)) ||
               failed(checkExpr(o, id, /*used=*/true)))
        return failure();
      switch (f) {
      case StepField::When:
        if (!builder.pool().isConstant(id) || pool().node(id).imm != 1)
          op.when = id;
        break;
      case StepField::Peer:
        op.peer = id;
        break;
      case StepField::DstOff:
        op.dst.off = id;
        break;
      case StepField::SrcOff:
        op.src.off = id;
        break;
      case StepField::Count:
        op.count = id;
        break;
      case StepField::Stride:
        op.srcStride = id;
        break;
      case StepField::SrcN:
        op.srcN = id;
        break;
      }
    }
    if (auto d = getStepDstBuffer(o))
      op.dst.buf = static_cast<sched::BufferId>(static_cast<int>(*d));
    if (auto s = getStepSrcBuffer(o))
      op.src.buf = static_cast<sched::BufferId>(static_cast<int>(*s));
    if (!sched::opHasDst(op.kind))
      op.dst = {};
    if (!sched::opHasSrc(op.kind))
      op.src = {};
    builder.addOp(op);
    return success();
  }

  const sched::ExprPool &pool() { return builder.pool(); }

  LogicalResult operand(Operation *o, unsigned i, sched::ExprId &out) {
    return lookup(o, o->getOperand(i), out);
  }

  LogicalResult readExpr(Operation *o) {
    if (failed(readExprOp(o)))
      return failure();
    return o->getNumResults() == 1
               ? checkExpr(o, map[o->getResult(0)], /*used=*/false)
               : success();
  }

  LogicalResult readExprOp(Operation *o) {
    using O = sched::ExprOp;
    sched::ExprPool &pl = builder.pool();
    auto bin = [&](O code) -> LogicalResult {
      sched::ExprId a = sched::kNoExpr, b = sched::kNoExpr;
      if (failed(operand(o, 0, a)) || failed(operand(o, 1, b)))
        return failure();
      map[o->getResult(0)] = pl.binary(code, a, b);
      return success();
    };
    return llvm::TypeSwitch<Operation *, LogicalResult>(o)
        .Case([&](arith::ConstantOp c) -> LogicalResult {
          auto i = dyn_cast<IntegerAttr>(c.getValue());
          if (!i)
            return c.emitOpError() << "is not an integer constant";
          map[c.getResult()] = pl.constant(
              i.getType().isInteger(1) ? (i.getValue().getBoolValue() ? 1 : 0)
                                       : i.getInt());
          return success();
        })
        .Case([&](ParamOp p) -> LogicalResult {
          map[p.getResult()] =
              builder.param(p.getName().str(), p.getValueAttr().getInt()).id();
          return success();
        })
        .Case([&](TableAtOp t) -> LogicalResult {
          sched::ExprId e = sched::kNoExpr;
          if (failed(operand(t, 0, e)))
            return failure();
          map[t.getResult()] = pl.table(t.getTableAttr().getInt(), e);
          return success();
        })
        .Case([&](arith::AddIOp) { return bin(O::Add); })
        .Case([&](arith::SubIOp) { return bin(O::Sub); })
        .Case([&](arith::MulIOp) { return bin(O::Mul); })
        .Case([&](arith::FloorDivSIOp) { return bin(O::Div); })
        .Case([&](EModOp) { return bin(O::Mod); })
        .Case([&](arith::XOrIOp) { return bin(O::Xor); })
        .Case([&](arith::AndIOp) { return bin(O::And); })
        .Case([&](arith::OrIOp) { return bin(O::Or); })
        .Case([&](arith::ShLIOp) { return bin(O::Shl); })
        .Case([&](arith::ShRSIOp) { return bin(O::Shr); })
        .Case([&](arith::MinSIOp) { return bin(O::Min); })
        .Case([&](arith::MaxSIOp) { return bin(O::Max); })
        .Case([&](arith::CmpIOp c) -> LogicalResult {
          switch (c.getPredicate()) {
          case arith::CmpIPredicate::eq:
            return bin(O::Eq);
          case arith::CmpIPredicate::ne:
            return bin(O::Ne);
          case arith::CmpIPredicate::slt:
            return bin(O::Lt);
          case arith::CmpIPredicate::sle:
            return bin(O::Le);
          case arith::CmpIPredicate::sgt:
            return bin(O::Gt);
          case arith::CmpIPredicate::sge:
            return bin(O::Ge);
          default:
            return c.emitOpError()
                   << "unsigned comparisons are not step-program expressions";
          }
        })
        .Case([&](arith::IndexCastUIOp c) -> LogicalResult {
          sched::ExprId e = sched::kNoExpr;
          if (failed(operand(c, 0, e)))
            return failure();
          map[c.getResult()] = e;
          return success();
        })
        .Case([&](arith::SelectOp s) -> LogicalResult {
          sched::ExprId c = sched::kNoExpr, a = sched::kNoExpr,
                        b = sched::kNoExpr;
          if (failed(operand(s, 0, c)) || failed(operand(s, 1, a)) ||
              failed(operand(s, 2, b)))
            return failure();
          map[s.getResult()] = pl.select(c, a, b);
          return success();
        })
        .Default([&](Operation *other) -> LogicalResult {
          return other->emitOpError()
                 << "is not a step-program operation (expected comm.step.*, "
                    "comm.repeat, comm.param, comm.table_at, comm.emod or "
                    "integer arith)";
        });
  }

  ProgramOp op;
  sched::ProgramBuilder builder;
  llvm::DenseMap<Value, sched::ExprId> map;
  std::vector<uint32_t> depth;
  std::vector<uint64_t> nodes;
  uint64_t total = 0;
};

} // namespace

FailureOr<sched::Program> mlir::comm::readProgram(ProgramOp op) {
  return Reader(op).run();
}
