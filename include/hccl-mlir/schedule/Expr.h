//===- Expr.h - Hash-consed step expressions --------------------*- C++ -*-===//
//
// Peers, offsets and counts of a step program are small integer expressions
// over the rank r, the group size p, the element count n, the step s, the
// repeat index t, named program parameters and integer tables
// (docs/step-programs.md). They live in an ExprPool: nodes are hash-consed
// (an identical node is stored once), children always have smaller ids than
// their parent, and constant operands are folded when the node is built.
//
// The pool is walkable node by node (opcode, children, immediate), so the
// compiler can turn nodes into arith ops and back. `E` is a thin handle with
// operator overloading so generators read like math: `(r + 1) % p`.
//
// Semantics: 64-bit signed; `/` floors, `%` is Euclidean (result in [0,|b|)),
// shifts need 0 <= amount < 63; division by zero, overflow, a bad shift or a
// table index out of range make evaluation fail with an error (never UB).
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_MLIR_SCHEDULE_EXPR_H
#define HCCL_MLIR_SCHEDULE_EXPR_H

#include "hccl-mlir/schedule/Result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hccl::sched {

enum class ExprOp : uint8_t {
  Const, ///< imm = the value
  Var,   ///< imm = ExprVar
  Param, ///< imm = parameter index
  Table, ///< imm = table index, child a = entry index
  Add,
  Sub,
  Mul,
  Div, ///< floor division
  Mod, ///< Euclidean remainder
  Xor,
  And,
  Or,
  Shl,
  Shr, ///< arithmetic
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Min,
  Max,
  Select, ///< a ? b : c
};
inline constexpr int kNumExprOps = 23;

/// Number of expression children of a node with this opcode (0..3).
int exprOpArity(ExprOp op);
/// Spelling: "+", "%", "min", "select", "tbl", ... (for printing and tools).
const char *exprOpName(ExprOp op);

enum class ExprVar : uint8_t { R = 0, P = 1, N = 2, S = 3, T = 4 };
inline constexpr int kNumExprVars = 5;
const char *exprVarName(ExprVar v); // r, p, n, s, t

using ExprId = uint32_t;
/// Marks an absent expression (e.g. the peer of a local copy).
inline constexpr ExprId kNoExpr = 0xffffffffu;

struct ExprNode {
  ExprOp op = ExprOp::Const;
  int64_t imm = 0; ///< constant value, variable, parameter or table index
  ExprId a = kNoExpr, b = kNoExpr, c = kNoExpr; ///< children by arity

  bool operator==(const ExprNode &o) const {
    return op == o.op && imm == o.imm && a == o.a && b == o.b && c == o.c;
  }
};

/// Values an expression is evaluated against.
struct EvalEnv {
  int64_t r = 0, p = 1, n = 0, s = 0, t = 0;
  const int64_t *params = nullptr;
  size_t numParams = 0;
  const std::vector<std::vector<int64_t>> *tables = nullptr;

  int64_t var(ExprVar v) const {
    switch (v) {
    case ExprVar::R:
      return r;
    case ExprVar::P:
      return p;
    case ExprVar::N:
      return n;
    case ExprVar::S:
      return s;
    case ExprVar::T:
      return t;
    }
    return 0;
  }
};

enum class EvalError : uint8_t {
  None,
  DivisionByZero,
  Overflow,
  BadShift,
  TableIndex, ///< table or entry index out of range
  BadParam,   ///< parameter index out of range
  BadNode,    ///< malformed node (id out of range)
};
/// "division by zero", "integer overflow", ...
const char *evalErrorName(EvalError e);

