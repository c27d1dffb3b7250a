//===- CommOps.h - comm dialect operations ----------------------*- C++ -*-===//
#ifndef HCCL_MLIR_DIALECT_COMM_COMMOPS_H
#define HCCL_MLIR_DIALECT_COMM_COMMOPS_H

#include "hccl-mlir/Dialect/Comm/CommDialect.h"
#include "hccl-mlir/schedule/Program.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::comm {
/// Elements and bytes of a statically shaped type, multiplied with overflow
/// checks (ShapedType::getNumElements wraps). nullopt for dynamic or
/// unranked shapes, non-shaped types, element types without a fixed size,
/// or when the product does not fit in int64_t.
std::optional<int64_t> getStaticElementCount(Type t);
std::optional<int64_t> getStaticByteSize(Type t);
/// Error at `op` when one of its static tensors, or all of them together,
/// holds more elements or bytes than int64_t counts (the verifier of every
/// communication op).
LogicalResult verifySizesFit(Operation *op);
/// The same check for every op under `root`, for passes that size any value
/// (liveness, compute estimates); the error names the op and the pass.
LogicalResult verifySizesFitIn(Operation *root, StringRef pass);
/// Region nesting our passes' own recursive walks accept (the tools' input
/// scan allows 512 brackets, about 256 generic-form regions).
inline constexpr unsigned kMaxRegionDepth = 256;
/// Error at the first op under `root` nested in more than `limit` regions.
LogicalResult verifyRegionDepth(Operation *root, unsigned limit,
                                StringRef pass);
} // namespace mlir::comm

#include "hccl-mlir/Dialect/Comm/CommInterfaces.h.inc"

namespace mlir::comm {
class StartOp;
class WaitOp;
class YieldOp;
} // namespace mlir::comm

namespace mlir::comm {
class BuffersOp;
class PhaseOp;
class RepeatOp;
} // namespace mlir::comm

#define GET_OP_CLASSES
#include "hccl-mlir/Dialect/Comm/CommOps.h.inc"

namespace mlir::comm {

/// The index fields of the step ops (comm.step.*), in storage order.
enum class StepField : uint8_t {
  When,
  Peer,
  DstOff,
  SrcOff,
  Count,
  Stride,
  SrcN
};
const char *stepFieldName(StepField f);
/// The fields a step op of this kind carries, in storage order.
ArrayRef<StepField> getStepFields(hccl::sched::OpKind kind);
/// The kind of a comm.step.* op, nullopt for other ops.
std::optional<hccl::sched::OpKind> getStepKind(Operation *op);
/// A field of a step op: a Value, or an IntegerAttr when constant. Null
/// when the op has no such field.
OpFoldResult getStepField(Operation *op, StepField f);
std::optional<BufferKind> getStepDstBuffer(Operation *op);
std::optional<BufferKind> getStepSrcBuffer(Operation *op);
/// Creates a step op; `fields` follow getStepFields(kind) (constants become
/// static fields). Buffers the kind does not use are ignored.
Operation *buildStepOp(OpBuilder &b, Location loc, hccl::sched::OpKind kind,
                       ArrayRef<OpFoldResult> fields, BufferKind dst,
                       BufferKind src);

} // namespace mlir::comm

namespace mlir::comm {

/// The group a communication op refers to, or null if the symbol is missing.
GroupOp lookupGroup(Operation *op, FlatSymbolRefAttr group);

/// The lib/schedule collective an op performs (nullopt for send, recv,
/// barrier and non-comm ops).
std::optional<hccl::sched::Collective> getScheduleCollective(Operation *op);

/// The block layout a collective's tensors give its step program
/// (hccl::sched::Program::inputOuter / outputOuter): the product of the
/// dimensions before all_gather's or reduce_scatter's dimension, or
/// all_to_all's split (input) and concat (output) dimensions, of its first
/// operand and result. (1, 1) for other ops, leading dimensions and dynamic
/// outer dimensions.
struct BlockLayout {
  int64_t inputOuter = 1, outputOuter = 1;
};
BlockLayout getBlockLayout(Operation *op);

/// Bytes communicated by an op's payload (static shapes; nullopt if dynamic).
std::optional<int64_t> getPayloadBytes(CollectiveOpInterface op);

/// Ranks per server of a group on a topology, as the hierarchical
/// algorithms need it: every subgroup must split into runs of m consecutive
/// members on one server each, m the same everywhere (group-local ranks are
/// server-major). nullopt when the group does not split that way or a rank
/// is outside the topology.
/// With `perPod`, the same split at the super pod (ranks per pod; nullopt
/// also when the group lies in fewer than two pods).
std::optional<int64_t> getRanksPerServer(GroupOp group,
                                         const hccl::sched::Topology &topo,
                                         bool perPod = false);

/// The module's topology attribute, if any.
TopologyAttr getTopology(Operation *op);

} // namespace mlir::comm

#endif // HCCL_MLIR_DIALECT_COMM_COMMOPS_H
