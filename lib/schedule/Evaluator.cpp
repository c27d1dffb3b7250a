//===- Evaluator.cpp - Fast per-step evaluation of programs ---------------===//
//
// Each phase's expression nodes are gathered once (children have smaller
// ids, so ascending id order is a valid evaluation order); constants, params,
// p and n are folded at construction. A step then costs one pass over the
// phase's distinct nodes plus, per op instance, the nodes that read t.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Program.h"

#include <algorithm>

namespace hccl::sched {

ProgramEvaluator::ProgramEvaluator(const Program &prog)
    : prog_(prog), params_(prog.paramValues()) {
  const auto &nodes = prog.pool.nodes();
  const size_t N = nodes.size();
  val_.assign(N, 0);
  err_.assign(N, EvalError::None);
  std::vector<uint8_t> usesT(N, 0), fixed(N, 0);
  auto childOk = [&](ExprId c, size_t id) { return c < id; };
  for (size_t id = 0; id < N; ++id) {
    const ExprNode &nd = nodes[id];
    int k = exprOpArity(nd.op);
    ExprId kids[3] = {nd.a, nd.b, nd.c};
    bool allFixed = true;
    for (int i = 0; i < k; ++i) {
      if (!childOk(kids[i], id)) { // malformed: poison it
        err_[id] = EvalError::BadNode;
        fixed[id] = 1;
        allFixed = false;
        break;
      }
      usesT[id] |= usesT[kids[i]];
      allFixed &= fixed[kids[i]] != 0;
    }
    if (err_[id] != EvalError::None)
      continue;
    switch (nd.op) {
    case ExprOp::Const:
      val_[id] = nd.imm;
      fixed[id] = 1;
      break;
    case ExprOp::Param:
      if (nd.imm >= 0 && static_cast<size_t>(nd.imm) < params_.size())
        val_[id] = params_[nd.imm];
      else
        err_[id] = EvalError::BadParam;
      fixed[id] = 1;
      break;
    case ExprOp::Var: {
      auto v = static_cast<ExprVar>(nd.imm);
      if (v == ExprVar::P || v == ExprVar::N) {
        val_[id] = v == ExprVar::P ? prog.p : prog.n;
        fixed[id] = 1;
      } else if (v == ExprVar::T) {
        usesT[id] = 1;
      } else if (v != ExprVar::R && v != ExprVar::S) {
        err_[id] = EvalError::BadNode;
        fixed[id] = 1;
      }
      break;
    }
    default:
      if (allFixed) {
        fixed[id] = 1;
        r_ = s_ = t_ = 0;
        std::vector<ExprId> one{static_cast<ExprId>(id)};
        evalList(one);
      }
      break;
    }
  }
  // Per phase: the non-fixed nodes its op fields reach. A node without t
  // is listed once per phase; t-nodes once per op that reaches them.
  std::vector<uint32_t> phaseSeen(N, 0);
  std::vector<uint64_t> opSeen(N, 0);
  uint64_t opTag = 0;
  plans_.resize(prog.phases.size());
  for (size_t ph = 0; ph < prog.phases.size(); ++ph) {
    PhasePlan &plan = plans_[ph];
    const Phase &phase = prog.phases[ph];
    const uint32_t phTag = static_cast<uint32_t>(ph + 1);
    plan.ops.resize(phase.ops.size());
    for (size_t oi = 0; oi < phase.ops.size(); ++oi) {
      const Op &op = phase.ops[oi];
      ++opTag;
      std::vector<ExprId> stack, tList;
      for (ExprId f : {op.when, op.repeat, op.peer, op.dst.off, op.src.off,
                       op.count, op.srcStride, op.srcN})
        if (f < N)
          stack.push_back(f);
      while (!stack.empty()) {
        ExprId id = stack.back();
        stack.pop_back();
        if (fixed[id] || opSeen[id] == opTag)
          continue;
        opSeen[id] = opTag;
        if (usesT[id]) {
          tList.push_back(id);
        } else {
          if (phaseSeen[id] == phTag)
            continue; // its subtree is listed already
          phaseSeen[id] = phTag;
          plan.nodes.push_back(id);
        }
        const ExprNode &nd = nodes[id];
        int k = exprOpArity(nd.op);
        ExprId kids[3] = {nd.a, nd.b, nd.c};
        for (int i = 0; i < k; ++i)
          stack.push_back(kids[i]);
      }
      std::sort(tList.begin(), tList.end());
      plan.ops[oi].whenReadsT =
          op.when < N &&
          std::binary_search(tList.begin(), tList.end(), op.when);
      plan.ops[oi].tNodes = std::move(tList);
    }
    std::sort(plan.nodes.begin(), plan.nodes.end());
  }
}

void ProgramEvaluator::evalList(const std::vector<ExprId> &ids) {
  const ExprNode *nodes = prog_.pool.nodes().data();
  int64_t *val = val_.data();
  EvalError *err = err_.data();
  for (ExprId id : ids) {
    const ExprNode &nd = nodes[id];
    switch (nd.op) {
    case ExprOp::Var:
      val[id] = nd.imm == static_cast<int64_t>(ExprVar::R)   ? r_
                : nd.imm == static_cast<int64_t>(ExprVar::S) ? s_
                                                             : t_;
      break;
    case ExprOp::Table: {
      if ((err[id] = err[nd.a]) != EvalError::None)
        break;
      const auto &tables = prog_.tables;
      int64_t e = val[nd.a];
      if (nd.imm < 0 || static_cast<size_t>(nd.imm) >= tables.size() || e < 0 ||
          static_cast<size_t>(e) >= tables[nd.imm].size()) {
        err[id] = EvalError::TableIndex;
        break;
      }
      val[id] = tables[nd.imm][e];
      break;
    }
    case ExprOp::Select:
      if ((err[id] = err[nd.a]) != EvalError::None)
        break;
      {
        ExprId pick = val[nd.a] ? nd.b : nd.c;
        err[id] = err[pick];
        val[id] = val[pick];
      }
      break;
    case ExprOp::Const:
    case ExprOp::Param:
      break;
    default:
      if ((err[id] = err[nd.a]) != EvalError::None)
        break;
      if ((err[id] = err[nd.b]) != EvalError::None)
        break;
      err[id] = applyBinary(nd.op, val[nd.a], val[nd.b], val[id]);
      break;
    }
  }
}

Status ProgramEvaluator::expandStep(int64_t rank, uint32_t phase, int64_t s,
                                    std::vector<ConcreteOp> &out,
                                    int64_t *budget) {
  const Phase &ph = prog_.phases[phase];
  const PhasePlan &plan = plans_[phase];
  int64_t stepBudget = kMaxExpandedSize;
  int64_t &left = budget ? *budget : stepBudget;
  auto tooLarge = [&]() {
    left = -1;
    return Status::error(
        "rank " + std::to_string(rank) + ", phase " + std::to_string(phase) +
        " '" + ph.name + "' step " + std::to_string(s) + ": " +
        expandedSizeError(budget ? "steps plus op instances for one rank"
                                 : "op instances in one step"));
  };
  if (left < 1)
    return tooLarge();
  --left;
  r_ = rank;
  s_ = s;
  t_ = 0;
  evalList(plan.nodes);
  const int64_t p = prog_.p;
  for (uint32_t oi = 0; oi < ph.ops.size(); ++oi) {
    const Op &op = ph.ops[oi];
    const std::vector<ExprId> &tNodes = plan.ops[oi].tNodes;
    auto fail = [&](const std::string &what) {
      return Status::error("rank " + std::to_string(rank) + ", phase " +
                           std::to_string(phase) + " '" + ph.name + "' step " +
                           std::to_string(s) + ", op " + std::to_string(oi) +
                           " (" + opKindName(op.kind) +
                           ", t=" + std::to_string(t_) + "): " + what);
    };
    const char *bad = nullptr;
    EvalError badErr = EvalError::None;
    auto get = [&](ExprId id, const char *name) -> int64_t {
      if (err_[id] != EvalError::None && !bad) {
        bad = name;
        badErr = err_[id];
      }
      return val_[id];
    };
    t_ = 0;
    if (!tNodes.empty())
      evalList(tNodes);
    int64_t repeat = 1;
    if (op.repeat != kNoExpr) {
      repeat = get(op.repeat, "repeat");
      if (bad)
        return fail(std::string(bad) + ": " + evalErrorName(badErr));
      if (repeat < 0 || repeat > kMaxRepeat)
        return fail("repeat evaluates to " + std::to_string(repeat));
    }
    // A `when` that does not read t is false for every instance or none: a
    // rooted op (the root's p-1 sends) costs the other ranks one test.
    if (repeat > 0 && op.when != kNoExpr && !plan.ops[oi].whenReadsT) {
      int64_t w = get(op.when, "when");
      if (bad)
        return fail(std::string(bad) + ": " + evalErrorName(badErr));
      if (!w)
        repeat = 0;
    }
    // Charged before the instances run: evaluating them costs time even
    // where a `when` that reads t drops them.
    if (std::max<int64_t>(repeat, 1) > left)
      return tooLarge();
    left -= std::max<int64_t>(repeat, 1);
    for (int64_t t = 0; t < repeat; ++t) {
      if (t > 0 && !tNodes.empty()) {
        t_ = t;
        evalList(tNodes);
      }
      t_ = t;
      if (op.when != kNoExpr) {
        int64_t w = get(op.when, "when");
        if (bad)
          return fail(std::string(bad) + ": " + evalErrorName(badErr));
        if (!w)
          continue;
      }
      ConcreteOp c;
      c.kind = op.kind;
      c.opIndex = oi;
      c.t = t;
      c.dstBuf = op.dst.buf;
      c.srcBuf = op.src.buf;
      if (opHasPeer(op.kind))
        c.peer = get(op.peer, "peer");
      if (opHasDst(op.kind))
        c.dstOff = get(op.dst.off, "dst offset");
      if (opHasSrc(op.kind))
        c.srcOff = get(op.src.off, "src offset");
      c.count = get(op.count, "count");
      if (op.kind == OpKind::Reduce) {
        c.srcStride = get(op.srcStride, "srcStride");
        c.srcN = get(op.srcN, "srcN");
      }
      if (bad)
        return fail(std::string(bad) + ": " + evalErrorName(badErr));
      if (opHasPeer(op.kind) && (c.peer < 0 || c.peer >= p || c.peer == rank))
        return fail("peer " + std::to_string(c.peer) +
                    (c.peer == rank ? " is the rank itself"
                                    : " outside 0.." + std::to_string(p - 1)));
      if (c.count < 0)
        return fail("negative count " + std::to_string(c.count));
      if (c.dstOff < 0 || c.srcOff < 0)
        return fail(std::string(c.dstOff < 0 ? "dst" : "src") + " offset " +
                    std::to_string(c.dstOff < 0 ? c.dstOff : c.srcOff) +
                    " is negative");
      if (op.kind == OpKind::Reduce && (c.srcN < 1 || c.srcStride < 0))
        return fail("reduce needs srcN >= 1 and srcStride >= 0, found srcN=" +
                    std::to_string(c.srcN) +
                    " srcStride=" + std::to_string(c.srcStride));
      out.push_back(c);
    }
  }
  return Status::ok();
}

} // namespace hccl::sched
