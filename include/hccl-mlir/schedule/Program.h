//===- Program.h - Step programs and their per-rank expansion ---*- C++ -*-===//
//
// A Program is one collective algorithm for one (collective, p, n, ...),
// written rank-parametrically (docs/step-programs.md): buffers whose sizes
// are expressions, then phases; a phase is a loop of `steps` steps over the
// same ops; an op's peer, offsets and count are expressions in the program's
// ExprPool. Generators (Generate.h) build programs, so do the compiler's
// converters (ProgramBuilder, node by node), and plans are read into them.
//
// expandRank() evaluates the program for one rank into concrete ops, in
// O(steps + ops of that rank), without materialising other ranks.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_PROGRAM_H
#define HCCL_MLIR_SCHEDULE_PROGRAM_H

#include "hccl-mlir/schedule/Expr.h"
#include "hccl-mlir/schedule/Result.h"
#include "hccl-mlir/schedule/Types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hccl::sched {

enum class BufferId : uint8_t { Input = 0, Output = 1, Scratch = 2 };
inline constexpr int kNumBuffers = 3;
const char *bufferName(BufferId b); // input, output, scratch
std::optional<BufferId> parseBufferId(std::string_view s);

enum class OpKind : uint8_t { Send, Recv, RecvReduce, Copy, Reduce };
inline constexpr int kNumOpKinds = 5;
const char *opKindName(OpKind k); // send, recv, recv_reduce, copy, reduce
std::optional<OpKind> parseOpKind(std::string_view s);
/// Which fields an op kind uses.
inline bool opHasPeer(OpKind k) {
  return k == OpKind::Send || k == OpKind::Recv || k == OpKind::RecvReduce;
}
inline bool opHasDst(OpKind k) { return k != OpKind::Send; }
inline bool opHasSrc(OpKind k) { return k != OpKind::Recv; }
inline bool opReceives(OpKind k) {
  return k == OpKind::Recv || k == OpKind::RecvReduce;
}
inline bool opReduces(OpKind k) {
  return k == OpKind::RecvReduce || k == OpKind::Reduce;
}

/// Largest repeat or phase step count accepted: far above any real
/// program, low enough that a typo in a plan cannot make an expansion
/// allocate without bound.
inline constexpr int64_t kMaxRepeat = int64_t(1) << 24;

/// The most one program may expand to for one rank (docs/step-programs.md
/// "Limits"): every step counts one and every op its instance count (its
/// repeat, at least one, whether or not a `when` reading t holds; one where
/// a `when` that does not read t is false; slices not counted).
/// Steps and repeats are bounded one by one (kMaxRepeat), their product is
/// bounded here, wherever a program is expanded: expandRank (runtime, plan
/// writer, hccl-plan expand), verify(), predictCost(), and
/// comm-specialize-rank (which counts the IR ops it would create). 2^20
/// covers a ring over 350k ranks and a chain broadcast over 69k; one rank's
/// expansion then holds at most 64 MiB of ops.
inline constexpr int64_t kMaxExpandedSize = int64_t(1) << 20;
/// "expands to more than ... (kMaxExpandedSize ...)": the message of every
/// expansion refused by the limit; `what` says what was counted.
std::string expandedSizeError(const std::string &what);

struct BufRef {
  BufferId buf = BufferId::Input;
  ExprId off = kNoExpr;
};

/// One op of a phase. Fields a kind does not use hold kNoExpr.
struct Op {
  OpKind kind = OpKind::Send;
  ExprId when = kNoExpr;   ///< predicate; kNoExpr = always
  ExprId repeat = kNoExpr; ///< instances t = 0..repeat-1; kNoExpr = 1
  ExprId peer = kNoExpr;   ///< send, recv, recv_reduce
  BufRef dst;              ///< recv, recv_reduce, copy, reduce
  BufRef src;              ///< send, recv_reduce, copy, reduce
  ExprId count = kNoExpr;
  ExprId srcStride = kNoExpr; ///< reduce only
  ExprId srcN = kNoExpr;      ///< reduce only
};

struct Phase {
  std::string name;
  ExprId steps = kNoExpr; ///< may read p, n and params, never r, s or t
  std::vector<Op> ops;
};

struct Param {
  std::string name;
  int64_t value = 0;
};
/// An identifier that is not a variable (r p n s t), min, max, select or
/// tbl<digits>: usable as a parameter name in expressions.
bool isValidParamName(const std::string &name);

