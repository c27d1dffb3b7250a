//===- SdyDialect.cpp - Shardy's shard_map ops, as JAX prints them --------===//
//
// Shardings are parsed by their grammar (mesh, per-dimension axes, open
// dimensions, priorities, replicated / unreduced axes) into a normalised
// text; the importer needs their mesh and that they parse, not a model of
// them. An inline mesh or an unknown sdy attribute is an error naming it.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/Dialect/StableHLO/Sdy.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sdy;

#include "hccl-mlir/Dialect/StableHLO/SdyDialect.cpp.inc"

void SdyDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "hccl-mlir/Dialect/StableHLO/SdyOps.cpp.inc"
      >();
}

namespace {

/// `"x"` or `"x":(1)2` (a sub-axis), appended to `out`.
ParseResult parseAxisRef(AsmParser &p, std::string &out) {
  std::string name;
  if (p.parseString(&name))
    return failure();
  out += "\"" + name + "\"";
  if (succeeded(p.parseOptionalColon())) {
    int64_t pre = 0, size = 0;
    if (p.parseLParen() || p.parseInteger(pre) || p.parseRParen() ||
        p.parseInteger(size))
      return failure();
    out += ":(" + std::to_string(pre) + ")" + std::to_string(size);
  }
  return success();
}

/// `{"x", "y"}`, `{"x", ?}`, `{?}` or `{}`, with an optional priority
/// `p<N>` after it.
ParseResult parseDim(AsmParser &p, std::string &out) {
  if (p.parseLBrace())
    return failure();
  out += "{";
  bool first = true;
  while (failed(p.parseOptionalRBrace())) {
    if (!first && p.parseComma())
      return failure();
    if (!first)
      out += ", ";
    first = false;
    if (succeeded(p.parseOptionalQuestion())) {
      out += "?";
      if (p.parseRBrace())
        return failure();
      break;
    }
    if (parseAxisRef(p, out))
      return failure();
  }
  out += "}";
  StringRef kw;
  if (succeeded(p.parseOptionalKeyword(&kw))) {
    int64_t prio = 0;
    if (!kw.starts_with("p") || kw.drop_front().getAsInteger(10, prio))
      return p.emitError(p.getCurrentLocation())
             << "expected a dimension priority p<N>, found '" << kw << "'";
    out += kw.str();
  }
  return success();
}

/// `{"a", "b"}` (replicated / unreduced axes).
ParseResult parseAxisSet(AsmParser &p, std::string &out) {
  out += "{";
  bool first = true;
  ParseResult r = p.parseCommaSeparatedList(AsmParser::Delimiter::Braces, [&] {
    if (!first)
      out += ", ";
    first = false;
    return parseAxisRef(p, out);
  });
  out += "}";
  return r;
}

/// `<@mesh, [dims], replicated={...}, unreduced={...}>` into
/// `@mesh, [dims], ...` (the text between the angle brackets).
ParseResult parseSharding(AsmParser &p, std::string &out) {
  if (p.parseLess())
    return failure();
  FlatSymbolRefAttr mesh;
  OptionalParseResult got = p.parseOptionalAttribute(mesh);
  if (!got.has_value() || failed(*got) || !mesh)
    return p.emitError(p.getCurrentLocation())
           << "expected a mesh name (@mesh) in the sharding; inline meshes "
              "are not read";
  out += "@" + mesh.getValue().str() + ", [";
  bool first = true;
  if (p.parseComma() ||
      p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        if (!first)
          out += ", ";
        first = false;
        return parseDim(p, out);
      }))
    return failure();
  out += "]";
  while (succeeded(p.parseOptionalComma())) {
    StringRef key;
    if (p.parseKeyword(&key))
      return failure();
    if (key != "replicated" && key != "unreduced")
      return p.emitError(p.getCurrentLocation())
             << "unknown sharding field '" << key
             << "' (expected replicated or unreduced)";
    out += ", " + key.str() + "=";
    if (p.parseEqual() || parseAxisSet(p, out))
      return failure();
  }
  return p.parseGreater();
}

