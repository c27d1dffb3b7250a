//===- CommScheduleOps.cpp - Lowered step schedules -----------------------===//
#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::comm;
namespace sched = hccl::sched;

//===----------------------------------------------------------------------===//
// Step fields
//===----------------------------------------------------------------------===//

const char *mlir::comm::stepFieldName(StepField f) {
  switch (f) {
  case StepField::When:
    return "when";
  case StepField::Peer:
    return "peer";
  case StepField::DstOff:
    return "dst offset";
  case StepField::SrcOff:
    return "src offset";
  case StepField::Count:
    return "count";
  case StepField::Stride:
    return "stride";
  case StepField::SrcN:
    return "n";
  }
  return "?";
}

ArrayRef<StepField> mlir::comm::getStepFields(sched::OpKind kind) {
  using F = StepField;
  static const F send[] = {F::When, F::Peer, F::SrcOff, F::Count};
  static const F recv[] = {F::When, F::Peer, F::DstOff, F::Count};
  static const F recvReduce[] = {F::When, F::Peer, F::DstOff, F::SrcOff,
                                 F::Count};
  static const F copy[] = {F::When, F::DstOff, F::SrcOff, F::Count};
  static const F reduce[] = {F::When,   F::DstOff, F::SrcOff,
                             F::Stride, F::SrcN,   F::Count};
  switch (kind) {
  case sched::OpKind::Send:
    return send;
  case sched::OpKind::Recv:
    return recv;
  case sched::OpKind::RecvReduce:
    return recvReduce;
  case sched::OpKind::Copy:
    return copy;
  case sched::OpKind::Reduce:
    return reduce;
  }
  return {};
}

std::optional<sched::OpKind> mlir::comm::getStepKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<sched::OpKind>>(op)
      .Case([](StepSendOp) { return sched::OpKind::Send; })
      .Case([](StepRecvOp) { return sched::OpKind::Recv; })
      .Case([](StepRecvReduceOp) { return sched::OpKind::RecvReduce; })
      .Case([](StepCopyOp) { return sched::OpKind::Copy; })
      .Case([](StepReduceOp) { return sched::OpKind::Reduce; })
      .Default([](Operation *) { return std::nullopt; });
}

static DenseI64ArrayAttr staticFieldsOf(Operation *op) {
  auto attr = op->getInherentAttr("static_fields");
  return attr ? dyn_cast_or_null<DenseI64ArrayAttr>(*attr) : nullptr;
}

static std::optional<BufferKind> bufferOf(Operation *op, StringRef name) {
  auto attr = op->getInherentAttr(name);
  if (!attr)
    return std::nullopt;
  if (auto b = dyn_cast_or_null<BufferKindAttr>(*attr))
    return b.getValue();
  return std::nullopt;
}

std::optional<BufferKind> mlir::comm::getStepDstBuffer(Operation *op) {
  return bufferOf(op, "dst_buf");
}
std::optional<BufferKind> mlir::comm::getStepSrcBuffer(Operation *op) {
  return bufferOf(op, "src_buf");
}

OpFoldResult mlir::comm::getStepField(Operation *op, StepField f) {
  auto kind = getStepKind(op);
  DenseI64ArrayAttr statics = staticFieldsOf(op);
  if (!kind || !statics)
    return {};
  ArrayRef<StepField> fields = getStepFields(*kind);
  unsigned dyn = 0;
  for (auto [i, field] : llvm::enumerate(fields)) {
    if (static_cast<int64_t>(i) >= statics.size())
      return {};
    int64_t v = statics[i];
    if (field == f) {
      if (ShapedType::isDynamic(v))
        return dyn < op->getNumOperands() ? OpFoldResult(op->getOperand(dyn))
                                          : OpFoldResult();
      return IntegerAttr::get(IndexType::get(op->getContext()), v);
    }
    if (ShapedType::isDynamic(v))
      ++dyn;
  }
  return {};
}

