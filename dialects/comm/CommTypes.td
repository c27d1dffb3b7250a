//===- CommTypes.td - comm dialect types -------------------*- tablegen -*-===//
#ifndef HCCL_COMM_TYPES
#define HCCL_COMM_TYPES

include "CommDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Comm_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Comm_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Comm_TokenType : Comm_Type<"Token", "token"> {
  let summary = "handle of an in-flight collective";
  let description = [{
    Produced by `comm.start`, consumed by exactly one `comm.wait` in the same
    block.
  }];
}

#endif // HCCL_COMM_TYPES
