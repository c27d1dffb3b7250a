//===- Verify.cpp - Symbolic execution of step programs -------------------===//
//
// Step by step, for every rank: evaluate the ops (sliced as the executor
// will), check bounds and hazards against the storage the buffers map to in
// the current aliasing mode, pair sends with receives across ranks, then
// move symbolic values (IntervalMap.h) along the pairs. After the last step
// the outputs are compared with what the collective requires.
//
// The symbolic values are the expensive part (time and memory grow with
// the op instances of all ranks). When they would exceed their budget they
// are not simulated, or dropped part-way; every other check still runs on
// every rank, and the report says it is no proof.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Verify.h"

#include "IntervalMap.h"

#include <algorithm>
#include <array>
#include <memory>
#include <random>
#include <unordered_map>

namespace hccl::sched {

bool hasInPlaceMode(Collective c) {
  return c != Collective::AllToAll && c != Collective::AllToAllV &&
         c != Collective::Permute;
}

bool hasInPlaceMode(const Program &prog) {
  // HCCL's in-place forms place the own block whole inside the other
  // buffer; a block layout's rows interleave the blocks, so it has none.
  return hasInPlaceMode(prog.collective) && prog.inputOuter == 1 &&
         prog.outputOuter == 1;
}

namespace {

/// What verifying `prog` costs, from estimateOpInstances: op instances over
/// all ranks, steps and slices (when applied) for one aliasing mode, and the
/// modes simulated. Doubles, because a large program's product overflows
/// int64. One function, so that prove() refuses exactly what the verifier
/// would not simulate.
struct SimulationWork {
  double perMode = 0;
  int modes = 0;
  double simulated() const { return perMode * modes; }
};

Result<SimulationWork> simulationWork(const Program &prog,
                                      const VerifyOptions &opts) {
  auto est = estimateOpInstances(prog);
  if (!est)
    return est.status();
  SimulationWork w;
  w.perMode = static_cast<double>(*est) *
              (opts.applySlices ? static_cast<double>(prog.slices) : 1.0);
  w.modes = (opts.outOfPlace ? 1 : 0) +
            (opts.inPlace && hasInPlaceMode(prog) ? 1 : 0);
  return w;
}

/// A work estimate as a whole number for messages (capped below INT64_MAX).
std::string aboutCount(double work) {
  return std::to_string(static_cast<int64_t>(std::min(work, 9e18)));
}

using vdetail::IntervalMap;
using vdetail::Piece;
using vdetail::Val;

uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// Commutative (ordered by value) but not associative: two partial results
// are equal only if they were built by the same tree (up to swapping
// operands), which is what makes floating-point results bit-identical.
uint64_t treeHash(uint64_t a, uint64_t b) {
  uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
  return mix64(mix64(lo) * 0x9e3779b97f4a7c15ull +
               (hi ^ 0x632be59bd9b4e019ull));
}

std::string range(const char *buf, int64_t lo, int64_t hi) {
  return std::string(buf) + "[" + std::to_string(lo) + ", " +
         std::to_string(hi) + ")";
}

// A logical buffer of one rank lives in a storage of that rank at a base.
struct Slot {
  int storage = 0;
  int64_t base = 0;
};

struct Access {
  int storage;
  int64_t lo, hi;
  uint32_t op; // index in the rank's step op list
  bool write;
  BufferId buf; // logical buffer, for messages
  int64_t off;  // logical offset
};

class Verifier {
public:
  Verifier(const Program &prog, const VerifyOptions &opts)
      : P(prog), O(opts), p(prog.p) {}

  Result<VerifyReport> run();

private:
  struct Mode {
    std::string name;
    bool inPlace = false;
    std::vector<std::array<Slot, kNumBuffers>> slots;      // per rank
    std::vector<std::array<IntervalMap, kNumBuffers>> mem; // per rank/storage
  };

  Status setup();
  void setupMode(Mode &m);
  Status expandAll(uint32_t phase, int64_t s);
  Status checkLocal(Mode &m, int64_t rank, uint32_t phase, int64_t s);
  Status pairAll(uint32_t phase, int64_t s);
  void checkSymmetry();
  Status applyData(Mode &m, uint32_t phase, int64_t s);
  Status checkFinal(Mode &m);