Operation *mlir::comm::buildStepOp(OpBuilder &b, Location loc,
                                   sched::OpKind kind,
                                   ArrayRef<OpFoldResult> fields,
                                   BufferKind dst, BufferKind src) {
  SmallVector<Value> dynamic;
  SmallVector<int64_t> statics;
  for (OpFoldResult f : fields) {
    if (auto attr = dyn_cast<Attribute>(f)) {
      statics.push_back(cast<IntegerAttr>(attr).getInt());
    } else {
      Value v = cast<Value>(f);
      APInt c;
      if (matchPattern(v, m_ConstantInt(&c))) {
        statics.push_back(c.getSExtValue());
      } else {
        statics.push_back(ShapedType::kDynamic);
        dynamic.push_back(v);
      }
    }
  }
  MLIRContext *ctx = b.getContext();
  auto staticAttr = b.getDenseI64ArrayAttr(statics);
  bool hasDst = sched::opHasDst(kind), hasSrc = sched::opHasSrc(kind);
  BufferKindAttr dstAttr = hasDst ? BufferKindAttr::get(ctx, dst) : nullptr;
  BufferKindAttr srcAttr = hasSrc ? BufferKindAttr::get(ctx, src) : nullptr;
  switch (kind) {
  case sched::OpKind::Send:
    return b.create<StepSendOp>(loc, dynamic, staticAttr, dstAttr, srcAttr);
  case sched::OpKind::Recv:
    return b.create<StepRecvOp>(loc, dynamic, staticAttr, dstAttr, srcAttr);
  case sched::OpKind::RecvReduce:
    return b.create<StepRecvReduceOp>(loc, dynamic, staticAttr, dstAttr,
                                      srcAttr);
  case sched::OpKind::Copy:
    return b.create<StepCopyOp>(loc, dynamic, staticAttr, dstAttr, srcAttr);
  case sched::OpKind::Reduce:
    return b.create<StepReduceOp>(loc, dynamic, staticAttr, dstAttr, srcAttr);
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Step op syntax
//
//   comm.step.send input[OFF] to PEER count C (when W)?
//   comm.step.recv output[OFF] from PEER count C (when W)?
//   comm.step.recv_reduce output[OFF] from PEER with input[OFF] count C ...
//   comm.step.copy output[OFF] from input[OFF] count C ...
//   comm.step.reduce output[OFF] from scratch[OFF] stride S n K count C ...
// where each field is %ssa or an integer.
//===----------------------------------------------------------------------===//

namespace {

struct StepParseState {
  SmallVector<OpAsmParser::UnresolvedOperand> dynamic;
  SmallVector<int64_t> statics;
  std::optional<BufferKind> dst, src;
};

ParseResult parseField(OpAsmParser &parser, StepParseState &st) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult r = parser.parseOptionalOperand(operand);
  if (r.has_value()) {
    if (failed(*r))
      return failure();
    st.dynamic.push_back(operand);
    st.statics.push_back(ShapedType::kDynamic);
    return success();
  }
  int64_t v;
  if (parser.parseInteger(v))
    return failure();
  st.statics.push_back(v);
  return success();
}

ParseResult parseBufferRef(OpAsmParser &parser, StepParseState &st,
                           std::optional<BufferKind> &buf) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  buf = symbolizeBufferKind(name);
  if (!buf)
    return parser.emitError(loc) << "unknown buffer '" << name
                                 << "'; expected input, output or scratch";
  return failure(parser.parseLSquare() || parseField(parser, st) ||
                 parser.parseRSquare());
}

ParseResult parseStep(OpAsmParser &parser, OperationState &result,
                      sched::OpKind kind) {
  StepParseState st;
  // `when` is stored first but written last; parse the rest into a
  // temporary state and put `when` in front.
  StepParseState body;
  std::optional<BufferKind> b1, b2;
  using K = sched::OpKind;
  bool ok = true;
  switch (kind) {
  case K::Send:
    ok = succeeded(parseBufferRef(parser, body, b2)) &&
         succeeded(parser.parseKeyword("to"));
    // Send stores [peer, src_off]; the buffer ref parsed src_off first.
    if (ok) {
      StepParseState peer;
      ok = succeeded(parseField(parser, peer));
      if (ok) {
        body.statics.insert(body.statics.begin(), peer.statics.begin(),
                            peer.statics.end());
        body.dynamic.insert(body.dynamic.begin(), peer.dynamic.begin(),
                            peer.dynamic.end());
      }
    }
    break;
  case K::Recv:
  case K::RecvReduce: {
    StepParseState off, peer;
    ok = succeeded(parseBufferRef(parser, off, b1)) &&
         succeeded(parser.parseKeyword("from")) &&
         succeeded(parseField(parser, peer));
    if (ok) {
      body.statics.append(peer.statics);
      body.dynamic.append(peer.dynamic);
      body.statics.append(off.statics);
      body.dynamic.append(off.dynamic);
    }
    if (ok && kind == K::RecvReduce)
      ok = succeeded(parser.parseKeyword("with")) &&
           succeeded(parseBufferRef(parser, body, b2));
    break;
  }
  case K::Copy:
  case K::Reduce:
    ok = succeeded(parseBufferRef(parser, body, b1)) &&
         succeeded(parser.parseKeyword("from")) &&
         succeeded(parseBufferRef(parser, body, b2));
    if (ok && kind == K::Reduce)
      ok = succeeded(parser.parseKeyword("stride")) &&
           succeeded(parseField(parser, body)) &&
           succeeded(parser.parseKeyword("n")) &&
           succeeded(parseField(parser, body));
    break;
  }
  if (!ok || parser.parseKeyword("count") || parseField(parser, body))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("when"))) {
    if (parseField(parser, st))
      return failure();
  } else {
    st.statics.push_back(1);
  }
  st.statics.append(body.statics);
  st.dynamic.append(body.dynamic);
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Builder &b = parser.getBuilder();
  if (parser.resolveOperands(st.dynamic, b.getIndexType(), result.operands))
    return failure();
  result.addAttribute("static_fields", b.getDenseI64ArrayAttr(st.statics));
  MLIRContext *ctx = parser.getContext();
  if (kind == K::Send) {
    result.addAttribute("src_buf", BufferKindAttr::get(ctx, *b2));
  } else {
    result.addAttribute("dst_buf", BufferKindAttr::get(ctx, *b1));
    if (b2)
      result.addAttribute("src_buf", BufferKindAttr::get(ctx, *b2));
  }
  return success();
}

