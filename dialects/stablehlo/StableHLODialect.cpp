//===- StableHLODialect.cpp - stablehlo dialect, types, attributes --------===//
//
// Attributes are parsed by hand: the enumerations through their generated
// parsers, every keyed attribute (#stablehlo.KIND<key = value, ...>)
// through one table of kinds, keys and value forms, so an unknown key, a key
// given twice or a value of the wrong form is an error naming it.
//
//===----------------------------------------------------------------------===//
#include "StableHLOAssembly.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::stablehlo;

#include "hccl-mlir/Dialect/StableHLO/StableHLODialect.cpp.inc"
#include "hccl-mlir/Dialect/StableHLO/StableHLOEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "hccl-mlir/Dialect/StableHLO/StableHLOTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "hccl-mlir/Dialect/StableHLO/StableHLOAttrs.cpp.inc"

void StableHLODialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "hccl-mlir/Dialect/StableHLO/StableHLOTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "hccl-mlir/Dialect/StableHLO/StableHLOAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "hccl-mlir/Dialect/StableHLO/StableHLOOps.cpp.inc"
      >();
  // The collectives parse as generic, unregistered ops (so every attribute
  // they carry stays visible); the importer refuses any other unknown name.
  allowUnknownOperations();
}

bool StableHLODialect::isGenericCollective(StringRef mnemonic) {
  return llvm::is_contained({"all_reduce", "all_gather", "reduce_scatter",
                             "all_to_all", "collective_permute",
                             "collective_broadcast", "send", "recv"},
                            mnemonic);
}

//===----------------------------------------------------------------------===//
// Keyed attributes
//===----------------------------------------------------------------------===//

namespace {

/// How a field's value is written.
enum class Form {
  Int,  // 3
  List, // [0, 1]
  Type, // tf32
  Any,  // any attribute
};

struct Field {
  const char *key;
  Form form;
};

struct Kind {
  const char *name;
  std::vector<Field> fields; // in printing order
};

const std::vector<Kind> &kinds() {
  static const std::vector<Kind> table = {
      {"channel_handle", {{"handle", Form::Int}, {"type", Form::Int}}},
      {"dot",
       {{"lhs_batching_dimensions", Form::List},
        {"rhs_batching_dimensions", Form::List},
        {"lhs_contracting_dimensions", Form::List},
        {"rhs_contracting_dimensions", Form::List}}},
      {"gather",
       {{"offset_dims", Form::List},
        {"collapsed_slice_dims", Form::List},
        {"operand_batching_dims", Form::List},
        {"start_indices_batching_dims", Form::List},
        {"start_index_map", Form::List},
        {"index_vector_dim", Form::Int}}},
      {"scatter",
       {{"update_window_dims", Form::List},
        {"inserted_window_dims", Form::List},
        {"input_batching_dims", Form::List},
        {"scatter_indices_batching_dims", Form::List},
        {"scatter_dims_to_operand_dims", Form::List},
        {"index_vector_dim", Form::Int}}},
      {"conv",
       {{"input_batch_dimension", Form::Int},
        {"input_feature_dimension", Form::Int},
        {"input_spatial_dimensions", Form::List},
        {"kernel_input_feature_dimension", Form::Int},
        {"kernel_output_feature_dimension", Form::Int},
        {"kernel_spatial_dimensions", Form::List},
        {"output_batch_dimension", Form::Int},
        {"output_feature_dimension", Form::Int},
        {"output_spatial_dimensions", Form::List}}},
      {"output_operand_alias",
       {{"output_tuple_indices", Form::List},
        {"operand_index", Form::Int},
        {"operand_tuple_indices", Form::List}}},
      {"type_extensions", {{"bounds", Form::List}}},
      {"result_accuracy",
       {{"atol", Form::Any},
        {"rtol", Form::Any},
        {"ulps", Form::Int},
        {"mode", Form::Any}}},
      {"dot_algorithm",
       {{"lhs_precision_type", Form::Type},
        {"rhs_precision_type", Form::Type},
        {"accumulation_type", Form::Type},
        {"lhs_component_count", Form::Int},
        {"rhs_component_count", Form::Int},
        {"num_primitive_operations", Form::Int},
        {"allow_imprecise_accumulation", Form::Any}}},
  };
  return table;
}

const Kind *findKind(StringRef name) {
  for (const Kind &k : kinds())
    if (name == k.name)
      return &k;
  return nullptr;
}

std::string keysOf(const Kind &k) {
  return llvm::join(
      llvm::map_range(k.fields,
                      [](const Field &f) { return std::string(f.key); }),
      ", ");
}

} // namespace