/// Applies a binary opcode to two values with the semantics above.
inline EvalError applyBinary(ExprOp op, int64_t x, int64_t y, int64_t &out) {
  switch (op) {
  // The checked builtins write the wrapped value: keep `out` untouched on
  // failure, as for every other error.
  case ExprOp::Add: {
    int64_t v;
    if (__builtin_add_overflow(x, y, &v))
      return EvalError::Overflow;
    out = v;
    return EvalError::None;
  }
  case ExprOp::Sub: {
    int64_t v;
    if (__builtin_sub_overflow(x, y, &v))
      return EvalError::Overflow;
    out = v;
    return EvalError::None;
  }
  case ExprOp::Mul: {
    int64_t v;
    if (__builtin_mul_overflow(x, y, &v))
      return EvalError::Overflow;
    out = v;
    return EvalError::None;
  }
  case ExprOp::Div: {
    if (y == 0)
      return EvalError::DivisionByZero;
    if (x == INT64_MIN && y == -1)
      return EvalError::Overflow;
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0)))
      --q; // floor
    out = q;
    return EvalError::None;
  }
  case ExprOp::Mod: {
    if (y == 0)
      return EvalError::DivisionByZero;
    if (y == -1) { // avoids INT64_MIN % -1
      out = 0;
      return EvalError::None;
    }
    int64_t m = x % y;
    if (m < 0)
      m += y < 0 ? -y : y; // Euclidean: 0 <= m < |y|
    out = m;
    return EvalError::None;
  }
  case ExprOp::Xor:
    out = x ^ y;
    return EvalError::None;
  case ExprOp::And:
    out = x & y;
    return EvalError::None;
  case ExprOp::Or:
    out = x | y;
    return EvalError::None;
  case ExprOp::Shl: {
    if (y < 0 || y > 62)
      return EvalError::BadShift;
    int64_t v = static_cast<int64_t>(static_cast<uint64_t>(x) << y);
    if ((v >> y) != x)
      return EvalError::Overflow;
    out = v;
    return EvalError::None;
  }
  case ExprOp::Shr:
    if (y < 0 || y > 62)
      return EvalError::BadShift;
    out = x >> y;
    return EvalError::None;
  case ExprOp::Eq:
    out = x == y;
    return EvalError::None;
  case ExprOp::Ne:
    out = x != y;
    return EvalError::None;
  case ExprOp::Lt:
    out = x < y;
    return EvalError::None;
  case ExprOp::Le:
    out = x <= y;
    return EvalError::None;
  case ExprOp::Gt:
    out = x > y;
    return EvalError::None;
  case ExprOp::Ge:
    out = x >= y;
    return EvalError::None;
  case ExprOp::Min:
    out = x < y ? x : y;
    return EvalError::None;
  case ExprOp::Max:
    out = x > y ? x : y;
    return EvalError::None;
  default:
    return EvalError::BadNode;
  }
}

class ExprPool {
public:
  ExprPool();

  // Node construction. All fold constant operands and trivial identities
  // (x+0, x*1, x*0, x/1, x%1, select with a constant condition, ...).
  ExprId constant(int64_t v);
  ExprId var(ExprVar v);
  ExprId param(uint32_t index);
  ExprId table(uint32_t index, ExprId entry);
  ExprId binary(ExprOp op, ExprId a, ExprId b);
  ExprId select(ExprId cond, ExprId a, ExprId b);
  /// Generic entry point (used by readers): dispatches on the arity.
  ExprId make(const ExprNode &n);

  size_t size() const { return nodes_.size(); }
  bool contains(ExprId id) const { return id < nodes_.size(); }
  const ExprNode &node(ExprId id) const { return nodes_[id]; }
  const std::vector<ExprNode> &nodes() const { return nodes_; }
  /// The value if `id` is a constant node.
  bool isConstant(ExprId id, int64_t *value = nullptr) const;
  /// True when the expression (transitively) reads this variable.
  bool uses(ExprId id, ExprVar v) const;
  /// Largest parameter / table index read, or -1.
  int64_t maxParamIndex(ExprId id) const;
  int64_t maxTableIndex(ExprId id) const;

  /// Evaluates `id`; on failure returns the error and leaves `out` alone.
  EvalError evaluate(ExprId id, const EvalEnv &env, int64_t &out) const;

