//===- StableHLOOps.cpp - StableHLO ops: constant, reduce, while ----------===//
//
// The generated op definitions, and the three ops whose printed form no
// declarative format can say: constant (the value carries the type), reduce
// (`applies OP` or a reducer region whose arguments come in pairs) and
// while (the iteration values name both regions' arguments).
//
//===----------------------------------------------------------------------===//
#include "StableHLOAssembly.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::stablehlo;

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/StableHLO/StableHLOOps.cpp.inc"

//===----------------------------------------------------------------------===//
// constant: `stablehlo.constant dense<1.0> : tensor<f32>`
//===----------------------------------------------------------------------===//

ParseResult constant_Op::parse(OpAsmParser &p, OperationState &st) {
  // `() <{value = V}> : () -> T`: a value typed other than the result.
  if (succeeded(p.parseOptionalLParen())) {
    SMLoc loc = p.getCurrentLocation();
    DictionaryAttr props;
    FunctionType fn;
    if (p.parseRParen() || p.parseLess() || p.parseAttribute(props) ||
        p.parseGreater() || p.parseOptionalAttrDict(st.attributes) ||
        p.parseColonType(fn))
      return failure();
    Attribute value = props.get("value");
    if (!value || props.size() != 1 || fn.getNumInputs() != 0 ||
        fn.getNumResults() != 1)
      return p.emitError(loc)
             << "expected <{value = ...}> : () -> T after 'constant()'";
    st.addAttribute("value", value);
    st.addTypes(fn.getResults());
    return success();
  }
  if (p.parseOptionalAttrDict(st.attributes))
    return failure();
  SMLoc loc = p.getCurrentLocation();
  Attribute value;
  if (p.parseAttribute(value))
    return failure();
  auto typed = llvm::dyn_cast<TypedAttr>(value);
  if (!typed)
    return p.emitError(loc) << "expected a typed constant value";
  st.addAttribute("value", value);
  st.addTypes(typed.getType());
  return success();
}