  std::string where(int64_t rank, uint32_t phase, int64_t s) const {
    return "rank " + std::to_string(rank) + ", phase " + std::to_string(phase) +
           " '" + P.phases[phase].name + "' step " + std::to_string(s) +
           " (step " + std::to_string(globalStep_) + ")";
  }
  std::string opName(const ConcreteOp &c) const {
    std::string s =
        "op " + std::to_string(c.opIndex) + " (" + opKindName(c.kind);
    if (opHasPeer(c.kind))
      s +=
          (c.kind == OpKind::Send ? " to " : " from ") + std::to_string(c.peer);
    if (c.t)
      s += ", t=" + std::to_string(c.t);
    return s + ")";
  }
  std::string tooLarge(int64_t estimate) const {
    return "verify: too large: " +
           (estimate >= 0 ? "about " + std::to_string(estimate)
                          : "more than " + std::to_string(O.maxOpInstances)) +
           " op instances over all ranks, steps and slices, beyond the budget "
           "of " +
           std::to_string(O.maxOpInstances) +
           " (VerifyOptions::maxOpInstances, hccl-plan verify --max-ops)";
  }
  Status fail(const Mode *m, const std::string &msg) const {
    return Status::error(m && m->inPlace ? "in-place: " + msg : msg);
  }
  std::string describe(const Val &v, int64_t pos) const;
  bool isSelfCopy(const Mode &m, int64_t rank, const ConcreteOp &c) const {
    if (c.kind != OpKind::Copy)
      return false;
    const Slot &d = m.slots[rank][static_cast<int>(c.dstBuf)];
    const Slot &s = m.slots[rank][static_cast<int>(c.srcBuf)];
    return d.storage == s.storage && d.base + c.dstOff == s.base + c.srcOff;
  }
  /// Reduces `in` into `acc` element-wise; on failure returns what went
  /// wrong (the caller adds where).
  std::string combine(std::vector<Piece> &acc, const std::vector<Piece> &in);

