//===- SdyOps.td - Shardy's shard_map ops, as JAX prints them -*- tablegen -*-===//
//
// Enough of Shardy (the sdy dialect) to read a shard_map program as
// jax.jit(...).lower(...).as_text() prints it with the Shardy partitioner:
// meshes, sdy.manual_computation and its sdy.return, and the sharding
// attributes (#sdy.sharding, #sdy.sharding_per_value), kept as their text.
// Written from Shardy's printed syntax; a reader for the importer, which
// unwraps a fully manual computation (docs/stablehlo-import.md, "Sharded
// programs") and refuses anything else Shardy.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_SDY_OPS
#define HCCL_SDY_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Sdy_Dialect : Dialect {
  let name = "sdy";
  let cppNamespace = "::mlir::sdy";
  let summary = "Shardy's meshes and manual computations, for the importer";
  // Sharding attributes parse to their normalised text (SdyDialect.cpp).
  let useDefaultAttributePrinterParser = 0;
  let extraClassDeclaration = [{
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &os) const override;
  }];
}

class Sdy_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sdy_Dialect, mnemonic, traits>;

def Sdy_MeshOp : Sdy_Op<"mesh", [Symbol]> {
  let summary = "a named mesh of devices";
  let description = [{
    `sdy.mesh @mesh = <["x"=2, "y"=4]>`, optionally `device_ids=[...]`
    (the devices in mesh order; the default is 0..size-1).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axis_names,
                       DenseI64ArrayAttr:$axis_sizes,
                       OptionalAttr<DenseI64ArrayAttr>:$device_ids);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Devices in the mesh: the product of the axis sizes; nullopt when
    /// that does not fit in int64_t.
    std::optional<int64_t> getNumDevices();
  }];
}

def Sdy_ManualComputationOp : Sdy_Op<"manual_computation", [
    SingleBlock, IsolatedFromAbove]> {
  let summary = "shard_map: a body written per device over manual axes";
  let description = [{
    `%r = sdy.manual_computation(%x) in_shardings=[...]
    out_shardings=[...] manual_axes={"x"} (%local: tensor<4x16xf32>) {
    ... sdy.return %v : tensor<4x16xf32> } : (tensor<8x16xf32>) ->
    tensor<8x16xf32>`, each sharding `<@mesh, [dims]>` with a `{"axis",
    ...}` list per dimension.
    The body sees each device's shard (the block arguments' local
    shapes) of the operands, as the in_shardings split them over the
    manual axes; its collectives are explicit.
  }];
  let arguments = (ins Variadic<AnyType>:$tensors, StrArrayAttr:$in_shardings,
                       StrArrayAttr:$out_shardings,
                       StrArrayAttr:$manual_axes);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Sdy_ReturnOp : Sdy_Op<"return", [Terminator]> {
  let summary = "the results of a manual computation's body";
  let arguments = (ins Variadic<AnyType>:$results);
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

#endif
