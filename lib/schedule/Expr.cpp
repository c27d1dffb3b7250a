//===- Expr.cpp - Expression pool: building, folding, evaluation ----------===//
#include "hccl-mlir/schedule/Expr.h"

#include <algorithm>
#include <limits>

namespace hccl::sched {

int exprOpArity(ExprOp op) {
  switch (op) {
  case ExprOp::Const:
  case ExprOp::Var:
  case ExprOp::Param:
    return 0;
  case ExprOp::Table:
    return 1;
  case ExprOp::Select:
    return 3;
  default:
    return 2;
  }
}

const char *exprOpName(ExprOp op) {
  static const char *const names[kNumExprOps] = {
      "const", "var", "param", "tbl", "+",   "-",   "*",     "/",
      "%",     "^",   "&",     "|",   "<<",  ">>",  "==",    "!=",
      "<",     "<=",  ">",     ">=",  "min", "max", "select"};
  int i = static_cast<int>(op);
  return i >= 0 && i < kNumExprOps ? names[i] : "invalid";
}

const char *exprVarName(ExprVar v) {
  static const char *const names[kNumExprVars] = {"r", "p", "n", "s", "t"};
  int i = static_cast<int>(v);
  return i >= 0 && i < kNumExprVars ? names[i] : "?";
}

const char *evalErrorName(EvalError e) {
  switch (e) {
  case EvalError::None:
    return "no error";
  case EvalError::DivisionByZero:
    return "division by zero";
  case EvalError::Overflow:
    return "integer overflow";
  case EvalError::BadShift:
    return "shift amount outside 0..62";
  case EvalError::TableIndex:
    return "table index out of range";
  case EvalError::BadParam:
    return "parameter index out of range";
  case EvalError::BadNode:
    return "malformed expression node";
  }
  return "unknown error";
}

size_t ExprPool::NodeHash::operator()(const ExprNode &n) const {
  uint64_t h = static_cast<uint64_t>(n.op) * 0x9e3779b97f4a7c15ull;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  mix(static_cast<uint64_t>(n.imm));
  mix(n.a);
  mix(n.b);
  mix(n.c);
  return static_cast<size_t>(h);
}

ExprPool::ExprPool() {
  // Id 0 is the constant 0 and id 1 the constant 1: handy defaults.
  constant(0);
  constant(1);
}

ExprId ExprPool::intern(const ExprNode &n) {
  auto it = index_.find(n);
  if (it != index_.end())
    return it->second;
  ExprId id = static_cast<ExprId>(nodes_.size());
  nodes_.push_back(n);
  index_.emplace(n, id);
  return id;
}

ExprId ExprPool::constant(int64_t v) {
  ExprNode n;
  n.op = ExprOp::Const;
  n.imm = v;
  return intern(n);
}

ExprId ExprPool::var(ExprVar v) {
  ExprNode n;
  n.op = ExprOp::Var;
  n.imm = static_cast<int64_t>(v);
  return intern(n);
}

ExprId ExprPool::param(uint32_t index) {
  ExprNode n;
  n.op = ExprOp::Param;
  n.imm = index;
  return intern(n);
}

ExprId ExprPool::table(uint32_t index, ExprId entry) {
  ExprNode n;
  n.op = ExprOp::Table;
  n.imm = index;
  n.a = entry;
  return intern(n);
}

bool ExprPool::isConstant(ExprId id, int64_t *value) const {
  if (id >= nodes_.size() || nodes_[id].op != ExprOp::Const)
    return false;
  if (value)
    *value = nodes_[id].imm;
  return true;
}

ExprId ExprPool::binary(ExprOp op, ExprId a, ExprId b) {
  int64_t x = 0, y = 0;
  bool ca = isConstant(a, &x), cb = isConstant(b, &y);
  if (ca && cb) {
    int64_t v;
    if (applyBinary(op, x, y, v) == EvalError::None)
      return constant(v);
    // Leave failing constant operations in the tree: evaluation reports them.
  }
  switch (op) {
  case ExprOp::Add:
    if (ca && x == 0)
      return b;
    if (cb && y == 0)
      return a;
    break;
  case ExprOp::Sub:
    if (cb && y == 0)
      return a;
    if (a == b)
      return constant(0);
    break;
  case ExprOp::Mul:
    if ((ca && x == 0) || (cb && y == 0))
      return constant(0);
    if (ca && x == 1)
      return b;
    if (cb && y == 1)
      return a;
    break;
  case ExprOp::Div:
    if (cb && y == 1)
      return a;
    break;
  case ExprOp::Mod:
    if (cb && (y == 1 || y == -1))
      return constant(0);
    break;
  case ExprOp::Shl:
  case ExprOp::Shr:
    if (cb && y == 0)
      return a;
    break;
  case ExprOp::Or:
  case ExprOp::Xor:
    if (ca && x == 0)
      return b;
    if (cb && y == 0)
      return a;
    break;
  case ExprOp::Min:
  case ExprOp::Max:
    if (a == b)
      return a;
    break;
  default:
    break;
  }
  ExprNode n;
  n.op = op;
  n.a = a;
  n.b = b;
  return intern(n);
}

ExprId ExprPool::select(ExprId cond, ExprId a, ExprId b) {
  int64_t c = 0;
  if (isConstant(cond, &c))
    return c ? a : b;
  if (a == b)
    return a;
  ExprNode n;
  n.op = ExprOp::Select;
  n.a = cond;
  n.b = a;
  n.c = b;
  return intern(n);
}

ExprId ExprPool::make(const ExprNode &n) {
  switch (n.op) {
  case ExprOp::Const:
    return constant(n.imm);
  case ExprOp::Var:
    return var(static_cast<ExprVar>(n.imm));
  case ExprOp::Param:
    return param(static_cast<uint32_t>(n.imm));
  case ExprOp::Table:
    return table(static_cast<uint32_t>(n.imm), n.a);
  case ExprOp::Select:
    return select(n.a, n.b, n.c);
  default:
    return binary(n.op, n.a, n.b);
  }
}

bool ExprPool::uses(ExprId id, ExprVar v) const {
  if (id >= nodes_.size())
    return false;
  const ExprNode &n = nodes_[id];
  if (n.op == ExprOp::Var)
    return n.imm == static_cast<int64_t>(v);
  int k = exprOpArity(n.op);
  return (k > 0 && uses(n.a, v)) || (k > 1 && uses(n.b, v)) ||
         (k > 2 && uses(n.c, v));
}

namespace {
int64_t maxIndexOf(const std::vector<ExprNode> &nodes, ExprId id, ExprOp op) {
  if (id >= nodes.size())
    return -1;
  const ExprNode &n = nodes[id];
  int64_t best = n.op == op ? n.imm : -1;
  int k = exprOpArity(n.op);
  if (k > 0)
    best = std::max(best, maxIndexOf(nodes, n.a, op));
  if (k > 1)
    best = std::max(best, maxIndexOf(nodes, n.b, op));
  if (k > 2)
    best = std::max(best, maxIndexOf(nodes, n.c, op));
  return best;
}
} // namespace

int64_t ExprPool::maxParamIndex(ExprId id) const {
  return maxIndexOf(nodes_, id, ExprOp::Param);
}
int64_t ExprPool::maxTableIndex(ExprId id) const {
  return maxIndexOf(nodes_, id, ExprOp::Table);
}

EvalError ExprPool::evaluate(ExprId id, const EvalEnv &env,
                             int64_t &out) const {
  if (id >= nodes_.size())
    return EvalError::BadNode;
  const ExprNode &n = nodes_[id];
  switch (n.op) {
  case ExprOp::Const:
    out = n.imm;
    return EvalError::None;
  case ExprOp::Var:
    out = env.var(static_cast<ExprVar>(n.imm));
    return EvalError::None;
  case ExprOp::Param:
    if (n.imm < 0 || static_cast<size_t>(n.imm) >= env.numParams)
      return EvalError::BadParam;
    out = env.params[n.imm];
    return EvalError::None;
  case ExprOp::Table: {
    int64_t e;
    if (EvalError err = evaluate(n.a, env, e); err != EvalError::None)
      return err;
    if (!env.tables || n.imm < 0 ||
        static_cast<size_t>(n.imm) >= env.tables->size())
      return EvalError::TableIndex;
    const std::vector<int64_t> &tbl = (*env.tables)[n.imm];
    if (e < 0 || static_cast<size_t>(e) >= tbl.size())
      return EvalError::TableIndex;
    out = tbl[e];
    return EvalError::None;
  }
  case ExprOp::Select: {
    int64_t c;
    if (EvalError err = evaluate(n.a, env, c); err != EvalError::None)
      return err;
    return evaluate(c ? n.b : n.c, env, out);
  }
  default: {
    int64_t x, y;
    if (EvalError err = evaluate(n.a, env, x); err != EvalError::None)
      return err;
    if (EvalError err = evaluate(n.b, env, y); err != EvalError::None)
      return err;
    return applyBinary(n.op, x, y, out);
  }
  }
}

E binary(ExprOp op, E a, E b) {
  return E(a.pool(), a.pool()->binary(op, a.id(), b.id()));
}

E select(E cond, E a, E b) {
  return E(cond.pool(), cond.pool()->select(cond.id(), a.id(), b.id()));
}

} // namespace hccl::sched