struct Program {
  Collective collective = Collective::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  /// Sub-algorithms of Algorithm::Hierarchical (intra / inter server).
  Algorithm level0 = Algorithm::Ring;
  Algorithm level1 = Algorithm::Ring;
  DataType dtype = DataType::Fp32;
  ReduceOp reduceOp = ReduceOp::Sum;
  int64_t p = 1;      ///< group size
  int64_t n = 0;      ///< element count as HCCL defines it per collective
  int64_t root = 0;   ///< broadcast / reduce
  int64_t slices = 1; ///< >= 1, see docs/step-programs.md "Slices"
  /// The block layout of the side that holds p blocks of n elements
  /// (reduce-scatter's input, all-gather's output, all-to-all's both):
  /// outer A > 1 splits every block into A rows of n / A, row-major over
  /// (row, block) (docs/step-programs.md "Block layout"): a collective
  /// along a dimension that is not the leading one, A the product of the
  /// dimensions before it. 1 = the blocks one after another.
  int64_t inputOuter = 1, outputOuter = 1;

  ExprPool pool;
  std::vector<Param> params;
  std::vector<std::vector<int64_t>> tables;
  /// Sizes in elements of input, output and scratch (expressions of p, n,
  /// params and possibly r, e.g. for alltoallv or a root-only scratch).
  std::array<ExprId, kNumBuffers> bufferSize{kNoExpr, kNoExpr, kNoExpr};
  std::vector<Phase> phases;

  std::vector<std::string> paramNames() const;
  std::vector<int64_t> paramValues() const;
  /// Environment for rank r (s = t = 0); params/tables point into *this.
  EvalEnv env(int64_t r, const int64_t *paramValues) const;
  /// Structural checks: ids in range, each kind has exactly its fields,
  /// steps and buffer sizes well formed, p >= 1, n >= 0, slices >= 1.
  Status validate() const;
  /// Evaluated step count of every phase (they do not depend on the rank).
  Result<std::vector<int64_t>> phaseSteps() const;
  /// Total number of steps.
  Result<int64_t> numSteps() const;
};

/// Whether a collective of n elements per block can have these block
/// layouts: outer >= 1 dividing n, and > 1 only on a side with p blocks.
Status checkBlockLayout(Collective c, int64_t n, int64_t inputOuter,
                        int64_t outputOuter);

/// Where element i of block k lies in a buffer of p blocks of n elements
/// with block layout `outer` (Program::inputOuter / outputOuter; n % outer
/// == 0): row i / (n / outer) of the (row, block) grid.
inline int64_t blockOffset(int64_t k, int64_t i, int64_t p, int64_t n,
                           int64_t outer) {
  if (outer <= 1)
    return k * n + i;
  int64_t b = n / outer;
  return (i / b * p + k) * b + i % b;
}

/// An op instance evaluated for one rank, one step and one t.
struct ConcreteOp {
  OpKind kind = OpKind::Send;
  BufferId dstBuf = BufferId::Output;
  BufferId srcBuf = BufferId::Input;
  uint32_t opIndex = 0; ///< index of the op inside its phase
  int64_t t = 0;
  int64_t peer = -1;
  int64_t dstOff = 0, srcOff = 0, count = 0;
  int64_t srcStride = 0, srcN = 1;
};

struct ConcreteStep {
  uint32_t phase = 0;
  int64_t step = 0;     ///< s inside the phase
  uint32_t firstOp = 0; ///< index into RankProgram::ops
  uint32_t numOps = 0;
};

/// One rank's instructions: every step of the program in order (also the
/// steps where this rank has nothing to do, so indices agree across ranks).
struct RankProgram {
  int64_t rank = 0;
  std::array<int64_t, kNumBuffers> bufferSize{0, 0, 0};
  std::vector<ConcreteStep> steps;
  std::vector<ConcreteOp> ops;
};

struct ExpandOptions {
  /// Split every op into `program.slices` pieces (as the executor will).
  bool applySlices = false;
};

/// Evaluates steps of one program fast: every distinct expression node of a
/// phase is computed once per (rank, step), in id order (children first),
/// and the nodes that read t once per instance. Errors are carried as
/// poison, so an untaken select branch or the fields of an op whose `when`
/// is false never fail. Holds a reference to the program (keep it alive and
/// unchanged); call Program::validate() first. Not thread-safe (it keeps
/// scratch values): use one evaluator per thread.
class ProgramEvaluator {
public:
  explicit ProgramEvaluator(const Program &prog);
  /// Appends the op instances of step (phase, s) of `rank` to `out` in
  /// program order (op order, then t). Errors name rank, phase, step, op.
  /// `budget` is what is left of the rank's kMaxExpandedSize: the step and
  /// its ops are charged before they are evaluated, and a step beyond it
  /// fails. Without one, the step alone must fit the limit.
  Status expandStep(int64_t rank, uint32_t phase, int64_t s,
                    std::vector<ConcreteOp> &out, int64_t *budget = nullptr);

private:
  struct OpPlan {
    std::vector<ExprId> tNodes; ///< nodes of this op that read t
    bool whenReadsT = false;    ///< else a false `when` drops every t at once
  };
  struct PhasePlan {
    std::vector<ExprId> nodes; ///< nodes that do not read t
    std::vector<OpPlan> ops;
  };
  void evalList(const std::vector<ExprId> &ids);
  const Program &prog_;
  std::vector<int64_t> params_;
  std::vector<PhasePlan> plans_;
  std::vector<int64_t> val_;
  std::vector<EvalError> err_;
  int64_t r_ = 0, s_ = 0, t_ = 0;
};

