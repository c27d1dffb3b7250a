//===- ExprText.cpp - Printing and parsing of expressions -----------------===//
//
// The compact infix syntax of plan files: C precedence for the binary
// operators, min/max/select calls, tbl<k>[e] table reads, variables r p n s t
// and named parameters. Print and parse round-trip.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Expr.h"

#include <cctype>

namespace hccl::sched {
namespace {

// Binding strength of infix operators (higher binds tighter), as in C.
int precedence(ExprOp op) {
  switch (op) {
  case ExprOp::Mul:
  case ExprOp::Div:
  case ExprOp::Mod:
    return 10;
  case ExprOp::Add:
  case ExprOp::Sub:
    return 9;
  case ExprOp::Shl:
  case ExprOp::Shr:
    return 8;
  case ExprOp::Lt:
  case ExprOp::Le:
  case ExprOp::Gt:
  case ExprOp::Ge:
    return 7;
  case ExprOp::Eq:
  case ExprOp::Ne:
    return 6;
  case ExprOp::And:
    return 5;
  case ExprOp::Xor:
    return 4;
  case ExprOp::Or:
    return 3;
  default:
    return 100; // atoms and calls
  }
}

bool isInfix(ExprOp op) { return precedence(op) < 100; }

void printNode(const ExprPool &pool, ExprId id,
               const std::vector<std::string> &names, std::string &out) {
  if (!pool.contains(id)) {
    out += "<bad>";
    return;
  }
  const ExprNode &n = pool.node(id);
  switch (n.op) {
  case ExprOp::Const:
    out += std::to_string(n.imm);
    return;
  case ExprOp::Var:
    out += exprVarName(static_cast<ExprVar>(n.imm));
    return;
  case ExprOp::Param:
    if (n.imm >= 0 && static_cast<size_t>(n.imm) < names.size())
      out += names[n.imm];
    else
      out += "param" + std::to_string(n.imm);
    return;
  case ExprOp::Table:
    out += "tbl" + std::to_string(n.imm) + "[";
    printNode(pool, n.a, names, out);
    out += "]";
    return;
  case ExprOp::Min:
  case ExprOp::Max:
  case ExprOp::Select:
    out += exprOpName(n.op);
    out += "(";
    printNode(pool, n.a, names, out);
    out += ", ";
    printNode(pool, n.b, names, out);
    if (n.op == ExprOp::Select) {
      out += ", ";
      printNode(pool, n.c, names, out);
    }
    out += ")";
    return;
  default:
    break;
  }
  int prec = precedence(n.op);
  auto child = [&](ExprId c, bool right) {
    const ExprNode &cn = pool.node(c);
    int cp = precedence(cn.op);
    // A negative literal on the left of a tighter operator reads fine; on
    // the right of '-' it needs no parentheses either ("a - -1" parses).
    bool paren = isInfix(cn.op) && (cp < prec || (right && cp == prec));
    if (paren)
      out += "(";
    printNode(pool, c, names, out);
    if (paren)
      out += ")";
  };
  child(n.a, false);
  out += " ";
  out += exprOpName(n.op);
  out += " ";
  child(n.b, true);
}

class Parser {
public:
  Parser(ExprPool &pool, std::string_view text,
         const std::vector<std::string> &names)
      : pool_(pool), text_(text), names_(names) {}