void printField(OpAsmPrinter &p, Operation *op, StepField f) {
  OpFoldResult v = getStepField(op, f);
  if (auto attr = dyn_cast_or_null<Attribute>(v))
    p << cast<IntegerAttr>(attr).getInt();
  else if (v)
    p.printOperand(cast<Value>(v));
  else
    p << "<<missing>>";
}

void printBufferRef(OpAsmPrinter &p, Operation *op, std::optional<BufferKind> b,
                    StepField off) {
  p << (b ? stringifyBufferKind(*b) : StringRef("<<missing>>")) << "[";
  printField(p, op, off);
  p << "]";
}

void printStep(OpAsmPrinter &p, Operation *op, sched::OpKind kind) {
  using K = sched::OpKind;
  using F = StepField;
  p << ' ';
  switch (kind) {
  case K::Send:
    printBufferRef(p, op, getStepSrcBuffer(op), F::SrcOff);
    p << " to ";
    printField(p, op, F::Peer);
    break;
  case K::Recv:
  case K::RecvReduce:
    printBufferRef(p, op, getStepDstBuffer(op), F::DstOff);
    p << " from ";
    printField(p, op, F::Peer);
    if (kind == K::RecvReduce) {
      p << " with ";
      printBufferRef(p, op, getStepSrcBuffer(op), F::SrcOff);
    }
    break;
  case K::Copy:
  case K::Reduce:
    printBufferRef(p, op, getStepDstBuffer(op), F::DstOff);
    p << " from ";
    printBufferRef(p, op, getStepSrcBuffer(op), F::SrcOff);
    if (kind == K::Reduce) {
      p << " stride ";
      printField(p, op, F::Stride);
      p << " n ";
      printField(p, op, F::SrcN);
    }
    break;
  }
  p << " count ";
  printField(p, op, F::Count);
  OpFoldResult when = getStepField(op, F::When);
  auto c = dyn_cast_or_null<Attribute>(when);
  if (!c || cast<IntegerAttr>(c).getInt() != 1) {
    p << " when ";
    printField(p, op, F::When);
  }
  p.printOptionalAttrDict(op->getAttrs(),
                          {"static_fields", "dst_buf", "src_buf"});
}

LogicalResult verifyStep(Operation *op, sched::OpKind kind) {
  DenseI64ArrayAttr statics = staticFieldsOf(op);
  size_t expected = getStepFields(kind).size();
  if (!statics || static_cast<size_t>(statics.size()) != expected)
    return op->emitOpError()
           << "expected " << expected << " static field entries, found "
           << (statics ? statics.size() : 0);
  size_t dyn = llvm::count_if(statics.asArrayRef(), ShapedType::isDynamic);
  if (dyn != op->getNumOperands())
    return op->emitOpError()
           << "expected " << dyn << " dynamic field operands, found "
           << op->getNumOperands();
  if (sched::opHasDst(kind) != getStepDstBuffer(op).has_value())
    return op->emitOpError()
           << (sched::opHasDst(kind) ? "expected a destination buffer"
                                     : "unexpected destination buffer");
  if (sched::opHasSrc(kind) != getStepSrcBuffer(op).has_value())
    return op->emitOpError()
           << (sched::opHasSrc(kind) ? "expected a source buffer"
                                     : "unexpected source buffer");
  if (getStepDstBuffer(op) == BufferKind::input)
    return op->emitOpError()
           << "writes the input buffer: the user's send buffer is const";
  // Constant fields must be in range where that is decidable here.
  for (auto [i, f] : llvm::enumerate(getStepFields(kind))) {
    int64_t v = statics[i];
    if (ShapedType::isDynamic(v) || f == StepField::When)
      continue;
    if (v < 0)
      return op->emitOpError()
             << stepFieldName(f) << " " << v << " is negative";
    if (f == StepField::SrcN && v < 1)
      return op->emitOpError() << "n must be >= 1, found " << v;
  }
  return success();
}