StructAttr mlir::stablehlo::parseStructFields(AsmParser &p, StringRef kind) {
  const Kind *k = findKind(kind);
  assert(k && "parseStructFields of an unknown kind");
  MLIRContext *ctx = p.getContext();
  NamedAttrList fields;
  if (failed(p.parseOptionalGreater())) {
    do {
      SMLoc loc = p.getCurrentLocation();
      StringRef key;
      if (p.parseKeyword(&key))
        return {};
      auto f = llvm::find_if(k->fields,
                             [&](const Field &x) { return key == x.key; });
      if (f == k->fields.end()) {
        p.emitError(loc) << "unknown field '" << key << "' of #stablehlo."
                         << kind << " (expected " << keysOf(*k) << ")";
        return {};
      }
      if (fields.get(key)) {
        p.emitError(loc) << "field '" << key << "' of #stablehlo." << kind
                         << " given twice";
        return {};
      }
      if (p.parseEqual())
        return {};
      Attribute value;
      switch (f->form) {
      case Form::Int: {
        int64_t v = 0;
        if (p.parseInteger(v))
          return {};
        value = IntegerAttr::get(IntegerType::get(ctx, 64), v);
        break;
      }
      case Form::List: {
        SmallVector<int64_t> v;
        if (parseIntList(p, v, /*question=*/kind == "type_extensions"))
          return {};
        value = DenseI64ArrayAttr::get(ctx, v);
        break;
      }
      case Form::Type: {
        Type t;
        if (p.parseType(t))
          return {};
        value = TypeAttr::get(t);
        break;
      }
      case Form::Any:
        if (p.parseAttribute(value))
          return {};
        break;
      }
      fields.append(key, value);
    } while (succeeded(p.parseOptionalComma()));
    if (p.parseGreater())
      return {};
  }
  return StructAttr::get(ctx, kind, fields.getDictionary(ctx));
}

void mlir::stablehlo::printStructFields(AsmPrinter &p, StructAttr attr) {
  const Kind *k = findKind(attr.getKind());
  bool first = true;
  for (const Field &f : k->fields) {
    Attribute v = attr.getFields().get(f.key);
    if (!v)
      continue;
    p << (first ? "" : ", ") << f.key << " = ";
    first = false;
    if (auto list = dyn_cast<DenseI64ArrayAttr>(v))
      printIntList(p, list.asArrayRef());
    else if (auto i = dyn_cast<IntegerAttr>(v); i && f.form == Form::Int)
      p << i.getInt();
    else if (auto t = dyn_cast<TypeAttr>(v))
      p << t.getValue();
    else
      p << v;
  }
}

std::optional<int64_t> StructAttr::getInt(StringRef key) const {
  return intValue(getFields().get(key));
}

SmallVector<int64_t> StructAttr::getInts(StringRef key) const {
  return intsOf(getFields().get(key)).value_or(SmallVector<int64_t>());
}

Attribute StableHLODialect::parseAttribute(DialectAsmParser &parser,
                                           Type type) const {
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Attribute value;
  OptionalParseResult r =
      generatedAttributeParser(parser, &mnemonic, type, value);
  if (r.has_value())
    return value;
  MLIRContext *ctx = getContext();
  // `#stablehlo.bounds<3, ?>`, the short form of type_extensions.
  if (mnemonic == "bounds") {
    SmallVector<int64_t> v;
    if (parser.parseLess())
      return {};
    if (failed(parser.parseOptionalGreater())) {
      do {
        if (succeeded(parser.parseOptionalQuestion())) {
          v.push_back(ShapedType::kDynamic);
          continue;
        }
        int64_t x = 0;
        if (parser.parseInteger(x))
          return {};
        v.push_back(x);
      } while (succeeded(parser.parseOptionalComma()));
      if (parser.parseGreater())
        return {};
    }
    NamedAttrList f;
    f.append("bounds", DenseI64ArrayAttr::get(ctx, v));
    return StructAttr::get(ctx, "type_extensions", f.getDictionary(ctx));
  }
  if (!findKind(mnemonic)) {
    parser.emitError(loc) << "unknown StableHLO attribute '#stablehlo."
                          << mnemonic << "'";
    return {};
  }
  if (parser.parseLess())
    return {};
  // #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> or <raw ...>.
  if (mnemonic == "conv" && failed(parser.parseOptionalKeyword("raw"))) {
    StructAttr s;
    if (parseConvDimsBody(parser, s) || parser.parseGreater())
      return {};
    return s;
  }
  return parseStructFields(parser, mnemonic);
}

void StableHLODialect::printAttribute(Attribute attr,
                                      DialectAsmPrinter &os) const {
  if (succeeded(generatedAttributePrinter(attr, os)))
    return;
  auto s = cast<StructAttr>(attr);
  if (s.getKind() == "type_extensions") {
    os << "bounds<";
    llvm::interleaveComma(s.getInts("bounds"), os, [&](int64_t b) {
      if (b == ShapedType::kDynamic)
        os << '?';
      else
        os << b;
    });
    os << '>';
    return;
  }
  os << s.getKind() << '<';
  if (s.getKind() == "conv") {
    // The compact form when the numbers spell one, else every field.
    if (printConvDimsBody(os, s)) {
      os << '>';
      return;
    }
    os << "raw ";
  }
  printStructFields(os, s);
  os << '>';
}
