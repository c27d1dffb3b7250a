//===- CommInterfaces.td - comm op interfaces --------------*- tablegen -*-===//
#ifndef HCCL_COMM_INTERFACES
#define HCCL_COMM_INTERFACES

include "mlir/IR/OpBase.td"

def Comm_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::comm";
  let description = [{
    A communication op on a `comm.group`: every collective, send, recv and
    barrier. Passes use it to find the group, the payload and the chosen
    algorithm without knowing the concrete op.
  }];
  let methods = [
    InterfaceMethod<"The group this op communicates on.",
      "::mlir::FlatSymbolRefAttr", "getGroupAttr">,
    InterfaceMethod<"The reduction, for reducing collectives.",
      "std::optional<::mlir::comm::ReductionKind>", "getReductionKind", (ins),
      [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<"The tensors whose data is communicated.",
      "::mlir::OperandRange", "getPayload", (ins), [{}],
      [{ return $_op->getOperands(); }]>,
    InterfaceMethod<"The recorded algorithm, or null.",
      "::mlir::comm::AlgorithmAttr", "getAlgorithm", (ins), [{}], [{
        auto attr = $_op->getInherentAttr("algo");
        return attr ? ::llvm::dyn_cast_or_null<::mlir::comm::AlgorithmAttr>(*attr)
                    : ::mlir::comm::AlgorithmAttr();
      }]>,
  ];
  // Counts and bytes derived from the tensors must not wrap.
  let verify = [{ return ::mlir::comm::verifySizesFit($_op); }];
}

#endif // HCCL_COMM_INTERFACES