/// Folds constant operands into static fields; erases ops whose `when` is
/// a constant zero.
template <typename OpTy> struct FoldStepFields : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Operation *o = op.getOperation();
    OpFoldResult when = getStepField(o, StepField::When);
    if (auto c = dyn_cast_or_null<Attribute>(when))
      if (cast<IntegerAttr>(c).getInt() == 0) {
        rewriter.eraseOp(o);
        return success();
      }
    bool changed = false;
    SmallVector<OpFoldResult> fields;
    for (StepField f : getStepFields(*getStepKind(o))) {
      OpFoldResult v = getStepField(o, f);
      if (auto val = dyn_cast<Value>(v)) {
        APInt c;
        if (matchPattern(val, m_ConstantInt(&c))) {
          int64_t x = c.getSExtValue();
          if (f == StepField::When && x != 0)
            x = 1;
          v = rewriter.getIndexAttr(x);
          changed = true;
        }
      }
      fields.push_back(v);
    }
    if (!changed)
      return failure();
    Operation *repl =
        buildStepOp(rewriter, o->getLoc(), *getStepKind(o), fields,
                    getStepDstBuffer(o).value_or(BufferKind::output),
                    getStepSrcBuffer(o).value_or(BufferKind::input));
    rewriter.replaceOp(o, repl->getResults());
    return success();
  }
};

} // namespace

#define HCCL_DEFINE_STEP_OP(CLS, KIND)                                         \
  ParseResult CLS::parse(OpAsmParser &parser, OperationState &result) {        \
    return parseStep(parser, result, sched::OpKind::KIND);                     \
  }                                                                            \
  void CLS::print(OpAsmPrinter &p) {                                           \
    printStep(p, getOperation(), sched::OpKind::KIND);                         \
  }                                                                            \
  LogicalResult CLS::verify() {                                                \
    return verifyStep(getOperation(), sched::OpKind::KIND);                    \
  }                                                                            \
  void CLS::getCanonicalizationPatterns(RewritePatternSet &results,            \
                                        MLIRContext *ctx) {                    \
    results.add<FoldStepFields<CLS>>(ctx);                                     \
  }
HCCL_DEFINE_STEP_OP(StepSendOp, Send)
HCCL_DEFINE_STEP_OP(StepRecvOp, Recv)
HCCL_DEFINE_STEP_OP(StepRecvReduceOp, RecvReduce)
HCCL_DEFINE_STEP_OP(StepCopyOp, Copy)
HCCL_DEFINE_STEP_OP(StepReduceOp, Reduce)
#undef HCCL_DEFINE_STEP_OP

//===----------------------------------------------------------------------===//
// ProgramOp
//
//   comm.program @name all_reduce sum algo <ring> ranks 4 count 16 root 0
//       rank 3 tables [[...], ...] {attrs} : f32 {
//   ^bb0(%r: index, %p: index, %n: index):
//     ...
//   }
//===----------------------------------------------------------------------===//

/// `all_reduce sum` / `all_gather`: the collective and, for reducing ones,
/// the reduction.
static ParseResult parseCollectiveAndKind(OpAsmParser &parser,
                                          OperationState &result,
                                          StringAttr collName,
                                          StringAttr kindName) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  StringRef coll;
  if (parser.parseKeyword(&coll))
    return failure();
  auto c = symbolizeCollectiveKind(coll);
  if (!c)
    return parser.emitError(loc) << "unknown collective '" << coll << "'";
  result.addAttribute(collName, CollectiveKindAttr::get(ctx, *c));
  StringRef kind;
  if (succeeded(
          parser.parseOptionalKeyword(&kind, {"sum", "prod", "max", "min"})))
    result.addAttribute(
        kindName, ReductionKindAttr::get(ctx, *symbolizeReductionKind(kind)));
  return success();
}

static void printCollectiveAndKind(OpAsmPrinter &p, CollectiveKind c,
                                   ReductionKindAttr kind) {
  p << ' ' << stringifyCollectiveKind(c);
  if (kind)
    p << ' ' << stringifyReductionKind(kind.getValue());
}

