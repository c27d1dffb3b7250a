//===- ProgramIR.h - Step programs <-> comm.schedule IR ---------*- C++ -*-===//
//
// The two directions between lib/schedule's Program and the lowered IR:
// the lowering emits a program as a comm.schedule (one IR op per program op,
// expressions as index arithmetic), and the verifier, the plan exporter and
// the tests read a comm.schedule back into a Program. Reading back is what
// makes verification meaningful: the verifier checks the IR as it is now,
// after any pass touched it, not the generator's output. Beside the dialect
// (library HcclCommDialect), so translations use it without the passes.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_DIALECT_COMM_PROGRAMIR_H
#define HCCL_MLIR_DIALECT_COMM_PROGRAMIR_H

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Program.h"

namespace mlir::comm {

/// Builds a comm.program named `name` for `prog` at the builder's insertion
/// point (a symbol table's body). `elementType` is the MLIR element type of
/// the program's dtype. `podSplit`: a hierarchical program split at the
/// super pod (its algorithm attribute says so, as its collectives' do).
ProgramOp buildProgramOp(OpBuilder &b, Location loc,
                         const hccl::sched::Program &prog, StringRef name,
                         Type elementType, bool podSplit = false);

/// A readable symbol name that identifies a generated program:
/// allreduce_ring_p8_n1040_fp32_sum, with suffixes for root, slices,
/// hierarchical levels and a hash of the tables when they matter.
std::string programSymbolName(const hccl::sched::Program &prog);

/// Reads a comm.program back into a Program. On failure, emits a
/// diagnostic at the offending op and returns failure.
FailureOr<hccl::sched::Program> readProgram(ProgramOp op);

/// The lib/schedule algorithm fields of an algorithm attribute.
void applyAlgorithm(AlgorithmAttr algo, hccl::sched::Program &prog);

} // namespace mlir::comm

#endif // HCCL_MLIR_DIALECT_COMM_PROGRAMIR_H
