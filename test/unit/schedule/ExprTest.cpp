//===- ExprTest.cpp - Expression pool, evaluation, print/parse ------------===//
#include "hccl-mlir/schedule/Expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace hccl::sched;

namespace {

// Independent references for the floor / Euclidean semantics.
int64_t refFloorDiv(int64_t x, int64_t y) {
  return static_cast<int64_t>(
      std::floor(static_cast<long double>(x) / static_cast<long double>(y)));
}
int64_t refEuclidMod(int64_t x, int64_t y) {
  int64_t a = y < 0 ? -y : y;
  int64_t m = x - refFloorDiv(x, a) * a;
  return m;
}

int64_t evalOk(const ExprPool &pool, ExprId id, const EvalEnv &env) {
  int64_t v = 0;
  EvalError e = pool.evaluate(id, env, v);
  EXPECT_EQ(e, EvalError::None) << pool.print(id);
  return v;
}

TEST(Expr, HashConsingSharesIdenticalNodes) {
  ExprPool pool;
  E r(&pool, pool.var(ExprVar::R)), p(&pool, pool.var(ExprVar::P));
  E a = (r + 1) % p;
  E b = (r + 1) % p;
  EXPECT_EQ(a.id(), b.id());
  size_t before = pool.size();
  EXPECT_EQ(((r + 1) % p).id(), a.id());
  EXPECT_EQ(pool.size(), before) << "rebuilding must not add nodes";
  EXPECT_NE(((r + 2) % p).id(), a.id());
}

TEST(Expr, ConstantFoldingAndIdentities) {
  ExprPool pool;
  E r(&pool, pool.var(ExprVar::R));
  E two = r.c(2), three = r.c(3);
  int64_t v = 0;
  EXPECT_TRUE((two + three).isConstant(&v));
  EXPECT_EQ(v, 5);
  EXPECT_TRUE((r.c(-7) % 3).isConstant(&v));
  EXPECT_EQ(v, 2); // Euclidean
  EXPECT_TRUE((r.c(-7) / 2).isConstant(&v));
  EXPECT_EQ(v, -4); // floor
  EXPECT_EQ((r + 0).id(), r.id());
  EXPECT_EQ((r * 1).id(), r.id());
  EXPECT_TRUE((r * 0).isConstant(&v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE((r % 1).isConstant(&v));
  EXPECT_EQ(v, 0);
  EXPECT_EQ((r / 1).id(), r.id());
  EXPECT_EQ(select(r.c(1), r, two).id(), r.id());
  EXPECT_EQ(select(r.c(0), r, two).id(), two.id());
  EXPECT_EQ(min(r, r).id(), r.id());
  // Failing constant operations stay in the tree and fail when evaluated.
  E bad = r.c(5) / 0;
  EXPECT_FALSE(bad.isConstant());
  int64_t out = 0;
  EXPECT_EQ(pool.evaluate(bad.id(), EvalEnv{}, out), EvalError::DivisionByZero);
}

TEST(Expr, FloorDivisionAndEuclideanModAgreeWithReference) {
  ExprPool pool;
  E r(&pool, pool.var(ExprVar::R)), n(&pool, pool.var(ExprVar::N));
  ExprId div = (r / n).id(), mod = (r % n).id();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(-100000, 100000);
  for (int i = 0; i < 20000; ++i) {
    EvalEnv env;
    env.r = dist(rng);
    env.n = dist(rng);
    if (env.n == 0)
      continue;
    int64_t q = 0, m = 0;
    ASSERT_EQ(pool.evaluate(div, env, q), EvalError::None);
    ASSERT_EQ(pool.evaluate(mod, env, m), EvalError::None);
    EXPECT_EQ(q, refFloorDiv(env.r, env.n)) << env.r << " / " << env.n;
    EXPECT_EQ(m, refEuclidMod(env.r, env.n)) << env.r << " % " << env.n;
    EXPECT_GE(m, 0);
    EXPECT_LT(m, std::llabs(env.n));
  }
}

TEST(Expr, EvaluationErrorsAreReportedNotUndefined) {
  ExprPool pool;
  E r(&pool, pool.var(ExprVar::R)), n(&pool, pool.var(ExprVar::N));
  EvalEnv env;
  env.r = INT64_MAX;
  env.n = 0;
  int64_t out = 42;
  EXPECT_EQ(pool.evaluate((r / n).id(), env, out), EvalError::DivisionByZero);
  EXPECT_EQ(pool.evaluate((r % n).id(), env, out), EvalError::DivisionByZero);
  EXPECT_EQ(pool.evaluate((r + 1).id(), env, out), EvalError::Overflow);
  EXPECT_EQ(pool.evaluate((r * 2).id(), env, out), EvalError::Overflow);
  env.r = INT64_MIN;
  env.n = -1;
  EXPECT_EQ(pool.evaluate((r / n).id(), env, out), EvalError::Overflow);
  EXPECT_EQ(evalOk(pool, (r % n).id(), env), 0);
  env.r = 1;
  env.n = 63;
  EXPECT_EQ(pool.evaluate((r << n).id(), env, out), EvalError::BadShift);
  env.n = -1;
  EXPECT_EQ(pool.evaluate((r >> n).id(), env, out), EvalError::BadShift);
  env.r = int64_t(1) << 62;
  env.n = 1;
  EXPECT_EQ(pool.evaluate((r << n).id(), env, out), EvalError::Overflow);
  EXPECT_EQ(out, 42) << "failed evaluation must not write the result";
  // Tables and params out of range.
  E t(&pool, pool.table(0, r.id()));
  EXPECT_EQ(pool.evaluate(t.id(), env, out), EvalError::TableIndex);
  std::vector<std::vector<int64_t>> tables = {{10, 20, 30}};
  env.tables = &tables;
  env.r = 2;
  EXPECT_EQ(evalOk(pool, t.id(), env), 30);
  env.r = 3;
  EXPECT_EQ(pool.evaluate(t.id(), env, out), EvalError::TableIndex);
  E prm(&pool, pool.param(1));
  int64_t one = 5;
  env.params = &one;
  env.numParams = 1;
  EXPECT_EQ(pool.evaluate(prm.id(), env, out), EvalError::BadParam);
  // select only evaluates the chosen branch.
  env.n = 0;
  env.r = 1;
  E guarded = select(eq(n, 0), r.c(0), r / n);
  EXPECT_EQ(evalOk(pool, guarded.id(), env), 0);
}

TEST(Expr, PrintsCompactInfix) {
  ExprPool pool;
  E r(&pool, pool.var(ExprVar::R)), p(&pool, pool.var(ExprVar::P)),
      n(&pool, pool.var(ExprVar::N)), m(&pool, pool.param(0));
  std::vector<std::string> names = {"m"};
  EXPECT_EQ(((r + 1) % p).str(), "(r + 1) % p");
  EXPECT_EQ((r * (n / p) + min(r, n % p)).str(), "r * (n / p) + min(r, n % p)");
  EXPECT_EQ((r - (p - 1)).str(), "r - (p - 1)");
  EXPECT_EQ(((r - p) - 1).str(), "r - p - 1");
  EXPECT_EQ((r / m * m).str(names), "r / m * m");
  EXPECT_EQ(select(r < 2, r.c(-3), r & 1).str(), "select(r < 2, -3, r & 1)");
  E tb(&pool, pool.table(2, (r * p + 1).id()));
  EXPECT_EQ(tb.str(), "tbl2[r * p + 1]");
  EXPECT_EQ(((r < 4) & eq(r % 2, 0)).str(), "r < 4 & r % 2 == 0");
}

// Random trees over every operator: print, parse into a fresh pool, and
// compare values (or errors) on random environments.
ExprId randomExpr(ExprPool &pool, std::mt19937_64 &rng, int depth) {
  std::uniform_int_distribution<int> leaf(0, 8);
  if (depth == 0 || rng() % 4 == 0) {
    switch (leaf(rng)) {
    case 0:
      return pool.var(ExprVar::R);
    case 1:
      return pool.var(ExprVar::P);
    case 2:
      return pool.var(ExprVar::N);
    case 3:
      return pool.var(ExprVar::S);
    case 4:
      return pool.var(ExprVar::T);
    case 5:
      return pool.param(0);
    case 6:
      return pool.param(1);
    case 7:
      return pool.table(
          0, pool.binary(ExprOp::Mod, pool.var(ExprVar::R), pool.constant(4)));
    default:
      return pool.constant(static_cast<int64_t>(rng() % 21) - 10);
    }
  }
  int op = static_cast<int>(rng() % 19);
  ExprId a = randomExpr(pool, rng, depth - 1);
  ExprId b = randomExpr(pool, rng, depth - 1);
  if (op == 18)
    return pool.select(a, b, randomExpr(pool, rng, depth - 1));
  static const ExprOp ops[] = {
      ExprOp::Add, ExprOp::Sub, ExprOp::Mul, ExprOp::Div, ExprOp::Mod,
      ExprOp::Xor, ExprOp::And, ExprOp::Or,  ExprOp::Shl, ExprOp::Shr,
      ExprOp::Eq,  ExprOp::Ne,  ExprOp::Lt,  ExprOp::Le,  ExprOp::Gt,
      ExprOp::Ge,  ExprOp::Min, ExprOp::Max};
  return pool.binary(ops[op], a, b);
}

TEST(Expr, PrintParseRoundTripPreservesValues) {
  std::mt19937_64 rng(11);
  std::vector<std::string> names = {"m", "root"};
  int64_t params[2] = {4, 3};
  std::vector<std::vector<int64_t>> tables = {{7, -2, 0, 9}};
  for (int i = 0; i < 3000; ++i) {
    ExprPool a;
    ExprId e = randomExpr(a, rng, 5);
    std::string text = a.print(e, names);
    ExprPool b;
    auto parsed = b.parse(text, names);
    ASSERT_TRUE(parsed.isOk()) << text << ": " << parsed.message();
    EXPECT_EQ(b.print(*parsed, names), text);
    for (int k = 0; k < 5; ++k) {
      EvalEnv env;
      env.r = static_cast<int64_t>(rng() % 64) - 8;
      env.p = 1 + static_cast<int64_t>(rng() % 40);
      env.n = static_cast<int64_t>(rng() % 1000);
      env.s = static_cast<int64_t>(rng() % 10);
      env.t = static_cast<int64_t>(rng() % 10);
      env.params = params;
      env.numParams = 2;
      env.tables = &tables;
      int64_t va = 0, vb = 0;
      EvalError ea = a.evaluate(e, env, va), eb = b.evaluate(*parsed, env, vb);
      ASSERT_EQ(ea, eb) << text;
      if (ea == EvalError::None) {
        ASSERT_EQ(va, vb) << text;
      }
    }
  }
}

TEST(Expr, ParseErrorsNameTheColumn) {
  ExprPool pool;
  std::vector<std::string> names = {"m"};
  struct Case {
    const char *text;
    const char *expect;
  } cases[] = {
      {"r +", "column 4: unexpected end of expression"},
      {"r + q", "column 5: unknown name 'q' (known: r, p, n, s, t, m)"},
      {"min(r)", "column 6: expected ','"},
      {"select(r, 1)", "column 12: expected ','"},
      {"(r + 1", "column 7: expected ')'"},
      {"r $ 2", "column 3: unexpected '$'"},
      {"tbl0[r", "column 7: expected ']'"},
      {"99999999999999999999", "column 1: integer literal out of 64-bit range"},
      {"", "column 1: unexpected end of expression"},
      {"r + * 2", "column 5: expected a number, variable, parameter or '('"},
  };
  for (const Case &c : cases) {
    auto r = pool.parse(c.text, names);
    ASSERT_FALSE(r.isOk()) << c.text;
    EXPECT_NE(r.message().find(c.expect), std::string::npos)
        << c.text << " -> " << r.message();
  }
  std::string deep(300, '(');
  deep += "r" + std::string(300, ')');
  auto r = pool.parse(deep, names);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("nested too deeply"), std::string::npos);
  std::string minus(300, '-');
  minus += "r";
  EXPECT_FALSE(pool.parse(minus, names).isOk());
  // Extremes that must parse.
  auto lo = pool.parse("-9223372036854775808", names);
  ASSERT_TRUE(lo.isOk());
  int64_t v;
  EXPECT_TRUE(pool.isConstant(*lo, &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_TRUE(pool.parse("  ( r )  ", names).isOk());
}

TEST(Expr, NodesAreWalkable) {
  ExprPool pool;
  E r(&pool, pool.var(ExprVar::R)), p(&pool, pool.var(ExprVar::P));
  E e = select(r < p, (r + 3) % p, r.c(0));
  const ExprNode &top = pool.node(e.id());
  ASSERT_EQ(top.op, ExprOp::Select);
  EXPECT_EQ(exprOpArity(top.op), 3);
  EXPECT_EQ(pool.node(top.a).op, ExprOp::Lt);
  EXPECT_EQ(pool.node(top.b).op, ExprOp::Mod);
  EXPECT_EQ(pool.node(top.c).imm, 0);
  // Children always precede their parent.
  for (size_t id = 0; id < pool.size(); ++id) {
    const ExprNode &nd = pool.node(static_cast<ExprId>(id));
    ExprId kids[3] = {nd.a, nd.b, nd.c};
    for (int k = 0; k < exprOpArity(nd.op); ++k)
      EXPECT_LT(kids[k], id);
  }
  // make() rebuilds any node from its fields.
  ExprPool other;
  ExprId x = other.make(ExprNode{ExprOp::Var, 0});
  ExprId y = other.make(ExprNode{ExprOp::Const, 7});
  ExprId z = other.make(ExprNode{ExprOp::Add, 0, x, y});
  EXPECT_EQ(other.print(z), "r + 7");
  EXPECT_TRUE(other.uses(z, ExprVar::R));
  EXPECT_FALSE(other.uses(z, ExprVar::T));
}

} // namespace