static LogicalResult verifyKindMatches(Operation *op, CollectiveKind c,
                                       ReductionKindAttr kind) {
  bool reducing =
      sched::isReduction(static_cast<sched::Collective>(static_cast<int>(c)));
  if (reducing != static_cast<bool>(kind))
    return op->emitOpError() << (reducing ? "a reducing collective needs a "
                                            "reduction kind"
                                          : "only reducing collectives take a "
                                            "reduction kind");
  return success();
}

ParseResult ProgramOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  StringAttr name;
  AlgorithmAttr algo;
  int64_t ranks = 0, count = 0;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parseCollectiveAndKind(parser, result, getCollectiveAttrName(result.name),
                             getKindAttrName(result.name)) ||
      parser.parseKeyword("algo") ||
      parser.parseCustomAttributeWithFallback(
          algo, Type(), getAlgoAttrName(result.name), result.attributes) ||
      parser.parseKeyword("ranks") || parser.parseInteger(ranks) ||
      parser.parseKeyword("count") || parser.parseInteger(count))
    return failure();
  result.addAttribute(getRanksAttrName(result.name),
                      b.getI64IntegerAttr(ranks));
  result.addAttribute(getCountAttrName(result.name),
                      b.getI64IntegerAttr(count));
  int64_t v = 0;
  if (succeeded(parser.parseOptionalKeyword("root"))) {
    if (parser.parseInteger(v))
      return failure();
    result.addAttribute(getRootAttrName(result.name), b.getI64IntegerAttr(v));
  }
  if (succeeded(parser.parseOptionalKeyword("rank"))) {
    if (parser.parseInteger(v))
      return failure();
    result.addAttribute(getRankAttrName(result.name), b.getI64IntegerAttr(v));
  }
  if (succeeded(parser.parseOptionalKeyword("input_outer"))) {
    if (parser.parseInteger(v))
      return failure();
    result.addAttribute(getInputOuterAttrName(result.name),
                        b.getI64IntegerAttr(v));
  }
  if (succeeded(parser.parseOptionalKeyword("output_outer"))) {
    if (parser.parseInteger(v))
      return failure();
    result.addAttribute(getOutputOuterAttrName(result.name),
                        b.getI64IntegerAttr(v));
  }
  if (succeeded(parser.parseOptionalKeyword("tables"))) {
    SmallVector<Attribute> tables;
    if (parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
              SmallVector<int64_t> values;
              if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                                 [&]() -> ParseResult {
                                                   int64_t x;
                                                   if (parser.parseInteger(x))
                                                     return failure();
                                                   values.push_back(x);
                                                   return success();
                                                 }))
                return failure();
              tables.push_back(b.getDenseI64ArrayAttr(values));
              return success();
            }))
      return failure();
    result.addAttribute(getTablesAttrName(result.name), b.getArrayAttr(tables));
  }
  Type et;
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColonType(et))
    return failure();
  result.addAttribute(getElementTypeAttrName(result.name), TypeAttr::get(et));
  SmallVector<OpAsmParser::Argument> args;
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args, /*enableNameShadowing=*/false))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void ProgramOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  printCollectiveAndKind(p, getCollective(), getKindAttr());
  p << " algo ";
  p.printStrippedAttrOrType(getAlgoAttr());
  p << " ranks " << getRanksAttr().getInt() << " count "
    << getCountAttr().getInt();
  if (getRootAttr().getInt() != 0)
    p << " root " << getRootAttr().getInt();
  if (auto r = getRankAttr())
    p << " rank " << r.getInt();
  if (getInputOuter() != 1)
    p << " input_outer " << getInputOuter();
  if (getOutputOuter() != 1)
    p << " output_outer " << getOutputOuter();
  if (auto tables = getTablesAttr()) {
    p << " tables [";
    llvm::interleaveComma(tables, p, [&](Attribute a) {
      p << '[';
      llvm::interleaveComma(cast<DenseI64ArrayAttr>(a).asArrayRef(), p);
      p << ']';
    });
    p << ']';
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getCollectiveAttrName(), getKindAttrName(),
       getAlgoAttrName(), getRanksAttrName(), getCountAttrName(),
       getRootAttrName(), getRankAttrName(), getTablesAttrName(),
       getElementTypeAttrName(), getInputOuterAttrName(),
       getOutputOuterAttrName()});
  p << " : " << getElementType() << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true);
}

