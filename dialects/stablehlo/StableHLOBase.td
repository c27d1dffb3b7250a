//===- StableHLOBase.td - The stablehlo dialect, types, attrs -*- tablegen -*-===//
//
// Enough of the StableHLO dialect to read programs as JAX, torch_xla and the
// StableHLO tests print them (docs/stablehlo-import.md), written from the
// StableHLO specification. It is a reader for hccl-translate's importer, not
// a StableHLO implementation: ops check their syntax, not their semantics.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_STABLEHLO_BASE
#define HCCL_STABLEHLO_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def StableHLO_Dialect : Dialect {
  let name = "stablehlo";
  let cppNamespace = "::mlir::stablehlo";
  let summary = "StableHLO as it is printed, for the importer";
  let description = [{
    The spec's ops in their pretty and generic forms. The collectives
    (all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
    collective_broadcast, send, recv) are left generic and unregistered: the
    importer reads every attribute they carry, and registered ops would keep
    only the properties they declare (docs/stablehlo-import.md). Any other
    name is refused by the importer.
  }];
  // Hand-written: the struct attributes share one class (StableHLODialect.cpp).
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &os) const override;
    /// The generic collectives, which stay unregistered.
    static bool isGenericCollective(::llvm::StringRef mnemonic);
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class StableHLO_Type<string name, string typeMnemonic>
    : TypeDef<StableHLO_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def StableHLO_Token : StableHLO_Type<"Token", "token"> {
  let summary = "ordering token of side-effecting ops";
}

def StableHLO_Future : StableHLO_Type<"Future", "future"> {
  let summary = "the pending results of async_start";
  let parameters = (ins ArrayRefParameter<"::mlir::Type">:$types);
  let assemblyFormat = "`<` $types `>`";
}

//===----------------------------------------------------------------------===//
// Enumerations: printed `#stablehlo<name VALUE>` alone, bare `VALUE` in ops
//===----------------------------------------------------------------------===//

class StableHLO_EnumAttr<EnumAttrInfo info, string m>
    : EnumAttr<StableHLO_Dialect, info, m> {
  let assemblyFormat = "$value";
}

def StableHLO_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "comparison direction", [
      I32EnumAttrCase<"EQ", 0>, I32EnumAttrCase<"NE", 1>,
      I32EnumAttrCase<"GE", 2>, I32EnumAttrCase<"GT", 3>,
      I32EnumAttrCase<"LE", 4>, I32EnumAttrCase<"LT", 5>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_ComparisonDirectionAttr : StableHLO_EnumAttr<StableHLO_ComparisonDirection, "comparison_direction">;

def StableHLO_ComparisonType : I32EnumAttr<"ComparisonType",
    "comparison type", [
      I32EnumAttrCase<"NOTYPE", 0>, I32EnumAttrCase<"FLOAT", 1>,
      I32EnumAttrCase<"TOTALORDER", 2>, I32EnumAttrCase<"SIGNED", 3>,
      I32EnumAttrCase<"UNSIGNED", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_ComparisonTypeAttr : StableHLO_EnumAttr<StableHLO_ComparisonType, "comparison_type">;

def StableHLO_Precision : I32EnumAttr<"Precision", "precision", [
      I32EnumAttrCase<"DEFAULT", 0>, I32EnumAttrCase<"HIGH", 1>,
      I32EnumAttrCase<"HIGHEST", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_PrecisionAttr : StableHLO_EnumAttr<StableHLO_Precision, "precision">;

def StableHLO_RngDistribution : I32EnumAttr<"RngDistribution",
    "rng distribution", [
      I32EnumAttrCase<"UNIFORM", 1>, I32EnumAttrCase<"NORMAL", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_RngDistributionAttr : StableHLO_EnumAttr<StableHLO_RngDistribution, "rng_distribution">;

def StableHLO_RngAlgorithm : I32EnumAttr<"RngAlgorithm", "rng algorithm", [
      I32EnumAttrCase<"DEFAULT", 0>, I32EnumAttrCase<"THREE_FRY", 1>,
      I32EnumAttrCase<"PHILOX", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_RngAlgorithmAttr : StableHLO_EnumAttr<StableHLO_RngAlgorithm, "rng_algorithm">;

def StableHLO_FftType : I32EnumAttr<"FftType", "fft type", [
      I32EnumAttrCase<"FFT", 0>, I32EnumAttrCase<"IFFT", 1>,
      I32EnumAttrCase<"RFFT", 2>, I32EnumAttrCase<"IRFFT", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_FftTypeAttr : StableHLO_EnumAttr<StableHLO_FftType,
    "fft_type">;

def StableHLO_Transpose : I32EnumAttr<"Transpose", "transpose", [
      I32EnumAttrCase<"TRANSPOSE_INVALID", 0>,
      I32EnumAttrCase<"NO_TRANSPOSE", 1>, I32EnumAttrCase<"TRANSPOSE", 2>,
      I32EnumAttrCase<"ADJOINT", 3>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_TransposeAttr : StableHLO_EnumAttr<StableHLO_Transpose, "transpose">;

def StableHLO_ResultAccuracyMode : I32EnumAttr<"ResultAccuracyMode",
    "result accuracy mode", [
      I32EnumAttrCase<"DEFAULT", 0>, I32EnumAttrCase<"HIGHEST", 1>,
      I32EnumAttrCase<"TOLERANCE", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stablehlo";
}
def StableHLO_ResultAccuracyModeAttr : StableHLO_EnumAttr<StableHLO_ResultAccuracyMode, "result_accuracy_mode"> {
  // Printed nested as #stablehlo.result_accuracy_mode<DEFAULT>.
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Struct attributes: #stablehlo.KIND<key = value, ...>
//===----------------------------------------------------------------------===//

def StableHLO_StructAttr : AttrDef<StableHLO_Dialect, "Struct"> {
  let summary = "a keyed StableHLO attribute (channel_handle, dot, conv, ...)";
  let description = [{
    The spec's attributes made of named fields share one class: `kind` names
    it (`channel_handle`, `dot`, `conv`, `gather`, `scatter`,
    `output_operand_alias`, `type_extensions`, `result_accuracy`,
    `dot_algorithm`) and `fields` holds the values. Each kind's keys and
    value forms are a table in StableHLODialect.cpp; an unknown key, a key
    given twice or a value of the wrong form is a parse error naming it.
  }];
  let attrName = "stablehlo.struct";
  let parameters = (ins StringRefParameter<"">:$kind,
                        "::mlir::DictionaryAttr":$fields);
  let extraClassDeclaration = [{
    /// An integer field, if present.
    std::optional<int64_t> getInt(::llvm::StringRef key) const;
    /// An integer-list field (empty when absent).
    ::llvm::SmallVector<int64_t> getInts(::llvm::StringRef key) const;
  }];
}

#endif