  Result<ExprId> run() {
    ExprId e = parseBinary(0);
    if (!err_.empty())
      return Result<ExprId>::error(err_);
    skipSpace();
    if (pos_ < text_.size())
      return fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return e;
  }

private:
  Result<ExprId> fail(const std::string &msg) {
    return Result<ExprId>::error("column " + std::to_string(pos_ + 1) + ": " +
                                 msg);
  }
  ExprId error(const std::string &msg) {
    if (err_.empty())
      err_ = "column " + std::to_string(pos_ + 1) + ": " + msg;
    return 0;
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool eat(std::string_view tok) {
    skipSpace();
    if (text_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }

  // The infix operator at the cursor (without consuming it).
  bool peekOp(ExprOp &op, size_t &len) {
    skipSpace();
    static const struct {
      const char *tok;
      ExprOp op;
    } ops[] = {{"<<", ExprOp::Shl}, {">>", ExprOp::Shr}, {"<=", ExprOp::Le},
               {">=", ExprOp::Ge},  {"==", ExprOp::Eq},  {"!=", ExprOp::Ne},
               {"<", ExprOp::Lt},   {">", ExprOp::Gt},   {"+", ExprOp::Add},
               {"-", ExprOp::Sub},  {"*", ExprOp::Mul},  {"/", ExprOp::Div},
               {"%", ExprOp::Mod},  {"^", ExprOp::Xor},  {"&", ExprOp::And},
               {"|", ExprOp::Or}};
    for (auto &o : ops) {
      std::string_view t(o.tok);
      if (text_.substr(pos_, t.size()) == t) {
        op = o.op;
        len = t.size();
        return true;
      }
    }
    return false;
  }

  ExprId parseBinary(int minPrec) {
    if (++depth_ > kMaxDepth)
      return error("expression nested too deeply");
    ExprId lhs = parseUnary();
    ExprOp op;
    size_t len;
    while (err_.empty() && peekOp(op, len) && precedence(op) >= minPrec) {
      pos_ += len;
      ExprId rhs = parseBinary(precedence(op) + 1);
      if (!err_.empty())
        break;
      lhs = pool_.binary(op, lhs, rhs);
    }
    --depth_;
    return lhs;
  }

  ExprId parseUnary() {
    skipSpace();
    if (eat("-")) {
      skipSpace();
      if (pos_ < text_.size() &&
          std::isdigit(static_cast<unsigned char>(text_[pos_])))
        return parseNumber(true);
      if (++depth_ > kMaxDepth)
        return error("expression nested too deeply");
      ExprId e = parseUnary();
      --depth_;
      return pool_.binary(ExprOp::Sub, pool_.constant(0), e);
    }
    return parsePrimary();
  }

  ExprId parseNumber(bool negative) {
    uint64_t v = 0;
    size_t start = pos_;
    const uint64_t limit =
        negative ? (uint64_t(1) << 63) : (uint64_t(1) << 63) - 1;
    while (pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      uint64_t d = static_cast<uint64_t>(text_[pos_] - '0');
      if (v > (limit - d) / 10) {
        pos_ = start;
        return error("integer literal out of 64-bit range");
      }
      v = v * 10 + d;
      ++pos_;
    }
    int64_t s =
        negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return pool_.constant(s);
  }

  ExprId parseArgs(ExprOp op) {
    if (!eat("("))
      return error(std::string("expected '(' after ") + exprOpName(op));
    ExprId a = parseBinary(0);
    if (!err_.empty())
      return 0;
    if (!eat(","))
      return error("expected ','");
    ExprId b = parseBinary(0);
    if (!err_.empty())
      return 0;
    if (op == ExprOp::Select) {
      if (!eat(","))
        return error("expected ',' (select takes 3 arguments)");
      ExprId c = parseBinary(0);
      if (!err_.empty())
        return 0;
      if (!eat(")"))
        return error("expected ')'");
      return pool_.select(a, b, c);
    }
    if (!eat(")"))
      return error("expected ')'");
    return pool_.binary(op, a, b);
  }

  ExprId parsePrimary() {
    skipSpace();
    if (pos_ >= text_.size())
      return error("unexpected end of expression");
    char ch = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(ch)))
      return parseNumber(false);
    if (ch == '(') {
      ++pos_;
      ExprId e = parseBinary(0);
      if (!err_.empty())
        return 0;
      if (!eat(")"))
        return error("expected ')'");
      return e;
    }
    if (!(std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'))
      return error("expected a number, variable, parameter or '('; found '" +
                   std::string(1, ch) + "'");
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_'))
      ++pos_;
    std::string_view id = text_.substr(start, pos_ - start);
    for (int v = 0; v < kNumExprVars; ++v)
      if (id == exprVarName(static_cast<ExprVar>(v)))
        return pool_.var(static_cast<ExprVar>(v));
    if (id == "min")
      return parseArgs(ExprOp::Min);
    if (id == "max")
      return parseArgs(ExprOp::Max);
    if (id == "select")
      return parseArgs(ExprOp::Select);
    if (id.size() > 3 && id.substr(0, 3) == "tbl") {
      uint32_t k = 0;
      bool digits = id.size() <= 9;
      for (char c : id.substr(3))
        if (!std::isdigit(static_cast<unsigned char>(c)))
          digits = false;
        else
          k = k * 10 + static_cast<uint32_t>(c - '0');
      if (digits) {
        if (!eat("["))
          return error("expected '[' after " + std::string(id));
        ExprId e = parseBinary(0);
        if (!err_.empty())
          return 0;
        if (!eat("]"))
          return error("expected ']'");
        return pool_.table(k, e);
      }
    }
    for (size_t i = 0; i < names_.size(); ++i)
      if (id == names_[i])
        return pool_.param(static_cast<uint32_t>(i));
    pos_ = start;
    std::string known = "r, p, n, s, t";
    for (auto &nm : names_)
      known += ", " + nm;
    return error("unknown name '" + std::string(id) + "' (known: " + known +
                 ")");
  }

  static constexpr int kMaxDepth = 200;
  ExprPool &pool_;
  std::string_view text_;
  const std::vector<std::string> &names_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string err_;
};

} // namespace

std::string ExprPool::print(ExprId id,
                            const std::vector<std::string> &names) const {
  std::string out;
  printNode(*this, id, names, out);
  return out;
}

Result<ExprId> ExprPool::parse(std::string_view text,
                               const std::vector<std::string> &names) {
  return Parser(*this, text, names).run();
}

} // namespace hccl::sched