LogicalResult ProgramOp::verify() {
  if (failed(verifyKindMatches(*this, getCollective(), getKindAttr())))
    return failure();
  int64_t ranks = getRanksAttr().getInt();
  if (ranks < 1)
    return emitOpError() << "ranks must be >= 1, found " << ranks;
  if (getCountAttr().getInt() < 0)
    return emitOpError() << "count must be >= 0, found "
                         << getCountAttr().getInt();
  // The runtime sizes buffers as count x element size.
  if (auto dt = toScheduleType(getElementType())) {
    int64_t bytes;
    if (llvm::MulOverflow(getCountAttr().getInt(),
                          static_cast<int64_t>(hccl::sched::dataTypeSize(*dt)),
                          bytes))
      return emitOpError() << "count " << getCountAttr().getInt() << " of "
                           << getElementType()
                           << " holds more bytes than a 64-bit count can hold";
  }
  int64_t root = getRootAttr().getInt();
  if (root < 0 || root >= ranks)
    return emitOpError() << "root " << root
                         << " is outside the group: expected 0.." << ranks - 1;
  if (auto r = getRankAttr())
    if (r.getInt() < 0 || r.getInt() >= ranks)
      return emitOpError() << "rank " << r.getInt()
                           << " is outside the group: expected 0.."
                           << ranks - 1;
  if (!toScheduleType(getElementType()))
    return emitOpError() << "element type " << getElementType()
                         << " is not one the runtime moves";
  if (hccl::sched::Status s = hccl::sched::checkBlockLayout(
          static_cast<hccl::sched::Collective>(
              static_cast<int>(getCollective())),
          getCountAttr().getInt(), getInputOuter(), getOutputOuter());
      !s)
    return emitOpError() << s.message();
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  Block &body = getBodyBlock();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError() << "body must take three index arguments (rank, "
                            "group size, count), found "
                         << body.getNumArguments();
  int buffers = 0;
  for (Operation &op : body) {
    if (isa<BuffersOp>(op))
      ++buffers;
    else if (!isa<PhaseOp, ParamOp, TableAtOp, EModOp>(op) &&
             (!op.getDialect() || op.getDialect()->getNamespace() != "arith"))
      return op.emitOpError() << "is not allowed in a comm.program body "
                                 "(expected comm.buffers, comm.phase, "
                                 "comm.param, comm.table_at, comm.emod or "
                                 "arith ops)";
  }
  if (buffers != 1)
    return emitOpError() << "body must hold exactly one comm.buffers, found "
                         << buffers;
  return success();
}

void ProgramOp::getAsmBlockArgumentNames(Region &region,
                                         OpAsmSetValueNameFn setName) {
  if (region.empty() || region.front().getNumArguments() != 3)
    return;
  setName(region.front().getArgument(0), "r");
  setName(region.front().getArgument(1), "p");
  setName(region.front().getArgument(2), "n");
}

BuffersOp ProgramOp::getBuffers() {
  for (Operation &op : getBodyBlock())
    if (auto b = dyn_cast<BuffersOp>(op))
      return b;
  return {};
}

//===----------------------------------------------------------------------===//
// ScheduleOp
//
//   %r = comm.schedule @prog all_reduce sum (%a, %b) on @g algo <ring>
//          {attrs} : (T, T) -> (T, T)
//===----------------------------------------------------------------------===//

ParseResult ScheduleOp::parse(OpAsmParser &parser, OperationState &result) {
  SMLoc loc = parser.getCurrentLocation();
  FlatSymbolRefAttr program, group;
  AlgorithmAttr algo;
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  FunctionType fnType;
  if (parser.parseAttribute(program, getProgramAttrName(result.name),
                            result.attributes) ||
      parseCollectiveAndKind(parser, result, getCollectiveAttrName(result.name),
                             getKindAttrName(result.name)) ||
      parser.parseOperandList(inputs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("on") ||
      parser.parseAttribute(group, getGroupAttrName(result.name),
                            result.attributes) ||
      parser.parseKeyword("algo") ||
      parser.parseCustomAttributeWithFallback(
          algo, Type(), getAlgoAttrName(result.name), result.attributes) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(fnType) ||
      parser.resolveOperands(inputs, fnType.getInputs(), loc, result.operands))
    return failure();
  result.addTypes(fnType.getResults());
  return success();
}

void ScheduleOp::print(OpAsmPrinter &p) {
  p << ' ' << getProgramAttr();
  printCollectiveAndKind(p, getCollective(), getKindAttr());
  p << " (";
  p.printOperands(getInputs());
  p << ") on " << getGroupAttr() << " algo ";
  p.printStrippedAttrOrType(getAlgoAttr());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getProgramAttrName(), getCollectiveAttrName(),
                           getKindAttrName(), getGroupAttrName(),
                           getAlgoAttrName()});
  p << " : ";
  p.printFunctionalType(getInputs().getTypes(), getResults().getTypes());
}

