//===- CommDialect.td - The comm dialect -------------------*- tablegen -*-===//
//
// The `comm` dialect represents the collective communication of a training
// graph: communicator groups, collectives on tensors, their asynchronous
// start/wait form and (after lowering) explicit step schedules.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_COMM_DIALECT
#define HCCL_COMM_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Comm_Dialect : Dialect {
  let name = "comm";
  let cppNamespace = "::mlir::comm";
  let summary = "Collective communication of distributed training graphs";
  let description = [{
    Communicator groups are symbols (`comm.group`); every collective names the
    group it runs on. The module carries the cluster topology in the
    `comm.topology` attribute. Collectives have value semantics on ranked
    tensors; `comm.start` / `comm.wait` split one into an asynchronous pair so
    that compute can be scheduled while it is in flight. A chosen algorithm is
    recorded with `#comm.algo<...>`.

    All collectives read and write an abstract communication resource, so
    passes never reorder two collectives or drop one: every rank must issue
    the same collectives in the same order.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 1;
  // Lowered schedules compute peers and offsets with arith ops.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    /// Module attribute holding the cluster topology (#comm.topology).
    static constexpr ::llvm::StringLiteral getTopologyAttrName() {
      return ::llvm::StringLiteral("comm.topology");
    }
    /// Predicted device time of a compute op, in microseconds.
    static constexpr ::llvm::StringLiteral getCostAttrName() {
      return ::llvm::StringLiteral("comm.cost_us");
    }
    /// Bucket index assigned by comm-bucket-sizing.
    static constexpr ::llvm::StringLiteral getBucketAttrName() {
      return ::llvm::StringLiteral("comm.bucket");
    }
  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

#endif // HCCL_COMM_DIALECT
