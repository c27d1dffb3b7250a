//===- Program.cpp - Program validation, expansion and building -----------===//
#include "hccl-mlir/schedule/Program.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>
#include <tuple>

namespace hccl::sched {
namespace {

const char *const kBufferNames[kNumBuffers] = {"input", "output", "scratch"};
const char *const kOpKindNames[kNumOpKinds] = {"send", "recv", "recv_reduce",
                                               "copy", "reduce"};

bool validIdentifier(const std::string &s) {
  if (s.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  static const char *const reserved[] = {"r", "p",   "n",   "s",
                                         "t", "min", "max", "select"};
  for (const char *r : reserved)
    if (s == r)
      return false;
  if (s.size() > 3 && s.compare(0, 3, "tbl") == 0) {
    bool digits = true;
    for (size_t i = 3; i < s.size(); ++i)
      digits &= std::isdigit(static_cast<unsigned char>(s[i])) != 0;
    if (digits)
      return false;
  }
  return true;
}

std::string phaseWhere(const Program &prog, uint32_t phase) {
  return "phase " + std::to_string(phase) + " '" + prog.phases[phase].name +
         "'";
}

} // namespace

bool isValidParamName(const std::string &name) { return validIdentifier(name); }

const char *bufferName(BufferId b) {
  int i = static_cast<int>(b);
  return i >= 0 && i < kNumBuffers ? kBufferNames[i] : "invalid";
}

std::optional<BufferId> parseBufferId(std::string_view s) {
  for (int i = 0; i < kNumBuffers; ++i)
    if (s == kBufferNames[i])
      return static_cast<BufferId>(i);
  return std::nullopt;
}

const char *opKindName(OpKind k) {
  int i = static_cast<int>(k);
  return i >= 0 && i < kNumOpKinds ? kOpKindNames[i] : "invalid";
}

std::optional<OpKind> parseOpKind(std::string_view s) {
  for (int i = 0; i < kNumOpKinds; ++i)
    if (s == kOpKindNames[i])
      return static_cast<OpKind>(i);
  return std::nullopt;
}

std::vector<std::string> Program::paramNames() const {
  std::vector<std::string> out;
  out.reserve(params.size());
  for (const Param &pr : params)
    out.push_back(pr.name);
  return out;
}

std::vector<int64_t> Program::paramValues() const {
  std::vector<int64_t> out;
  out.reserve(params.size());
  for (const Param &pr : params)
    out.push_back(pr.value);
  return out;
}

EvalEnv Program::env(int64_t r, const int64_t *values) const {
  EvalEnv e;
  e.r = r;
  e.p = p;
  e.n = n;
  e.params = values;
  e.numParams = params.size();
  e.tables = &tables;
  return e;
}

Status checkBlockLayout(Collective c, int64_t n, int64_t inputOuter,
                        int64_t outputOuter) {
  bool inBlocks = c == Collective::ReduceScatter || c == Collective::AllToAll;
  bool outBlocks = c == Collective::AllGather || c == Collective::AllToAll;
  for (auto [outer, side, blocks] :
       {std::tuple{inputOuter, "input", inBlocks},
        std::tuple{outputOuter, "output", outBlocks}}) {
    if (outer == 1)
      continue;
    if (outer < 1)
      return Status::error(std::string(side) + "_outer must be >= 1, found " +
                           std::to_string(outer));
    if (!blocks)
      return Status::error(std::string(side) + "_outer " +
                           std::to_string(outer) + ": the " + side + " of " +
                           collectiveName(c) +
                           " is not made of blocks, its layout is fixed");
    if (n % outer != 0)
      return Status::error(std::string(side) + "_outer " +
                           std::to_string(outer) + " does not divide count " +
                           std::to_string(n));
  }
  // All-to-all moves pieces of the finer side's rows, which must lie
  // inside the coarser side's (true of any tensor split and concatenated
  // along two dimensions).
  int64_t fine = std::max(inputOuter, outputOuter),
          coarse = std::min(inputOuter, outputOuter);
  if (n > 0 && (n / coarse) % (n / fine) != 0)
    return Status::error(
        "input_outer " + std::to_string(inputOuter) + " and output_outer " +
        std::to_string(outputOuter) + ": rows of " + std::to_string(n / fine) +
        " elements do not tile rows of " + std::to_string(n / coarse));
  return Status::ok();
}

Status Program::validate() const {
  if (p < 1)
    return Status::error("program: p must be >= 1, found " + std::to_string(p));
  if (n < 0)
    return Status::error("program: n must be >= 0, found " + std::to_string(n));
  if (slices < 1)
    return Status::error("program: slices must be >= 1, found " +
                         std::to_string(slices));
  if (root < 0 || root >= p)
    return Status::error("program: root " + std::to_string(root) +
                         " outside 0.." + std::to_string(p - 1));
  if (Status s = checkBlockLayout(collective, n, inputOuter, outputOuter); !s)
    return Status::error("program: " + s.message());
  for (size_t i = 0; i < params.size(); ++i) {
    if (!validIdentifier(params[i].name))
      return Status::error("program: parameter name '" + params[i].name +
                           "' is not an identifier or is reserved");
    for (size_t j = 0; j < i; ++j)
      if (params[j].name == params[i].name)
        return Status::error("program: parameter '" + params[i].name +
                             "' defined twice");
  }
  // Nodes must only point backwards: this keeps evaluation finite.
  const auto &nodes = pool.nodes();
  for (size_t id = 0; id < nodes.size(); ++id) {
    const ExprNode &nd = nodes[id];
    int k = exprOpArity(nd.op);
    ExprId kids[3] = {nd.a, nd.b, nd.c};
    for (int c = 0; c < k; ++c)
      if (kids[c] >= id)
        return Status::error("program: expression node " + std::to_string(id) +
                             " has a child that is not an earlier node");
    if (nd.op == ExprOp::Var && (nd.imm < 0 || nd.imm >= kNumExprVars))
      return Status::error("program: expression node " + std::to_string(id) +
                           " names an unknown variable");
    if (nd.op == ExprOp::Param &&
        (nd.imm < 0 || static_cast<size_t>(nd.imm) >= params.size()))
      return Status::error("program: expression node " + std::to_string(id) +
                           " reads parameter " + std::to_string(nd.imm) +
                           " of " + std::to_string(params.size()));
    if (nd.op == ExprOp::Table &&
        (nd.imm < 0 || static_cast<size_t>(nd.imm) >= tables.size()))
      return Status::error("program: expression node " + std::to_string(id) +
                           " reads table " + std::to_string(nd.imm) + " of " +
                           std::to_string(tables.size()));
  }
  auto inRange = [&](ExprId id) { return id < nodes.size(); };
  for (int b = 0; b < kNumBuffers; ++b) {
    ExprId id = bufferSize[b];
    std::string where = std::string("program: ") +
                        bufferName(static_cast<BufferId>(b)) + " size";
    if (!inRange(id))
      return Status::error(where + ": missing");
    if (pool.uses(id, ExprVar::S) || pool.uses(id, ExprVar::T))
      return Status::error(where + ": may not depend on s or t");
  }
  for (uint32_t ph = 0; ph < phases.size(); ++ph) {
    const Phase &phase = phases[ph];
    std::string where = "program: " + phaseWhere(*this, ph);
    if (!inRange(phase.steps))
      return Status::error(where + ": steps missing");
    for (ExprVar v : {ExprVar::R, ExprVar::S, ExprVar::T})
      if (pool.uses(phase.steps, v))
        return Status::error(where + ": steps may not depend on " +
                             exprVarName(v) +
                             " (every rank runs the same steps)");
    for (size_t oi = 0; oi < phase.ops.size(); ++oi) {
      const Op &op = phase.ops[oi];
      std::string ow = where + " op " + std::to_string(oi) + " (" +
                       opKindName(op.kind) + ")";
      if (static_cast<int>(op.kind) >= kNumOpKinds)
        return Status::error(ow + ": unknown kind");
      auto need = [&](bool wanted, ExprId id, const char *field) -> Status {
        if (wanted && !inRange(id))
          return Status::error(ow + ": " + field + " missing");
        if (!wanted && id != kNoExpr)
          return Status::error(ow + ": " + field + " not allowed for " +
                               opKindName(op.kind));
        return Status::ok();
      };
      bool reduce = op.kind == OpKind::Reduce;
      for (Status s : {need(opHasPeer(op.kind), op.peer, "peer"),
                       need(opHasDst(op.kind), op.dst.off, "dst offset"),
                       need(opHasSrc(op.kind), op.src.off, "src offset"),
                       need(true, op.count, "count"),
                       need(reduce, op.srcStride, "srcStride"),
                       need(reduce, op.srcN, "srcN")})
        if (!s)
          return s;
      if (op.when != kNoExpr && !inRange(op.when))
        return Status::error(ow + ": when refers to a missing node");
      if (op.repeat != kNoExpr && !inRange(op.repeat))
        return Status::error(ow + ": repeat refers to a missing node");
      if (op.repeat != kNoExpr && pool.uses(op.repeat, ExprVar::T))
        return Status::error(ow + ": repeat may not depend on t");
      if (opHasDst(op.kind) && static_cast<int>(op.dst.buf) >= kNumBuffers)
        return Status::error(ow + ": unknown dst buffer");
      if (opHasSrc(op.kind) && static_cast<int>(op.src.buf) >= kNumBuffers)
        return Status::error(ow + ": unknown src buffer");
      if (opHasDst(op.kind) && op.dst.buf == BufferId::Input)
        return Status::error(ow + ": writes the input buffer (rule 3)");
    }
  }
  return Status::ok();
}

Result<std::vector<int64_t>> Program::phaseSteps() const {
  std::vector<int64_t> vals = paramValues();
  EvalEnv e = env(0, vals.data());
  std::vector<int64_t> out;
  for (uint32_t ph = 0; ph < phases.size(); ++ph) {
    int64_t v = 0;
    EvalError err = pool.evaluate(phases[ph].steps, e, v);
    if (err != EvalError::None)
      return Result<std::vector<int64_t>>::error(
          phaseWhere(*this, ph) + ": steps: " + evalErrorName(err));
    if (v < 0 || v > kMaxRepeat)
      return Result<std::vector<int64_t>>::error(
          phaseWhere(*this, ph) + ": steps evaluates to " + std::to_string(v) +
          " (expected 0.." + std::to_string(kMaxRepeat) + ")");
    out.push_back(v);
  }
  return out;
}

Result<int64_t> Program::numSteps() const {
  auto steps = phaseSteps();
  if (!steps)
    return Result<int64_t>(steps.status());
  int64_t total = 0;
  for (int64_t s : *steps)
    total += s;
  return total;
}

std::string expandedSizeError(const std::string &what) {
  return "expands to more than " + std::to_string(kMaxExpandedSize) + " " +
         what +
         " (kMaxExpandedSize, the limit of one rank's expansion; "
         "docs/step-programs.md \"Limits\")";
}

Status expandStep(const Program &prog, const int64_t *, int64_t rank,
                  uint32_t phase, int64_t s, std::vector<ConcreteOp> &out) {
  ProgramEvaluator ev(prog);
  return ev.expandStep(rank, phase, s, out);
}

Status evalBufferSizes(const Program &prog, const int64_t *values, int64_t rank,
                       std::array<int64_t, kNumBuffers> &out) {
  EvalEnv env = prog.env(rank, values);
  for (int b = 0; b < kNumBuffers; ++b) {
    EvalError err = prog.pool.evaluate(prog.bufferSize[b], env, out[b]);
    std::string where = "rank " + std::to_string(rank) + ": " +
                        bufferName(static_cast<BufferId>(b)) + " size: ";
    if (err != EvalError::None)
      return Status::error(where + evalErrorName(err));
    if (out[b] < 0)
      return Status::error(where + "negative (" + std::to_string(out[b]) + ")");
  }
  return Status::ok();
}

ConcreteOp sliceOp(const ConcreteOp &op, int64_t k, int64_t i) {
  ConcreteOp c = op;
  int64_t off = blockOffset(op.count, k, i);
  c.count = blockCount(op.count, k, i);
  c.dstOff += off;
  c.srcOff += off;
  return c;
}

namespace {
// Bounds of one concrete op against the rank's own buffers; empty when fine.
std::string boundsProblem(const ConcreteOp &c,
                          const std::array<int64_t, kNumBuffers> &size) {
  // 128-bit: offsets and counts come from plans and may be huge.
  auto check = [&](BufferId b, int64_t lo, __int128 hi, const char *what) {
    int64_t cap = size[static_cast<int>(b)];
    if (hi <= cap)
      return std::string();
    std::string his = hi > INT64_MAX ? std::string("2^63+")
                                     : std::to_string(static_cast<int64_t>(hi));
    return std::string(what) + " " + bufferName(b) + "[" + std::to_string(lo) +
           ", " + his + ") beyond its size " + std::to_string(cap);
  };
  std::string msg;
  if (opHasDst(c.kind))
    msg = check(c.dstBuf, c.dstOff, (__int128)c.dstOff + c.count, "writes");
  if (msg.empty() && opHasSrc(c.kind)) {
    __int128 hi = (__int128)c.srcOff + c.count;
    if (c.kind == OpKind::Reduce)
      hi += (__int128)(c.srcN - 1) * c.srcStride;
    msg = check(c.srcBuf, c.srcOff, hi, "reads");
  }
  return msg;
}
} // namespace

Result<RankProgram> expandRank(const Program &prog, int64_t rank,
                               const ExpandOptions &opts) {
  using R = Result<RankProgram>;
  if (rank < 0 || rank >= prog.p)
    return R::error("rank " + std::to_string(rank) + " outside 0.." +
                    std::to_string(prog.p - 1));
  auto steps = prog.phaseSteps();
  if (!steps)
    return R(steps.status());
  std::vector<int64_t> values = prog.paramValues();
  ProgramEvaluator ev(prog);
  RankProgram rp;
  rp.rank = rank;
  if (Status s = evalBufferSizes(prog, values.data(), rank, rp.bufferSize); !s)
    return R(s);
  std::vector<ConcreteOp> tmp;
  int64_t budget = kMaxExpandedSize;
  for (uint32_t ph = 0; ph < prog.phases.size(); ++ph) {
    for (int64_t s = 0; s < (*steps)[ph]; ++s) {
      tmp.clear();
      if (Status st = ev.expandStep(rank, ph, s, tmp, &budget); !st)
        return R(st);
      ConcreteStep cs;
      cs.phase = ph;
      cs.step = s;
      cs.firstOp = static_cast<uint32_t>(rp.ops.size());
      for (const ConcreteOp &c : tmp) {
        std::string problem = boundsProblem(c, rp.bufferSize);
        if (!problem.empty())
          return R::error("rank " + std::to_string(rank) + ", " +
                          phaseWhere(prog, ph) + " step " + std::to_string(s) +
                          ", op " + std::to_string(c.opIndex) + " (" +
                          opKindName(c.kind) + ", t=" + std::to_string(c.t) +
                          "): " + problem);
        if (opts.applySlices && prog.slices > 1) {
          for (int64_t i = 0; i < prog.slices; ++i)
            rp.ops.push_back(sliceOp(c, prog.slices, i));
        } else {
          rp.ops.push_back(c);
        }
      }
      cs.numOps = static_cast<uint32_t>(rp.ops.size()) - cs.firstOp;
      rp.steps.push_back(cs);
    }
  }
  return rp;
}

Result<int64_t> estimateOpInstances(const Program &prog) {
  std::vector<int64_t> ranks = {0};
  for (int64_t r : {prog.p / 2, prog.p - 1})
    if (r > ranks.back())
      ranks.push_back(r);
  std::vector<double> counts;
  double sampled = 0;
  for (int64_t r : ranks) {
    auto rp = expandRank(prog, r);
    if (!rp)
      return Result<int64_t>(rp.status());
    counts.push_back(static_cast<double>(rp->ops.size()));
    sampled += counts.back();
  }
  std::sort(counts.begin(), counts.end());
  double est = sampled + counts[counts.size() / 2] *
                             static_cast<double>(
                                 prog.p - static_cast<int64_t>(ranks.size()));
  return est > 9e18 ? INT64_MAX : static_cast<int64_t>(est);
}

std::string formatRankProgram(const Program &prog, const RankProgram &rp) {
  std::ostringstream os;
  os << "rank " << rp.rank << " of " << prog.p << ": "
     << collectiveName(prog.collective) << " " << algorithmName(prog.algorithm)
     << ", n=" << prog.n << " " << dataTypeName(prog.dtype)
     << ", buffers input=" << rp.bufferSize[0] << " output=" << rp.bufferSize[1]
     << " scratch=" << rp.bufferSize[2] << " elements\n";
  for (size_t si = 0; si < rp.steps.size(); ++si) {
    const ConcreteStep &st = rp.steps[si];
    os << "step " << si << " (" << prog.phases[st.phase].name
       << " s=" << st.step << ")";
    if (st.numOps == 0)
      os << ": idle";
    os << "\n";
    for (uint32_t i = st.firstOp; i < st.firstOp + st.numOps; ++i) {
      const ConcreteOp &c = rp.ops[i];
      os << "  " << opKindName(c.kind);
      if (opHasPeer(c.kind))
        os << (c.kind == OpKind::Send ? " to " : " from ") << c.peer;
      if (opHasDst(c.kind))
        os << " dst " << bufferName(c.dstBuf) << "[" << c.dstOff << ", "
           << c.dstOff + c.count << ")";
      if (opHasSrc(c.kind)) {
        os << " src " << bufferName(c.srcBuf) << "[" << c.srcOff << ", "
           << c.srcOff + c.count << ")";
        if (c.kind == OpKind::Reduce)
          os << " x" << c.srcN << " stride " << c.srcStride;
      }
      os << " count " << c.count << "\n";
    }
  }
  return os.str();
}

std::string formatProgram(const Program &prog) {
  std::vector<std::string> names = prog.paramNames();
  auto pr = [&](ExprId id) { return prog.pool.print(id, names); };
  std::ostringstream os;
  os << collectiveName(prog.collective) << " " << algorithmName(prog.algorithm);
  if (prog.algorithm == Algorithm::Hierarchical)
    os << " (level0 " << algorithmName(prog.level0) << ", level1 "
       << algorithmName(prog.level1) << ")";
  os << ": p=" << prog.p << " n=" << prog.n << " " << dataTypeName(prog.dtype)
     << " " << reduceOpName(prog.reduceOp) << " root=" << prog.root
     << " slices=" << prog.slices << "\n";
  for (const Param &p : prog.params)
    os << "param " << p.name << " = " << p.value << "\n";
  for (int b = 0; b < kNumBuffers; ++b)
    os << "buffer " << bufferName(static_cast<BufferId>(b)) << " ["
       << pr(prog.bufferSize[b]) << "]\n";
  for (const Phase &ph : prog.phases) {
    os << "phase " << ph.name << " steps " << pr(ph.steps) << "\n";
    for (const Op &op : ph.ops) {
      os << "  " << opKindName(op.kind);
      if (op.repeat != kNoExpr)
        os << " repeat " << pr(op.repeat);
      if (op.when != kNoExpr)
        os << " when " << pr(op.when);
      if (opHasPeer(op.kind))
        os << " peer " << pr(op.peer);
      if (opHasDst(op.kind))
        os << " dst " << bufferName(op.dst.buf) << "[" << pr(op.dst.off) << "]";
      if (opHasSrc(op.kind))
        os << " src " << bufferName(op.src.buf) << "[" << pr(op.src.off) << "]";
      if (op.kind == OpKind::Reduce)
        os << " x" << pr(op.srcN) << " stride " << pr(op.srcStride);
      os << " count " << pr(op.count) << "\n";
    }
  }
  return os.str();
}

E ProgramBuilder::param(const std::string &name, int64_t value) {
  for (size_t i = 0; i < prog_.params.size(); ++i)
    if (prog_.params[i].name == name) {
      prog_.params[i].value = value;
      return E(&prog_.pool, prog_.pool.param(static_cast<uint32_t>(i)));
    }
  prog_.params.push_back({name, value});
  return E(&prog_.pool,
           prog_.pool.param(static_cast<uint32_t>(prog_.params.size() - 1)));
}

uint32_t ProgramBuilder::addTable(std::vector<int64_t> values) {
  prog_.tables.push_back(std::move(values));
  return static_cast<uint32_t>(prog_.tables.size() - 1);
}

size_t ProgramBuilder::addPhase(std::string name, E steps) {
  Phase ph;
  ph.name = std::move(name);
  ph.steps = steps.id();
  prog_.phases.push_back(std::move(ph));
  return prog_.phases.size() - 1;
}

void ProgramBuilder::addOp(const Op &op) {
  if (prog_.phases.empty())
    addPhase("main", c(1));
  prog_.phases.back().ops.push_back(op);
}

Op ProgramBuilder::base(OpKind k, const Opt &o) {
  Op op;
  op.kind = k;
  if (o.when.valid()) {
    int64_t w = 1;
    if (!(o.when.isConstant(&w) && w != 0))
      op.when = o.when.id();
  }
  if (o.repeat.valid()) {
    int64_t rep = 1;
    if (!(o.repeat.isConstant(&rep) && rep == 1))
      op.repeat = o.repeat.id();
  }
  return op;
}

void ProgramBuilder::send(E peer, BufferId srcBuf, E srcOff, E count, Opt o) {
  Op op = base(OpKind::Send, o);
  op.peer = peer.id();
  op.src = {srcBuf, srcOff.id()};
  op.count = count.id();
  addOp(op);
}

void ProgramBuilder::recv(E peer, BufferId dstBuf, E dstOff, E count, Opt o) {
  Op op = base(OpKind::Recv, o);
  op.peer = peer.id();
  op.dst = {dstBuf, dstOff.id()};
  op.count = count.id();
  addOp(op);
}

void ProgramBuilder::recvReduce(E peer, BufferId dstBuf, E dstOff,
                                BufferId srcBuf, E srcOff, E count, Opt o) {
  Op op = base(OpKind::RecvReduce, o);
  op.peer = peer.id();
  op.dst = {dstBuf, dstOff.id()};
  op.src = {srcBuf, srcOff.id()};
  op.count = count.id();
  addOp(op);
}

void ProgramBuilder::copy(BufferId dstBuf, E dstOff, BufferId srcBuf, E srcOff,
                          E count, Opt o) {
  Op op = base(OpKind::Copy, o);
  op.dst = {dstBuf, dstOff.id()};
  op.src = {srcBuf, srcOff.id()};
  op.count = count.id();
  addOp(op);
}

void ProgramBuilder::reduce(BufferId dstBuf, E dstOff, BufferId srcBuf,
                            E srcOff, E srcStride, E srcN, E count, Opt o) {
  Op op = base(OpKind::Reduce, o);
  op.dst = {dstBuf, dstOff.id()};
  op.src = {srcBuf, srcOff.id()};
  op.srcStride = srcStride.id();
  op.srcN = srcN.id();
  op.count = count.id();
  addOp(op);
}

} // namespace hccl::sched