LogicalResult ScheduleOp::verify() {
  if (failed(verifyKindMatches(*this, getCollective(), getKindAttr())))
    return failure();
  if (getInputs().empty())
    return emitOpError() << "expected at least one input tensor, found none";
  Type et =
      cast<RankedTensorType>(getInputs().front().getType()).getElementType();
  SmallVector<Type> types(getInputs().getTypes());
  llvm::append_range(types, getResults().getTypes());
  for (Type t : types)
    if (cast<RankedTensorType>(t).getElementType() != et)
      return emitOpError() << "all inputs and results must share one element "
                              "type (the program's dtype), found "
                           << et << " and "
                           << cast<RankedTensorType>(t).getElementType();
  return success();
}

std::optional<int64_t> ScheduleOp::getHcclCount() {
  // Sums that fit: the verifier bounds the bytes of all tensors together.
  auto sum = [](TypeRange types) -> std::optional<int64_t> {
    int64_t total = 0;
    for (Type t : types) {
      std::optional<int64_t> n = getStaticElementCount(t);
      if (!n || llvm::AddOverflow(total, *n, total))
        return std::nullopt;
    }
    return total;
  };
  std::optional<int64_t> total = sum(getInputs().getTypes());
  std::optional<int64_t> resultElems = sum(getResults().getTypes());
  if (!total || !resultElems)
    return std::nullopt;
  switch (getCollective()) {
  case CollectiveKind::reduce_scatter:
    return resultElems;
  case CollectiveKind::all_to_all:
  case CollectiveKind::all_to_allv:
    return std::nullopt; // needs p; checked against the program instead
  default:
    return total;
  }
}

LogicalResult ScheduleOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto g = tables.lookupNearestSymbolFrom<GroupOp>(*this, getGroupAttr());
  if (!g)
    return emitOpError() << "references unknown group " << getGroupAttr();
  auto prog =
      tables.lookupNearestSymbolFrom<ProgramOp>(*this, getProgramAttr());
  if (!prog)
    return emitOpError() << "references unknown program " << getProgramAttr();
  if (prog.getCollective() != getCollective() ||
      prog.getKindAttr() != getKindAttr() ||
      prog.getAlgoAttr() != getAlgoAttr())
    return emitOpError() << "collective, reduction and algorithm must be "
                            "those of program "
                         << getProgramAttr();
  int64_t p = prog.getRanksAttr().getInt();
  if (p != static_cast<int64_t>(g.getGroupSize()))
    return emitOpError() << "program " << getProgramAttr() << " is for " << p
                         << " ranks but group " << getGroupAttr() << " has "
                         << g.getGroupSize();
  Type et =
      cast<RankedTensorType>(getInputs().front().getType()).getElementType();
  if (et != prog.getElementType())
    return emitOpError() << "element type " << et << " differs from program "
                         << getProgramAttr() << "'s " << prog.getElementType();
  int64_t expected = prog.getCountAttr().getInt();
  std::optional<int64_t> count = getHcclCount();
  if (!count && getCollective() == CollectiveKind::all_to_all) {
    if (auto n = getStaticElementCount(getInputs().front().getType()))
      count = *n / p;
  }
  if (count && *count != expected)
    return emitOpError() << "moves " << *count << " elements but program "
                         << getProgramAttr() << " counts " << expected;
  return success();
}