/// One-off form of ProgramEvaluator::expandStep (builds an evaluator per
/// call; loops should keep a ProgramEvaluator). `paramValues` is unused and
/// kept for source compatibility.
Status expandStep(const Program &prog, const int64_t *paramValues, int64_t rank,
                  uint32_t phase, int64_t s, std::vector<ConcreteOp> &out);
/// Evaluates the program's buffer sizes for one rank.
Status evalBufferSizes(const Program &prog, const int64_t *paramValues,
                       int64_t rank, std::array<int64_t, kNumBuffers> &out);
/// The whole program for one rank.
Result<RankProgram> expandRank(const Program &prog, int64_t rank,
                               const ExpandOptions &opts = {});

/// Estimated op instances of the whole program (all ranks, without
/// slicing): ranks 0, p/2 and p-1 expanded, the other ranks counted as
/// their median (exact for symmetric programs and for a root that talks to
/// everyone). Cheap (three ranks); used to refuse work that would take
/// hours before starting it. Fails where one of those ranks fails.
Result<int64_t> estimateOpInstances(const Program &prog);

/// Piece i of k of a range of `count` elements (the block rule):
/// offset i*(count/k) + min(i, count%k), size count/k + (i < count%k).
inline int64_t blockOffset(int64_t count, int64_t k, int64_t i) {
  return i * (count / k) + (i < count % k ? i : count % k);
}
inline int64_t blockCount(int64_t count, int64_t k, int64_t i) {
  return count / k + (i < count % k ? 1 : 0);
}
/// Slice i of k of an op instance (offsets advance, count shrinks).
ConcreteOp sliceOp(const ConcreteOp &op, int64_t k, int64_t i);

/// Human-readable listing of one rank's program (hccl-plan expand).
std::string formatRankProgram(const Program &prog, const RankProgram &rp);
/// Human-readable listing of the compact program.
std::string formatProgram(const Program &prog);

/// Builds a Program node by node: generators use it, and so do converters
/// from IR. Ops are appended to the current phase (the last one added).
class ProgramBuilder {
public:
  ProgramBuilder() = default;
  explicit ProgramBuilder(Program prog) : prog_(std::move(prog)) {}

  Program &program() { return prog_; }
  ExprPool &pool() { return prog_.pool; }
  Program take() { return std::move(prog_); }

  E r() { return E(&prog_.pool, prog_.pool.var(ExprVar::R)); }
  E p() { return E(&prog_.pool, prog_.pool.var(ExprVar::P)); }
  E n() { return E(&prog_.pool, prog_.pool.var(ExprVar::N)); }
  E s() { return E(&prog_.pool, prog_.pool.var(ExprVar::S)); }
  E t() { return E(&prog_.pool, prog_.pool.var(ExprVar::T)); }
  E c(int64_t v) { return E(&prog_.pool, prog_.pool.constant(v)); }
  E wrap(ExprId id) { return E(&prog_.pool, id); }
  /// A named parameter (added on first use; the value must then agree).
  E param(const std::string &name, int64_t value);
  /// Adds an integer table and returns its index.
  uint32_t addTable(std::vector<int64_t> values);
  E tableAt(uint32_t table, E entry) {
    return E(&prog_.pool, prog_.pool.table(table, entry.id()));
  }

  void setBufferSize(BufferId b, E size) {
    prog_.bufferSize[static_cast<int>(b)] = size.id();
  }
  /// Starts a new phase; later ops go there. Returns its index.
  size_t addPhase(std::string name, E steps);
  size_t numPhases() const { return prog_.phases.size(); }
  /// Appends a fully formed op to the current phase.
  void addOp(const Op &op);

  /// Optional fields of the convenience builders below.
  struct Opt {
    E when;   ///< predicate (invalid E = always)
    E repeat; ///< instance count (invalid E = 1)
  };
  void send(E peer, BufferId srcBuf, E srcOff, E count, Opt o = {});
  void recv(E peer, BufferId dstBuf, E dstOff, E count, Opt o = {});
  void recvReduce(E peer, BufferId dstBuf, E dstOff, BufferId srcBuf, E srcOff,
                  E count, Opt o = {});
  void copy(BufferId dstBuf, E dstOff, BufferId srcBuf, E srcOff, E count,
            Opt o = {});
  void reduce(BufferId dstBuf, E dstOff, BufferId srcBuf, E srcOff, E srcStride,
              E srcN, E count, Opt o = {});

private:
  Op base(OpKind k, const Opt &o);
  Program prog_;
};

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_PROGRAM_H