  /// Compact infix text, parseable by parse(): `(r + 1) % p`,
  /// `min(r, n % p)`, `select(r < 2, r * 2, r + 1)`, `tbl0[r * p + t]`.
  /// Parameters print by name (paramNames[i]; "param<i>" when missing).
  std::string print(ExprId id,
                    const std::vector<std::string> &paramNames = {}) const;
  /// Parses the text print() writes (plus any redundant parentheses and
  /// spaces). Identifiers resolve to r, p, n, s, t, then to paramNames.
  /// Errors read "column C: what was expected".
  Result<ExprId> parse(std::string_view text,
                       const std::vector<std::string> &paramNames = {});

private:
  ExprId intern(const ExprNode &n);
  struct NodeHash {
    size_t operator()(const ExprNode &n) const;
  };
  std::vector<ExprNode> nodes_;
  std::unordered_map<ExprNode, ExprId, NodeHash> index_;
};

/// Handle for building expressions with operators. Both operands must come
/// from the same pool; an int64_t operand becomes a constant of that pool.
class E {
public:
  E() = default;
  E(ExprPool *pool, ExprId id) : pool_(pool), id_(id) {}
  ExprId id() const { return id_; }
  ExprPool *pool() const { return pool_; }
  bool valid() const { return pool_ && id_ != kNoExpr; }
  bool isConstant(int64_t *v = nullptr) const {
    return pool_->isConstant(id_, v);
  }
  E c(int64_t v) const { return E(pool_, pool_->constant(v)); }
  std::string str(const std::vector<std::string> &names = {}) const {
    return pool_->print(id_, names);
  }

private:
  ExprPool *pool_ = nullptr;
  ExprId id_ = kNoExpr;
};

E binary(ExprOp op, E a, E b);
#define HCCL_SCHED_EXPR_BINOP(SYM, OP)                                         \
  inline E operator SYM(E a, E b) { return binary(ExprOp::OP, a, b); }         \
  inline E operator SYM(E a, int64_t b) {                                      \
    return binary(ExprOp::OP, a, a.c(b));                                      \
  }                                                                            \
  inline E operator SYM(int64_t a, E b) {                                      \
    return binary(ExprOp::OP, b.c(a), b);                                      \
  }
HCCL_SCHED_EXPR_BINOP(+, Add)
HCCL_SCHED_EXPR_BINOP(-, Sub)
HCCL_SCHED_EXPR_BINOP(*, Mul)
HCCL_SCHED_EXPR_BINOP(/, Div)
HCCL_SCHED_EXPR_BINOP(%, Mod)
HCCL_SCHED_EXPR_BINOP(^, Xor)
HCCL_SCHED_EXPR_BINOP(&, And)
HCCL_SCHED_EXPR_BINOP(|, Or)
HCCL_SCHED_EXPR_BINOP(<<, Shl)
HCCL_SCHED_EXPR_BINOP(>>, Shr)
HCCL_SCHED_EXPR_BINOP(<, Lt)
HCCL_SCHED_EXPR_BINOP(<=, Le)
HCCL_SCHED_EXPR_BINOP(>, Gt)
HCCL_SCHED_EXPR_BINOP(>=, Ge)
#undef HCCL_SCHED_EXPR_BINOP
// Equality is spelled as functions so E stays usable as an ordinary value.
inline E eq(E a, E b) { return binary(ExprOp::Eq, a, b); }
inline E eq(E a, int64_t b) { return binary(ExprOp::Eq, a, a.c(b)); }
inline E ne(E a, E b) { return binary(ExprOp::Ne, a, b); }
inline E ne(E a, int64_t b) { return binary(ExprOp::Ne, a, a.c(b)); }
inline E min(E a, E b) { return binary(ExprOp::Min, a, b); }
inline E min(E a, int64_t b) { return binary(ExprOp::Min, a, a.c(b)); }
inline E max(E a, E b) { return binary(ExprOp::Max, a, b); }
inline E max(E a, int64_t b) { return binary(ExprOp::Max, a, a.c(b)); }
E select(E cond, E a, E b);
inline E select(E cond, E a, int64_t b) { return select(cond, a, a.c(b)); }
inline E select(E cond, int64_t a, E b) { return select(cond, b.c(a), b); }

} // namespace hccl::sched

#endif // HCCL_MLIR_SCHEDULE_EXPR_H
