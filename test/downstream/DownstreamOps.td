//===- DownstreamOps.td - A downstream dialect built on comm's ODS -*- tablegen -*-===//
//
// What a user's own ODS does with the installed .td files: include
// CommOps.td (which pulls in the rest of the comm dialect's ODS) and build
// ops from its constraints and attributes.
//
//===----------------------------------------------------------------------===//
#ifndef DOWNSTREAM_OPS
#define DOWNSTREAM_OPS

include "CommOps.td"

def DS_Dialect : Dialect {
  let name = "ds";
  let summary = "a downstream dialect on top of comm";
  let cppNamespace = "::ds";
  let dependentDialects = ["::mlir::comm::CommDialect"];
}

def DS_ScaleOp : Op<DS_Dialect, "scale",
                    [Pure, SameOperandsAndResultType]> {
  let summary = "scales a tensor the comm dialect can move, after a reduction";
  let arguments = (ins Comm_Tensor:$input, Comm_ReductionKindAttr:$kind);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
}

#endif // DOWNSTREAM_OPS