  const Program &P;
  VerifyOptions O;
  const int64_t p;
  // Owns every node of every interval map (IntervalMap never touches its
  // nodes when destroyed, so member order does not matter). One pool for
  // all ranks measured faster than one per rank.
  std::unique_ptr<vdetail::NodePool> pool_ =
      std::make_unique<vdetail::NodePool>(1 << 20);
  std::unique_ptr<ProgramEvaluator> eval_;
  std::vector<int64_t> params_;
  std::vector<std::array<int64_t, kNumBuffers>> sizes_;
  std::vector<int64_t> budget_; // what is left of each rank's expansion
  std::vector<uint64_t> weight_, leaf_;
  std::unordered_map<uint64_t, int64_t> leafRank_;
  uint64_t totalWeight_ = 0;
  bool simulate_ = true;
  bool dropped_ = false;     // simulation started, then over its budget
  std::string notSimulated_; // why the contents are not simulated
  /// Stops simulating contents (time or memory over budget).
  void dropSimulation(const std::string &why);
  std::vector<Mode> modes_;
  int64_t globalStep_ = 0;
  // Current step, all ranks: ops[begin[r] .. begin[r+1]).
  std::vector<ConcreteOp> ops_;
  std::vector<uint32_t> begin_;
  /// Sampled mode: ranks whose communication pattern is rank 0's under the
  /// rotation r -> r + k (peers (peer - r) mod p) or the reflection
  /// r -> r xor k (peers peer xor r), step by step.
  std::vector<char> rotSym_, xorSym_;
  std::vector<uint32_t> match_; // recv-type op -> its send (global index)
  std::vector<ConcreteOp> tmp_;
  std::vector<uint32_t> sendStart_, fill_;
  std::vector<std::pair<uint32_t, uint32_t>> sends_, recvs_; // (rank, op)
  std::vector<Access> acc_;
  std::vector<const Access *> writes_;
  std::vector<Piece> pa_, pb_;
  int64_t opInstances_ = 0;
};

Status Verifier::setup() {
  if (Status s = P.validate(); !s)
    return s;
  auto work = simulationWork(P, O);
  if (!work)
    return work.status();
  if (work->perMode > static_cast<double>(O.maxOpInstances))
    return Status::error(
        tooLarge(static_cast<int64_t>(std::min(work->perMode, 9e18))));
  params_ = P.paramValues();
  eval_ = std::make_unique<ProgramEvaluator>(P);
  sizes_.resize(p);
  budget_.assign(p, kMaxExpandedSize);
  for (int64_t r = 0; r < p; ++r)
    if (Status s = evalBufferSizes(P, params_.data(), r, sizes_[r]); !s)
      return s;
  std::mt19937_64 rng(O.seed);
  weight_.resize(p);
  leaf_.resize(p);
  for (int64_t r = 0; r < p; ++r) {
    weight_[r] = rng() | 1;
    leaf_[r] = mix64(rng());
    totalWeight_ += weight_[r];
    leafRank_[leaf_[r]] = r;
  }
  simulate_ = true;
  if (p > O.exhaustiveLimit) {
    simulate_ = false;
    notSimulated_ = "p > exhaustive-limit " + std::to_string(O.exhaustiveLimit);
  } else if (work->simulated() > static_cast<double>(O.maxSimulatedOps)) {
    simulate_ = false;
    notSimulated_ = "about " + aboutCount(work->simulated()) +
                    " op instances x modes to simulate, beyond the budget of " +
                    std::to_string(O.maxSimulatedOps) +
                    " (--max-simulated-ops)";
  }
  if (P.collective == Collective::AllToAllV) {
    if (P.tables.size() < 4)
      return Status::error("alltoallv program lacks its count/displacement "
                           "tables (0..3, see docs/plan-format.md)");
    for (int t = 0; t < 4; ++t)
      if (P.tables[t].size() != static_cast<size_t>(p * p))
        return Status::error("alltoallv table " + std::to_string(t) +
                             " holds " + std::to_string(P.tables[t].size()) +
                             " entries, expected p*p");
  }
  if (P.collective == Collective::Permute) {
    // Table 0: each rank's target, table 1: its source (-1: none), one
    // the inverse of the other (a plan's tables are untrusted).
    if (P.tables.size() < 2 || P.tables[0].size() != static_cast<size_t>(p) ||
        P.tables[1].size() != static_cast<size_t>(p))
      return Status::error("permute program lacks its target/source tables "
                           "(0, 1: p entries each, see docs/plan-format.md)");
    for (int64_t r = 0; r < p; ++r)
      for (int t = 0; t < 2; ++t) {
        int64_t x = P.tables[t][r];
        if (x < -1 || x >= p || (x >= 0 && P.tables[1 - t][x] != r))
          return Status::error(
              std::string("permute ") + (t ? "source" : "target") + " " +
              std::to_string(x) + " of rank " + std::to_string(r) +
              (x < -1 || x >= p ? " is outside -1..p-1"
                                : " does not name it back in the other "
                                  "table"));
      }
  }
  if (O.outOfPlace)
    modes_.push_back({"out-of-place", false, {}, {}});
  if (O.inPlace && hasInPlaceMode(P))
    modes_.push_back({"in-place", true, {}, {}});
  if (modes_.empty())
    return Status::error("verify: no aliasing mode selected");
  for (Mode &m : modes_)
    setupMode(m);
  return Status::ok();
}

void Verifier::setupMode(Mode &m) {
  m.slots.resize(p);
  if (simulate_)
    m.mem.resize(p);
  const int64_t n = P.n;
  for (int64_t r = 0; r < p; ++r) {
    auto &sl = m.slots[r];
    for (int b = 0; b < kNumBuffers; ++b)
      sl[b] = {b, 0};
    std::array<int64_t, kNumBuffers> ext = sizes_[r];
    if (m.inPlace) {
      // Rule 5: where the output lives relative to the input.
      switch (P.collective) {
      case Collective::AllGather: // input == output + r*n
        sl[0] = {1, r * n};
        ext[1] = std::max(ext[1], r * n + sizes_[r][0]);
        ext[0] = 0;
        break;
      case Collective::ReduceScatter: // output == input + r*n
        sl[1] = {0, r * n};
        ext[0] = std::max(ext[0], r * n + sizes_[r][1]);
        ext[1] = 0;
        break;
      default: // output == input
        sl[1] = {0, 0};
        ext[0] = std::max(ext[0], sizes_[r][1]);
        ext[1] = 0;
        break;
      }
    }
    if (!simulate_)
      continue;
    for (int st = 0; st < kNumBuffers; ++st)
      m.mem[r][st].reset(*pool_, ext[st], Val{});
    // The input: element e of rank r's input is a leaf with x = e.
    const Slot &in = sl[0];
    Val leaf{-in.base, weight_[r], leaf_[r], 1};
    if (sizes_[r][0] > 0) {
      std::vector<Piece> pc{{in.base, in.base + sizes_[r][0], leaf}};
      m.mem[r][in.storage].write(pc);
    }
  }
}

Status Verifier::expandAll(uint32_t phase, int64_t s) {
  ops_.clear();
  begin_.assign(1, 0);
  for (int64_t r = 0; r < p; ++r) {
    tmp_.clear();
    if (Status st = eval_->expandStep(r, phase, s, tmp_, &budget_[r]); !st)
      return st;
    for (const ConcreteOp &c : tmp_) {
      if (O.applySlices && P.slices > 1)
        for (int64_t i = 0; i < P.slices; ++i)
          ops_.push_back(sliceOp(c, P.slices, i));
      else
        ops_.push_back(c);
    }
    if (ops_.size() - begin_.back() >= (uint64_t(1) << 23))
      return Status::error(where(r, phase, s) +
                           ": more than 2^23 op instances in one step");
    if (opInstances_ + static_cast<int64_t>(ops_.size()) > O.maxOpInstances)
      return Status::error(tooLarge(-1));
    begin_.push_back(static_cast<uint32_t>(ops_.size()));
  }
  opInstances_ += static_cast<int64_t>(ops_.size());
  return Status::ok();
}

Status Verifier::checkLocal(Mode &m, int64_t rank, uint32_t phase, int64_t s) {
  acc_.clear();
  const auto &size = sizes_[rank];
  const auto &sl = m.slots[rank];
  for (uint32_t i = begin_[rank]; i < begin_[rank + 1]; ++i) {
    const ConcreteOp &c = ops_[i];
    uint32_t local = i - begin_[rank];
    auto bound = [&](BufferId b, int64_t lo, __int128 hi,
                     const char *what) -> Status {
      int64_t cap = size[static_cast<int>(b)];
      if (hi <= cap)
        return Status::ok();
      return fail(&m, where(rank, phase, s) + ", " + opName(c) + ": " + what +
                          " " +
                          range(bufferName(b), lo,
                                hi > INT64_MAX ? INT64_MAX : (int64_t)hi) +
                          " beyond its size " + std::to_string(cap));
    };
    if (opHasDst(c.kind))
      if (Status st =
              bound(c.dstBuf, c.dstOff, (__int128)c.dstOff + c.count, "writes");
          !st)
        return st;
    if (opHasSrc(c.kind)) {
      __int128 hi = (__int128)c.srcOff + c.count;
      if (c.kind == OpKind::Reduce)
        hi += (__int128)(c.srcN - 1) * c.srcStride;
      if (Status st = bound(c.srcBuf, c.srcOff, hi, "reads"); !st)
        return st;
    }
    if (c.count == 0 || isSelfCopy(m, rank, c))
      continue;
    auto add = [&](BufferId b, int64_t off, bool write) {
      const Slot &slot = sl[static_cast<int>(b)];
      acc_.push_back({slot.storage, slot.base + off, slot.base + off + c.count,
                      local, write, b, off});
    };
    if (opHasDst(c.kind))
      add(c.dstBuf, c.dstOff, true);
    if (c.kind == OpKind::Reduce) {
      for (int64_t k = 0; k < c.srcN; ++k)
        add(c.srcBuf, c.srcOff + k * c.srcStride, false);
    } else if (opHasSrc(c.kind)) {
      add(c.srcBuf, c.srcOff, false);
    }
  }
  // Writes must be disjoint; reads may only touch a write of their own op
  // with exactly the same range (accumulating in place).
  std::vector<const Access *> &writes = writes_;
  writes.clear();
  for (const Access &a : acc_)
    if (a.write)
      writes.push_back(&a);
  std::sort(writes.begin(), writes.end(), [](const Access *a, const Access *b) {
    return a->storage != b->storage ? a->storage < b->storage : a->lo < b->lo;
  });
  auto opOf = [&](uint32_t local) {
    return opName(ops_[begin_[rank] + local]);
  };
  auto hazard = [&](const Access &w, const Access &o) {
    return fail(
        &m, where(rank, phase, s) + ": hazard: " + opOf(w.op) + " writes " +
                range(bufferName(w.buf), w.off, w.off + (w.hi - w.lo)) +
                " while " + opOf(o.op) + (o.write ? " writes " : " reads ") +
                range(bufferName(o.buf), o.off, o.off + (o.hi - o.lo)));
  };
  for (size_t i = 1; i < writes.size(); ++i)
    if (writes[i]->storage == writes[i - 1]->storage &&
        writes[i]->lo < writes[i - 1]->hi)
      return hazard(*writes[i - 1], *writes[i]);
  for (const Access &a : acc_) {
    if (a.write)
      continue;
    // Last write starting before a.hi, then walk back while overlapping.
    auto it = std::lower_bound(
        writes.begin(), writes.end(), a, [](const Access *w, const Access &x) {
          return w->storage != x.storage ? w->storage < x.storage
                                         : w->lo < x.hi;
        });
    while (it != writes.begin()) {
      --it;
      const Access &w = **it;
      if (w.storage != a.storage || w.hi <= a.lo)
        break;
      if (w.op == a.op && w.lo == a.lo && w.hi == a.hi)
        continue;
      return hazard(w, a);
    }
  }
  return Status::ok();
}

Status Verifier::pairAll(uint32_t phase, int64_t s) {
  // Sends bucketed by destination (counting sort); inside a bucket they are
  // in (sender, program order) because ranks are scanned in order. Each
  // rank's receives, stably sorted by peer, must match its bucket 1:1.
  match_.assign(ops_.size(), UINT32_MAX);
  sendStart_.assign(p + 1, 0);
  for (uint32_t i = 0; i < ops_.size(); ++i)
    if (ops_[i].kind == OpKind::Send)
      ++sendStart_[ops_[i].peer + 1];
  for (int64_t r = 0; r < p; ++r)
    sendStart_[r + 1] += sendStart_[r];
  sends_.resize(sendStart_[p]);
  fill_.assign(sendStart_.begin(), sendStart_.end() - 1);
  for (int64_t r = 0; r < p; ++r)
    for (uint32_t i = begin_[r]; i < begin_[r + 1]; ++i)
      if (ops_[i].kind == OpKind::Send)
        sends_[fill_[ops_[i].peer]++] = {static_cast<uint32_t>(r), i};
  for (int64_t b = 0; b < p; ++b) {
    recvs_.clear();
    for (uint32_t i = begin_[b]; i < begin_[b + 1]; ++i)
      if (opReceives(ops_[i].kind))
        recvs_.push_back({static_cast<uint32_t>(ops_[i].peer), i});
    // Stable sort by peer: usually 0-2 receives per rank (insertion sort),
    // p-1 for the mesh algorithms. The op numbers were pushed in increasing
    // order and are distinct, so sorting the (peer, op) pairs is that stable
    // order without stable_sort's temporary buffer (libstdc++ 12's
    // get_temporary_buffer is deprecated, an error under clang -Werror).
    if (recvs_.size() <= 16) {
      for (size_t i = 1; i < recvs_.size(); ++i)
        for (size_t j = i; j > 0 && recvs_[j - 1].first > recvs_[j].first; --j)
          std::swap(recvs_[j - 1], recvs_[j]);
    } else {
      std::sort(recvs_.begin(), recvs_.end());
    }
    size_t i = sendStart_[b], iEnd = sendStart_[b + 1], j = 0;
    while (i < iEnd || j < recvs_.size()) {
      uint32_t sFrom = i < iEnd ? sends_[i].first : UINT32_MAX;
      uint32_t rFrom = j < recvs_.size() ? recvs_[j].first : UINT32_MAX;
      if (sFrom < rFrom) {
        const ConcreteOp &c = ops_[sends_[i].second];
        return Status::error(where(sFrom, phase, s) + ", " + opName(c) +
                             ": sends " + std::to_string(c.count) +
                             " elements to rank " + std::to_string(b) +
                             ", which posts no matching receive from " +
                             std::to_string(sFrom) + " in this step");
      }
      if (rFrom < sFrom) {
        const ConcreteOp &c = ops_[recvs_[j].second];
        return Status::error(where(b, phase, s) + ", " + opName(c) +
                             ": receives " + std::to_string(c.count) +
                             " elements from rank " + std::to_string(rFrom) +
                             ", which sends nothing matching to " +
                             std::to_string(b) + " in this step");
      }
      const ConcreteOp &snd = ops_[sends_[i].second];
      const ConcreteOp &rcv = ops_[recvs_[j].second];
      if (snd.count != rcv.count)
        return Status::error(where(sFrom, phase, s) + ", " + opName(snd) +
                             ": sends " + std::to_string(snd.count) +
                             " elements to rank " + std::to_string(b) +
                             " but its " + opName(rcv) + " receives " +
                             std::to_string(rcv.count));
      match_[recvs_[j].second] = sends_[i].second;
      ++i;
      ++j;
    }
  }
  return Status::ok();
}

std::string Verifier::describe(const Val &v, int64_t pos) const {
  if (!v.defined())
    return "nothing written";
  int64_t x = pos + v.delta;
  if (v.count == 1) {
    auto it = leafRank_.find(v.hash);
    if (it != leafRank_.end())
      return "input element " + std::to_string(x) + " of rank " +
             std::to_string(it->second);
  }
  return "a reduction of " + std::to_string(v.count) +
         " contributions of input element " + std::to_string(x);
}

std::string Verifier::combine(std::vector<Piece> &acc,
                              const std::vector<Piece> &in) {
  // Both lists cover the same destination range; cut at every boundary.
  std::vector<Piece> out;
  size_t a = 0, b = 0;
  while (a < acc.size() && b < in.size()) {
    int64_t lo = std::max(acc[a].lo, in[b].lo);
    int64_t hi = std::min(acc[a].hi, in[b].hi);
    const Val &x = acc[a].v, &y = in[b].v;
    if (lo < hi) {
      if (!x.defined() || !y.defined())
        return "reduces " + describe(x, lo) + " with " + describe(y, lo) +
               " at destination element " + std::to_string(lo);
      if (x.delta != y.delta)
        return "reduces " + describe(x, lo) + " with " + describe(y, lo) +
               " (different elements)";
      Val z{x.delta, x.wsum + y.wsum, treeHash(x.hash, y.hash),
            x.count + y.count};
      out.push_back({lo, hi, z});
    }
    if (acc[a].hi == hi)
      ++a;
    if (in[b].hi == hi)
      ++b;
  }
  acc.swap(out);
  return {};
}

Status Verifier::applyData(Mode &m, uint32_t phase, int64_t s) {
  auto readAt = [&](int64_t rank, BufferId b, int64_t off, int64_t count,
                    int64_t dstPos, std::vector<Piece> &out) {
    out.clear();
    const Slot &sl = m.slots[rank][static_cast<int>(b)];
    int64_t lo = sl.base + off;
    m.mem[rank][sl.storage].read(lo, lo + count, out);
    int64_t shift = dstPos - lo;
    for (Piece &pc : out) {
      pc.lo += shift;
      pc.hi += shift;
      pc.v = pc.v.shifted(shift);
    }
  };
  for (int64_t r = 0; r < p; ++r) {
    // One step can add p^2/2 segments (an all-gather's last exchange):
    // watch the memory inside it, not only after it.
    if ((r & 255) == 255 &&
        pool_->bytes() > static_cast<size_t>(O.maxSimulationBytes))
      return Status::ok(); // run() drops the simulation
    for (uint32_t i = begin_[r]; i < begin_[r + 1]; ++i) {
      const ConcreteOp &c = ops_[i];
      if (c.kind == OpKind::Send || c.count == 0 || isSelfCopy(m, r, c))
        continue;
      const Slot &dsl = m.slots[r][static_cast<int>(c.dstBuf)];
      int64_t dpos = dsl.base + c.dstOff;
      auto what = [&]() {
        return (m.inPlace ? "in-place: " : "") + where(r, phase, s) + ", " +
               opName(c);
      };
      switch (c.kind) {
      case OpKind::Recv:
      case OpKind::RecvReduce: {
        const ConcreteOp &snd = ops_[match_[i]];
        readAt(c.peer, snd.srcBuf, snd.srcOff, c.count, dpos, pb_);
        if (c.kind == OpKind::RecvReduce) {
          readAt(r, c.srcBuf, c.srcOff, c.count, dpos, pa_);
          if (std::string e = combine(pa_, pb_); !e.empty())
            return Status::error(what() + ": " + e);
          pb_.swap(pa_);
        }
        break;
      }
      case OpKind::Copy:
        readAt(r, c.srcBuf, c.srcOff, c.count, dpos, pb_);
        break;
      case OpKind::Reduce:
        readAt(r, c.srcBuf, c.srcOff, c.count, dpos, pb_);
        for (int64_t k = 1; k < c.srcN; ++k) {
          readAt(r, c.srcBuf, c.srcOff + k * c.srcStride, c.count, dpos, pa_);
          if (std::string e = combine(pb_, pa_); !e.empty())
            return Status::error(what() + ": " + e);
        }
        break;
      default:
        break;
      }
      m.mem[r][dsl.storage].write(pb_);
    }
  }
  return Status::ok();
}

Status Verifier::checkFinal(Mode &m) {
  const int64_t n = P.n;
  // Expected block: output [eLo, eHi) holds source x = xLo + (e - eLo) of
  // rank `leaf` (>= 0), or the full reduction (leaf = -1).
  struct Expect {
    int64_t eLo, eHi, xLo, leaf;
  };
  std::vector<Expect> ex;
  std::vector<Piece> ref, got;
  for (int64_t r = 0; r < p; ++r) {
    ex.clear();
    switch (P.collective) {
    case Collective::AllReduce:
      ex.push_back({0, n, 0, -1});
      break;
    case Collective::ReduceScatter:
      // Row by row in a block layout: output row o holds input row o of
      // block r (blockOffset), reduced.
      for (int64_t o = 0, len = n / P.inputOuter; o < P.inputOuter; ++o)
        ex.push_back({o * len, (o + 1) * len,
                      blockOffset(r, o * len, p, n, P.inputOuter), -1});
      break;
    case Collective::AllGather:
      for (int64_t j = 0; j < p; ++j)
        for (int64_t o = 0, len = n / P.outputOuter; o < P.outputOuter; ++o) {
          int64_t e = blockOffset(j, o * len, p, n, P.outputOuter);
          ex.push_back({e, e + len, o * len, j});
        }
      break;
    case Collective::Broadcast:
      ex.push_back({0, n, 0, P.root});
      break;
    case Collective::Reduce:
      if (r == P.root)
        ex.push_back({0, n, 0, -1});
      break;
    case Collective::AllToAll: {
      // Piece by piece: rows of the finer side lie inside the other's.
      int64_t pieces = std::max(P.inputOuter, P.outputOuter);
      int64_t len = n / pieces;
      for (int64_t j = 0; j < p; ++j)
        for (int64_t i = 0; i < n; i += len) {
          int64_t e = blockOffset(j, i, p, n, P.outputOuter);
          ex.push_back({e, e + len, blockOffset(r, i, p, n, P.inputOuter), j});
        }
      break;
    }
    case Collective::AllToAllV:
      for (int64_t j = 0; j < p; ++j) {
        int64_t rc = P.tables[2][r * p + j], rd = P.tables[3][r * p + j];
        ex.push_back({rd, rd + rc, P.tables[1][j * p + r], j});
      }
      break;
    case Collective::Permute:
      if (int64_t src = P.tables[1][r]; src >= 0) {
        ex.push_back({0, n, 0, src});
      } else if (n > 0) {
        // No source: the runtime zeroes the output, which the program must
        // leave alone.
        const Slot &o = m.slots[r][1];
        got.clear();
        m.mem[r][o.storage].read(o.base, o.base + n, got);
        for (const Piece &pc : got)
          if (pc.v.defined())
            return fail(&m,
                        "rank " + std::to_string(r) +
                            " has no permute source, but " +
                            range("output", pc.lo - o.base, pc.hi - o.base) +
                            " is written (it must stay zero)");
      }
      break;
    }
    const Slot &out = m.slots[r][1];
    for (const Expect &e : ex) {
      if (e.eLo >= e.eHi)
        continue;
      if (e.eHi > sizes_[r][1])
        return fail(&m, "rank " + std::to_string(r) + ": output holds " +
                            std::to_string(sizes_[r][1]) +
                            " elements, the collective needs " +
                            std::to_string(e.eHi));
      got.clear();
      m.mem[r][out.storage].read(out.base + e.eLo, out.base + e.eHi, got);
      for (const Piece &pc : got) {
        int64_t lo = pc.lo - out.base, hi = pc.hi - out.base;
        int64_t wantX = e.xLo + (lo - e.eLo);
        const Val &v = pc.v;
        bool ok = v.defined() && pc.lo + v.delta == wantX;
        if (ok && e.leaf >= 0)
          ok = v.count == 1 && v.hash == leaf_[e.leaf];
        if (ok && e.leaf < 0)
          ok = v.count == static_cast<uint32_t>(p) && v.wsum == totalWeight_;
        if (ok)
          continue;
        std::string want =
            e.leaf >= 0 ? "input element " + std::to_string(wantX) +
                              " of rank " + std::to_string(e.leaf)
                        : "the reduction of all " + std::to_string(p) +
                              " ranks' input element " + std::to_string(wantX);
        std::string found = describe(v, pc.lo);
        if (v.defined() && e.leaf < 0 && v.count == static_cast<uint32_t>(p) &&
            pc.lo + v.delta == wantX)
          found += " (some rank counted twice, another missing)";
        return fail(&m, "rank " + std::to_string(r) + ": " +
                            range("output", lo, hi) + ": expected " + want +
                            ", found " + found);
      }
      // Rule 6: all-reduce results come from one reduction tree on all ranks.
      if (P.collective == Collective::AllReduce) {
        if (r == 0) {
          ref = got;
          continue;
        }
        size_t a = 0, b = 0;
        while (a < ref.size() && b < got.size()) {
          int64_t lo =
              std::max(ref[a].lo - m.slots[0][1].base, got[b].lo - out.base);
          int64_t hi =
              std::min(ref[a].hi - m.slots[0][1].base, got[b].hi - out.base);
          if (lo < hi && ref[a].v.hash != got[b].v.hash)
            return fail(&m, "rank " + std::to_string(r) + ": " +
                                range("output", lo, hi) +
                                ": reduced in a different order than on rank 0 "
                                "(results would not be bit-identical)");
          if (ref[a].hi - m.slots[0][1].base == hi)
            ++a;
          if (got[b].hi - out.base == hi)
            ++b;
        }
      }
    }
  }
  return Status::ok();
}

void Verifier::checkSymmetry() {
  if (rotSym_.empty()) {
    rotSym_.assign(p, 1);
    xorSym_.assign(p, 1);
  }
  auto same = [](const ConcreteOp &a, const ConcreteOp &b) {
    return a.kind == b.kind && a.count == b.count && a.srcN == b.srcN &&
           a.dstBuf == b.dstBuf && a.srcBuf == b.srcBuf;
  };
  uint32_t n0 = begin_[1] - begin_[0];
  for (int64_t r = 1; r < p; ++r) {
    if (!rotSym_[r] && !xorSym_[r])
      continue;
    if (begin_[r + 1] - begin_[r] != n0) {
      rotSym_[r] = xorSym_[r] = 0;
      continue;
    }
    for (uint32_t i = 0; i < n0; ++i) {
      const ConcreteOp &a = ops_[begin_[0] + i], &b = ops_[begin_[r] + i];
      if (!same(a, b)) {
        rotSym_[r] = xorSym_[r] = 0;
        break;
      }
      if (!opHasPeer(a.kind))
        continue;
      if (((b.peer - r) % p + p) % p != a.peer)
        rotSym_[r] = 0;
      if ((b.peer ^ r) != a.peer)
        xorSym_[r] = 0;
    }
  }
}

void Verifier::dropSimulation(const std::string &why) {
  simulate_ = false;
  dropped_ = true;
  notSimulated_ = why + ", dropped after step " + std::to_string(globalStep_);
  for (Mode &m : modes_)
    m.mem.clear(); // abandons its nodes: they are the pool's
  pool_ = std::make_unique<vdetail::NodePool>(1 << 20);
}

Result<VerifyReport> Verifier::run() {
  using R = Result<VerifyReport>;
  if (Status s = setup(); !s)
    return R(s);
  auto steps = P.phaseSteps();
  if (!steps)
    return R(steps.status());
  globalStep_ = 0;
  for (uint32_t ph = 0; ph < P.phases.size(); ++ph) {
    for (int64_t s = 0; s < (*steps)[ph]; ++s, ++globalStep_) {
      if (Status st = expandAll(ph, s); !st)
        return R(st);
      for (Mode &m : modes_)
        for (int64_t r = 0; r < p; ++r)
          if (Status st = checkLocal(m, r, ph, s); !st)
            return R(st);
      if (Status st = pairAll(ph, s); !st)
        return R(st);
      if (!simulate_ && !dropped_)
        checkSymmetry();
      if (simulate_) {
        for (Mode &m : modes_)
          if (pool_->bytes() <= static_cast<size_t>(O.maxSimulationBytes))
            if (Status st = applyData(m, ph, s); !st)
              return R(st);
        double done = static_cast<double>(opInstances_) *
                      static_cast<double>(modes_.size());
        if (done > static_cast<double>(O.maxSimulatedOps))
          dropSimulation("more than " + std::to_string(O.maxSimulatedOps) +
                         " op instances x modes to simulate "
                         "(--max-simulated-ops)");
        else if (pool_->bytes() > static_cast<size_t>(O.maxSimulationBytes))
          dropSimulation("its symbolic buffers outgrew " +
                         std::to_string(O.maxSimulationBytes >> 20) +
                         " MiB (VerifyOptions::maxSimulationBytes)");
      }
    }
  }
  if (simulate_)
    for (Mode &m : modes_)
      if (Status st = checkFinal(m); !st)
        return R(st);

  VerifyReport rep;
  rep.proven = simulate_;
  rep.steps = globalStep_;
  rep.opInstances = opInstances_;
  std::string modes;
  for (Mode &m : modes_) {
    rep.modes.push_back(m.name);
    modes += (modes.empty() ? "" : ", ") + m.name;
  }
  std::string head = std::string(collectiveName(P.collective)) + " " +
                     algorithmName(P.algorithm) + " p=" + std::to_string(p) +
                     " n=" + std::to_string(P.n) +
                     " slices=" + std::to_string(P.slices) + " (" + modes +
                     "), " + std::to_string(rep.steps) + " steps, " +
                     std::to_string(rep.opInstances) + " op instances: ";
  if (simulate_) {
    rep.summary = head + "correct on all " + std::to_string(p) + " ranks";
  } else {
    rep.summary = head + "NOT PROVEN: contents not simulated (" +
                  notSimulated_ +
                  "); pairing, bounds and hazards checked on all " +
                  std::to_string(p) + " ranks";
    if (!dropped_) {
      int64_t rot = 1, xr = 1, sym = 1;
      for (int64_t r = 1; r < p && !rotSym_.empty(); ++r) {
        rot += rotSym_[r];
        xr += xorSym_[r];
        sym += rotSym_[r] || xorSym_[r];
      }
      rep.symmetricRanks = sym;
      rep.summary += "; communication pattern of rank 0 on " +
                     std::to_string(sym) + " of " + std::to_string(p) +
                     " ranks (rotation " + std::to_string(rot) + ", xor " +
                     std::to_string(xr) + ")";
    }
  }
  return rep;
}

} // namespace

Result<VerifyReport> verify(const Program &prog, const VerifyOptions &opts) {
  return Verifier(prog, opts).run();
}

Status prove(const Program &prog, const VerifyOptions &opts) {
  // Beyond the simulation budget the answer can only be "not proven": say
  // so before checking anything else (cheap: three ranks expanded).
  if (auto work = simulationWork(prog, opts);
      work && work->simulated() > static_cast<double>(opts.maxSimulatedOps))
    return Status::error(
        "is not proven: about " + aboutCount(work->simulated()) +
        " op instances x aliasing modes to simulate, beyond the proof "
        "budget of " +
        std::to_string(opts.maxSimulatedOps) +
        " (hccl-plan verify --max-simulated-ops can prove it once)");
  auto rep = verify(prog, opts);
  if (!rep)
    return Status::error("is incorrect: " + rep.message());
  if (!rep->proven)
    return Status::error("is not proven: " + rep->summary);
  return Status::ok();
}

Status verifyPlan(const Plan &plan, const VerifyOptions &opts) {
  for (const PlanProgram &pp : plan.programs)
    if (Status s = prove(pp.program, opts); !s)
      return Status::error("program '" + pp.id + "' " + s.message());
  return Status::ok();
}

} // namespace hccl::sched