std::optional<ReductionKind> ScheduleOp::getReductionKind() {
  if (auto k = getKindAttr())
    return k.getValue();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// ParamOp / TableAtOp / EModOp
//===----------------------------------------------------------------------===//

OpFoldResult ParamOp::fold(FoldAdaptor) { return getValueAttr(); }

LogicalResult TableAtOp::verify() {
  auto sched = (*this)->getParentOfType<ProgramOp>();
  if (!sched)
    return emitOpError() << "must be inside a comm.program";
  int64_t t = getTableAttr().getInt();
  int64_t n = sched.getTablesAttr() ? sched.getTablesAttr().size() : 0;
  if (t < 0 || t >= n)
    return emitOpError() << "table " << t << " does not exist: the program "
                         << "has " << n << " table(s)";
  return success();
}

OpFoldResult TableAtOp::fold(FoldAdaptor adaptor) {
  auto idx = dyn_cast_or_null<IntegerAttr>(adaptor.getIndex());
  auto sched = (*this)->getParentOfType<ProgramOp>();
  if (!idx || !sched || !sched.getTablesAttr())
    return {};
  int64_t t = getTableAttr().getInt();
  if (t < 0 || t >= static_cast<int64_t>(sched.getTablesAttr().size()))
    return {};
  auto table = cast<DenseI64ArrayAttr>(sched.getTablesAttr()[t]);
  int64_t i = idx.getInt();
  if (i < 0 || i >= table.size())
    return {}; // left for the verifier of the program to report
  return IntegerAttr::get(IndexType::get(getContext()), table[i]);
}

OpFoldResult EModOp::fold(FoldAdaptor adaptor) {
  auto a = dyn_cast_or_null<IntegerAttr>(adaptor.getLhs());
  auto b = dyn_cast_or_null<IntegerAttr>(adaptor.getRhs());
  if (!a || !b || b.getInt() == 0)
    return {};
  int64_t m = b.getInt() < 0 ? -b.getInt() : b.getInt();
  int64_t r = a.getInt() % m;
  if (r < 0)
    r += m;
  return IntegerAttr::get(IndexType::get(getContext()), r);
}

//===----------------------------------------------------------------------===//
// PhaseOp / RepeatOp
//===----------------------------------------------------------------------===//

// comm.phase "name" steps N (%s) {attrs} { ... }
// comm.phase "name" step K (%s) { ... }   (an unrolled step: steps = 1)
ParseResult PhaseOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  std::string name;
  int64_t steps = 1, step = 0;
  bool single = false;
  if (parser.parseString(&name))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("step"))) {
    single = true;
    if (parser.parseInteger(step))
      return failure();
  } else if (parser.parseKeyword("steps") || parser.parseInteger(steps)) {
    return failure();
  }
  OpAsmParser::Argument arg;
  if (parser.parseLParen() || parser.parseArgument(arg) || parser.parseRParen())
    return failure();
  arg.type = b.getIndexType();
  result.addAttribute(getNameAttrName(result.name), b.getStringAttr(name));
  result.addAttribute(getStepsAttrName(result.name),
                      b.getI64IntegerAttr(steps));
  if (single)
    result.addAttribute(getStepAttrName(result.name),
                        b.getI64IntegerAttr(step));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, {arg}, /*enableNameShadowing=*/false);
}

void PhaseOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printString(getName());
  if (auto step = getStepAttr())
    p << " step " << step.getInt();
  else
    p << " steps " << getStepsAttr().getInt();
  p << " (";
  p.printOperand(getStepArg());
  p << ')';
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getNameAttrName(), getStepsAttrName(), getStepAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult PhaseOp::verify() {
  if (getStepsAttr().getInt() < 0)
    return emitOpError() << "steps must be >= 0, found "
                         << getStepsAttr().getInt();
  if (auto step = getStepAttr()) {
    if (step.getInt() < 0)
      return emitOpError() << "step must be >= 0, found " << step.getInt();
    if (getStepsAttr().getInt() != 1)
      return emitOpError() << "an unrolled step (step " << step.getInt()
                           << ") must have steps = 1, found "
                           << getStepsAttr().getInt();
  }
  Block &body = getBodyBlock();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError() << "body must take one index argument (the step)";
  return success();
}

void PhaseOp::getAsmBlockArgumentNames(Region &region,
                                       OpAsmSetValueNameFn setName) {
  if (!region.empty() && region.front().getNumArguments() == 1)
    setName(region.front().getArgument(0), "s");
}

// comm.repeat %count (%t) { ... }
ParseResult RepeatOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  OpAsmParser::UnresolvedOperand count;
  OpAsmParser::Argument arg;
  if (parser.parseOperand(count) ||
      parser.resolveOperand(count, b.getIndexType(), result.operands) ||
      parser.parseLParen() || parser.parseArgument(arg) ||
      parser.parseRParen() ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  arg.type = b.getIndexType();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, {arg}, /*enableNameShadowing=*/false);
}

void RepeatOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printOperand(getCount());
  p << " (";
  p.printOperand(getIndexArg());
  p << ')';
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

void RepeatOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setName) {
  if (!region.empty() && region.front().getNumArguments() == 1)
    setName(region.front().getArgument(0), "t");
}

LogicalResult RepeatOp::verify() {
  Block &body = getBodyBlock();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError() << "body must take one index argument (t)";
  return success();
}

/// A repeat with a constant count of 0 disappears; of 1, it is inlined with
/// t = 0. Larger constant counts stay (unrolling is comm-specialize-rank's
/// decision, not canonicalisation's).
LogicalResult RepeatOp::canonicalize(RepeatOp op, PatternRewriter &rewriter) {
  APInt c;
  if (!matchPattern(op.getCount(), m_ConstantInt(&c)))
    return failure();
  if (c.getSExtValue() <= 0) {
    rewriter.eraseOp(op);
    return success();
  }
  if (c.getSExtValue() != 1)
    return failure();
  Value zero = rewriter.create<arith::ConstantIndexOp>(op.getLoc(), 0);
  rewriter.inlineBlockBefore(&op.getBodyBlock(), op, ValueRange{zero});
  rewriter.eraseOp(op);
  return success();
}