void constant_Op::print(OpAsmPrinter &p) {
  auto typed = llvm::dyn_cast<TypedAttr>(getValue());
  if (!typed || typed.getType() != getType()) {
    p << "() <{value = ";
    p.printAttribute(getValue());
    p << "}>";
    p.printOptionalAttrDict((*this)->getAttrs(), {"value"});
    p << " : () -> " << getType();
    return;
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  p << ' ';
  p.printAttribute(getValue());
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

ParseResult reduce_Op::parse(OpAsmParser &p, OperationState &st) {
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, inits;
  SMLoc operandsLoc = p.getCurrentLocation();
  do {
    OpAsmParser::UnresolvedOperand in, init;
    if (p.parseLParen() || p.parseOperand(in) || p.parseKeyword("init") ||
        p.parseColon() || p.parseOperand(init) || p.parseRParen())
      return failure();
    inputs.push_back(in);
    inits.push_back(init);
  } while (succeeded(p.parseOptionalComma()));
  size_t n = inputs.size();

  std::optional<OperationName> applies;
  SMLoc appliesLoc = p.getCurrentLocation();
  if (succeeded(p.parseOptionalKeyword("applies"))) {
    StringRef name;
    if (p.parseKeyword(&name))
      return failure();
    applies = OperationName(name, p.getContext());
    if (!applies->isRegistered() || !name.starts_with("stablehlo."))
      return p.emitError(appliesLoc)
             << "'applies " << name << "' does not name a StableHLO op";
    if (n != 1)
      return p.emitError(appliesLoc)
             << "'applies' takes one input, found " << n;
  }
  Attribute dims;
  if (p.parseKeyword("across") || p.parseKeyword("dimensions") ||
      p.parseEqual() || parseDims(p, dims))
    return failure();
  st.addAttribute("dimensions", dims);
  if (p.parseOptionalAttrDict(st.attributes))
    return failure();
  SMLoc typeLoc = p.getCurrentLocation();
  FunctionType fn;
  if (p.parseColonType(fn))
    return failure();
  if (fn.getNumInputs() != 2 * n || fn.getNumResults() != n)
    return p.emitError(typeLoc)
           << "expected a function type of " << 2 * n << " operands and " << n
           << " results for " << n << " input(s)";
  SmallVector<OpAsmParser::UnresolvedOperand> all(inputs);
  all.append(inits);
  if (p.resolveOperands(all, fn.getInputs(), operandsLoc, st.operands))
    return failure();
  st.addTypes(fn.getResults());

  Region *body = st.addRegion();
  if (applies) {
    // ^bb0(%a: T, %b: T): %r = OP %a, %b : T; stablehlo.return %r : T,
    // with T the initial value's type.
    Type t = fn.getInput(1);
    Location loc = p.getEncodedSourceLoc(appliesLoc);
    Block *b = new Block();
    body->push_back(b);
    b->addArgument(t, loc);
    b->addArgument(t, loc);
    OpBuilder builder(p.getContext());
    builder.setInsertionPointToStart(b);
    OperationState combine(loc, *applies);
    combine.addOperands(b->getArguments());
    combine.addTypes(t);
    Operation *c = builder.create(combine);
    OperationState ret(loc, "stablehlo.return");
    ret.addOperands(c->getResult(0));
    builder.create(ret);
    return success();
  }
  // reducer(%acc0: T0, %x0: T0) (%acc1: T1, %x1: T1) {...}: the block takes
  // the first of each pair, then the second of each pair.
  if (p.parseKeyword("reducer"))
    return failure();
  SmallVector<OpAsmParser::Argument> firsts(n), seconds(n);
  for (size_t i = 0; i < n; ++i)
    if (p.parseLParen() || p.parseArgument(firsts[i], /*allowType=*/true) ||
        p.parseComma() || p.parseArgument(seconds[i], /*allowType=*/true) ||
        p.parseRParen())
      return failure();
  SmallVector<OpAsmParser::Argument> args(firsts);
  args.append(seconds);
  return p.parseRegion(*body, args);
}

LogicalResult reduce_Op::verify() {
  size_t n = getNumOperands() / 2;
  if (getNumOperands() == 0 || getNumOperands() % 2)
    return emitOpError() << "takes N inputs and N initial values, found "
                         << getNumOperands() << " operands";
  if (getNumResults() != n)
    return emitOpError() << "has " << n << " inputs but " << getNumResults()
                         << " results";
  Region &body = getBody();
  if (!body.hasOneBlock() || body.getNumArguments() != 2 * n)
    return emitOpError() << "body must be one block taking " << 2 * n
                         << " arguments (accumulator and value per input)";
  return success();
}

/// The op `applies` would print: one stablehlo op combining the block's two
/// arguments into the value returned, all of the initial value's type.
static Operation *compactReducer(reduce_Op op) {
  if (op.getNumOperands() != 2 || op.getNumResults() != 1 ||
      !op.getBody().hasOneBlock())
    return nullptr;
  Block &b = op.getBody().front();
  Type t = op.getOperand(1).getType();
  if (b.getNumArguments() != 2 || b.getArgument(0).getType() != t ||
      b.getArgument(1).getType() != t || b.getOperations().size() != 2)
    return nullptr;
  Operation &c = b.front();
  Operation &ret = b.back();
  if (c.getDialect() != op->getDialect() || c.getNumOperands() != 2 ||
      c.getOperand(0) != b.getArgument(0) ||
      c.getOperand(1) != b.getArgument(1) || c.getNumResults() != 1 ||
      c.getResult(0).getType() != t || !c.getAttrs().empty() ||
      c.getNumRegions() != 0 || !isa<return_Op>(ret) ||
      ret.getNumOperands() != 1 || ret.getOperand(0) != c.getResult(0))
    return nullptr;
  return &c;
}

void reduce_Op::print(OpAsmPrinter &p) {
  size_t n = getNumOperands() / 2;
  for (size_t i = 0; i < n; ++i)
    p << (i ? ", (" : "(") << getOperand(i) << " init: " << getOperand(n + i)
      << ')';
  Operation *compact = compactReducer(*this);
  if (compact)
    p << " applies " << compact->getName();
  p << " across dimensions = ";
  printDims(p, *this, getDimensions());
  p.printOptionalAttrDict((*this)->getAttrs(), {"dimensions"});
  p << " : ";
  p.printFunctionalType(*this);
  if (compact)
    return;
  Region &body = getBody();
  p.printNewline();
  p << "  reducer";
  if (body.empty() || body.getNumArguments() != 2 * n) {
    p << "<malformed: " << body.getNumArguments() << " block arguments>";
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    p << '(';
    p.printRegionArgument(body.getArgument(i));
    p << ", ";
    p.printRegionArgument(body.getArgument(n + i));
    p << ')';
    p << (i + 1 < n ? " " : "");
  }
  p << ' ';
  p.printRegion(body, /*printEntryBlockArgs=*/false);
}

//===----------------------------------------------------------------------===//
// while: `stablehlo.while(%iterArg = %x) : T cond {...} do {...}`
//===----------------------------------------------------------------------===//

ParseResult while_Op::parse(OpAsmParser &p, OperationState &st) {
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SMLoc operandsLoc = p.getCurrentLocation();
  if (p.parseCommaSeparatedList(
          AsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::Argument a;
            OpAsmParser::UnresolvedOperand o;
            if (p.parseArgument(a) || p.parseEqual() || p.parseOperand(o))
              return failure();
            args.push_back(a);
            operands.push_back(o);
            return success();
          }))
    return failure();
  SmallVector<Type> types;
  if (!operands.empty() && (p.parseColon() || p.parseTypeList(types)))
    return failure();
  if (types.size() != operands.size())
    return p.emitError(operandsLoc)
           << operands.size() << " iteration values but " << types.size()
           << " types";
  for (auto [a, t] : llvm::zip(args, types))
    a.type = t;
  if (p.resolveOperands(operands, types, operandsLoc, st.operands))
    return failure();
  st.addTypes(types);
  if (p.parseOptionalAttrDictWithKeyword(st.attributes))
    return failure();
  Region *cond = st.addRegion();
  Region *body = st.addRegion();
  if (p.parseKeyword("cond") || p.parseRegion(*cond, args) ||
      p.parseKeyword("do") || p.parseRegion(*body, args))
    return failure();
  return success();
}

LogicalResult while_Op::verify() {
  if (getNumResults() != getNumOperands())
    return emitOpError() << "has " << getNumOperands()
                         << " iteration values but " << getNumResults()
                         << " results";
  for (Region *r : {&getCond(), &getBody()})
    if (!r->hasOneBlock() || r->getNumArguments() != getNumOperands())
      return emitOpError() << (r == &getCond() ? "cond" : "body")
                           << " must be one block taking the "
                           << getNumOperands() << " iteration value(s)";
  return success();
}

void while_Op::print(OpAsmPrinter &p) {
  Region &cond = getCond();
  p << '(';
  for (unsigned i = 0; i < getNumOperands(); ++i) {
    p << (i ? ", " : "");
    p.printOperand(cond.getArgument(i));
    p << " = " << (*this)->getOperand(i);
  }
  p << ')';
  if (getNumOperands()) {
    p << " : ";
    llvm::interleaveComma(getOperandTypes(), p);
  }
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  p.printNewline();
  p << " cond ";
  p.printRegion(cond, /*printEntryBlockArgs=*/false);
  p << " do ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

/// Both regions' arguments are the iteration values, under one name.
void while_Op::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  for (BlockArgument a : region.getArguments())
    setNameFn(a, "iterArg");
}