ParseResult parseShardingList(AsmParser &p, SmallVectorImpl<Attribute> &out) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    std::string s;
    if (parseSharding(p, s))
      return failure();
    out.push_back(p.getBuilder().getStringAttr(s));
    return success();
  });
}

void printShardings(OpAsmPrinter &p, ArrayAttr list) {
  p << '[';
  llvm::interleaveComma(list, p, [&](Attribute a) {
    p << '<' << cast<StringAttr>(a).getValue() << '>';
  });
  p << ']';
}

} // namespace

Attribute SdyDialect::parseAttribute(DialectAsmParser &parser,
                                     Type type) const {
  StringRef kind;
  if (parser.parseKeyword(&kind))
    return {};
  Builder b = parser.getBuilder();
  std::string text;
  if (kind == "sharding") {
    if (parseSharding(parser, text))
      return {};
    return b.getStringAttr("#sdy.sharding<" + text + ">");
  }
  if (kind == "sharding_per_value") {
    SmallVector<Attribute> list;
    if (parser.parseLess() || parseShardingList(parser, list) ||
        parser.parseGreater())
      return {};
    for (Attribute a : list)
      text += (text.empty() ? "<" : ", <") +
              cast<StringAttr>(a).getValue().str() + ">";
    return b.getStringAttr("#sdy.sharding_per_value<[" + text + "]>");
  }
  parser.emitError(parser.getNameLoc())
      << "'#sdy." << kind
      << "' is not a Shardy attribute the importer reads (sharding, "
         "sharding_per_value)";
  return {};
}

void SdyDialect::printAttribute(Attribute attr, DialectAsmPrinter &os) const {
  os << attr; // parsed into builtin attributes (text); never reached
}

//===----------------------------------------------------------------------===//
// sdy.mesh
//===----------------------------------------------------------------------===//

std::optional<int64_t> MeshOp::getNumDevices() {
  int64_t n = 1;
  for (int64_t s : getAxisSizes())
    if (llvm::MulOverflow(n, s, n))
      return std::nullopt;
  return n;
}

// The generic form skips the parser's checks.
LogicalResult MeshOp::verify() {
  if (getAxisNames().size() != getAxisSizes().size())
    return emitOpError() << "has " << getAxisNames().size()
                         << " axis names and " << getAxisSizes().size()
                         << " axis sizes";
  for (auto [name, size] : llvm::zip(getAxisNames(), getAxisSizes()))
    if (size < 1)
      return emitOpError() << "axis " << name << " has size " << size
                           << "; sizes are >= 1";
  return success();
}

ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &b = parser.getBuilder();
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseEqual() || parser.parseLess())
    return failure();
  SmallVector<Attribute> names;
  SmallVector<int64_t> sizes, devices;
  auto axis = [&]() -> ParseResult {
    std::string n;
    int64_t size = 0;
    SMLoc at = parser.getCurrentLocation();
    if (parser.parseString(&n) || parser.parseEqual() ||
        parser.parseInteger(size))
      return failure();
    if (size < 1)
      return parser.emitError(at) << "mesh axis \"" << n << "\" has size "
                                  << size << "; sizes are >= 1";
    names.push_back(b.getStringAttr(n));
    sizes.push_back(size);
    return success();
  };
  // `["x"=2, "y"=4]` (current) or `"x"=2, "y"=4` (older printers), then
  // optionally `device_ids=[...]`.
  auto item = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalLSquare())) {
      if (succeeded(parser.parseOptionalRSquare()))
        return success();
      return failure(parser.parseCommaSeparatedList(axis) ||
                     parser.parseRSquare());
    }
    if (succeeded(parser.parseOptionalKeyword("device_ids")))
      return failure(
          parser.parseEqual() ||
          parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            int64_t d = 0;
            if (parser.parseInteger(d))
              return failure();
            devices.push_back(d);
            return success();
          }));
    return axis();
  };
  if (failed(parser.parseOptionalGreater()) &&
      (parser.parseCommaSeparatedList(item) || parser.parseGreater()))
    return failure();
  result.addAttribute(getAxisNamesAttrName(result.name), b.getArrayAttr(names));
  result.addAttribute(getAxisSizesAttrName(result.name),
                      b.getDenseI64ArrayAttr(sizes));
  if (!devices.empty())
    result.addAttribute(getDeviceIdsAttrName(result.name),
                        b.getDenseI64ArrayAttr(devices));
  return parser.parseOptionalAttrDict(result.attributes);
}

void MeshOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << " = <[";
  llvm::interleaveComma(
      llvm::zip(getAxisNames(), getAxisSizes()), p, [&](auto ax) {
        p << '"' << cast<StringAttr>(std::get<0>(ax)).getValue()
          << "\"=" << std::get<1>(ax);
      });
  p << ']';
  if (auto ids = getDeviceIdsAttr()) {
    p << ", device_ids=[";
    llvm::interleaveComma(ids.asArrayRef(), p);
    p << ']';
  }
  p << '>';
}

//===----------------------------------------------------------------------===//
// sdy.manual_computation
//===----------------------------------------------------------------------===//

ParseResult ManualComputationOp::parse(OpAsmParser &parser,
                                       OperationState &result) {
  Builder &b = parser.getBuilder();
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Attribute> in, out, axes;
  SMLoc operandsLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in_shardings") || parser.parseEqual() ||
      parseShardingList(parser, in) || parser.parseKeyword("out_shardings") ||
      parser.parseEqual() || parseShardingList(parser, out) ||
      parser.parseKeyword("manual_axes") || parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Braces, [&] {
        std::string a;
        if (parser.parseString(&a))
          return failure();
        axes.push_back(b.getStringAttr(a));
        return success();
      }))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  Region *body = result.addRegion();
  FunctionType fnType;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true) ||
      parser.parseRegion(*body, args) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(fnType) ||
      parser.resolveOperands(operands, fnType.getInputs(), operandsLoc,
                             result.operands))
    return failure();
  result.addTypes(fnType.getResults());
  result.addAttribute(getInShardingsAttrName(result.name), b.getArrayAttr(in));
  result.addAttribute(getOutShardingsAttrName(result.name),
                      b.getArrayAttr(out));
  result.addAttribute(getManualAxesAttrName(result.name), b.getArrayAttr(axes));
  return success();
}

void ManualComputationOp::print(OpAsmPrinter &p) {
  p << '(' << getTensors() << ") in_shardings=";
  printShardings(p, getInShardings());
  p << " out_shardings=";
  printShardings(p, getOutShardings());
  p << " manual_axes={";
  llvm::interleaveComma(getManualAxes(), p, [&](Attribute a) {
    p << '"' << cast<StringAttr>(a).getValue() << '"';
  });
  p << "} (";
  llvm::interleaveComma(getBody().getArguments(), p,
                        [&](BlockArgument a) { p.printRegionArgument(a); });
  p << ") ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getInShardingsAttrName(), getOutShardingsAttrName(),
                           getManualAxesAttrName()});
  p << " : ";
  p.printFunctionalType(getTensors().getTypes(), getResultTypes());
}

// What the importer's unwrapping relies on: a body argument per operand,
// and an sdy.return of one value per result.
LogicalResult ManualComputationOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getTensors().size())
    return emitOpError() << "has " << getTensors().size()
                         << " operands but its body takes "
                         << body.getNumArguments() << " arguments";
  auto ret = body.empty() ? ReturnOp() : dyn_cast<ReturnOp>(body.back());
  if (!ret)
    return emitOpError() << "body must end with 'sdy.return'";
  if (ret.getResults().size() != getNumResults())
    return emitOpError() << "has " << getNumResults()
                         << " results but its body returns "
                         << ret.getResults().size() << " values";
  return success();
}

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/StableHLO/SdyOps.cpp.inc"
