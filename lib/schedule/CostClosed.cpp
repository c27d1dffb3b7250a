//===- CostClosed.cpp - Closed-form alpha-beta-gamma costs ----------------===//
//
// Each algorithm is described by the steps its generator emits: how many
// messages the busiest port carries, its bytes and the bytes reduced, priced
// with the same stepTime() as predictCost. With n divisible by p and one
// link class these agree with the program cost and with the textbook costs
// (docs/design.md, "Reference formulas").
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"

#include <algorithm>
#include <cmath>

namespace hccl::sched {
namespace {

struct Level {
  const LinkParams *link;
  double gamma;
  int64_t slices;
  double elemBytes;
  int64_t chunks;
  int64_t count;      ///< top-level element count (for the chunk rule)
  int64_t pieces = 1; ///< messages per block (block layouts)

  double step(double times, double msgs, double bytes, double reduced) const {
    if (times <= 0)
      return 0;
    return times * stepTime(static_cast<int64_t>(msgs) * pieces, bytes, reduced,
                            *link, gamma, slices);
  }
  // Messages on the busiest port when k-1 equal transfers share the ports.
  double fan(int64_t k) const {
    int64_t ports = std::max(1, link->ports);
    return static_cast<double>((k - 1 + ports - 1) / ports);
  }
  int64_t chunkCount(int64_t k) const {
    if (chunks > 0)
      return chunks;
    return std::max<int64_t>(1, std::min<int64_t>(count, 2 * k));
  }
};

int64_t lg(int64_t k) {
  int64_t l = 0;
  while ((int64_t(1) << (l + 1)) <= k)
    ++l;
  return l;
}

// Reduce-scatter / all-gather / all-reduce of a vector of N bytes over k.
double rs(Algorithm a, int64_t k, double N, const Level &L) {
  if (k == 1)
    return 0;
  double kk = static_cast<double>(k);
  switch (a) {
  case Algorithm::Ring:
    return L.step(kk - 1, 1, N / kk, N / kk);
  case Algorithm::MeshTwoShot: {
    double f = L.fan(k);
    return L.step(1, f, f * N / kk, 0) + L.step(1, 0, 0, (kk - 1) * N / kk);
  }
  case Algorithm::RHD: {
    // Virtual rank v < rem holds two real blocks (its own and its folded
    // partner's), so a halving step's busiest range of `half` virtual
    // blocks is the one starting at 0: half + min(half, rem) real blocks of
    // N / k, sent by one partner and received and reduced by the other.
    int64_t l = lg(k), p2 = int64_t(1) << l, rem = k - p2;
    double t = rem ? L.step(1, 1, N, N) : 0;
    for (int64_t i = 0; i < l; ++i) {
      int64_t half = p2 >> (i + 1);
      double b = static_cast<double>(half + std::min(half, rem)) * N / kk;
      t += L.step(1, 1, b, b);
    }
    return t + (rem ? L.step(1, 1, N / kk, 0) : 0);
  }
  default:
    return NAN;
  }
}

double ag(Algorithm a, int64_t k, double N, const Level &L) {
  if (k == 1)
    return 0;
  double kk = static_cast<double>(k);
  switch (a) {
  case Algorithm::Ring:
    return L.step(kk - 1, 1, N / kk, 0);
  case Algorithm::MeshTwoShot: {
    double f = L.fan(k);
    return L.step(1, f, f * N / kk, 0);
  }
  case Algorithm::RHD: {
    // Doubling step i exchanges ranges of 2^i virtual blocks; the busiest,
    // starting at 0, holds 2^i + min(2^i, rem) real blocks (see rs). The
    // unfold returns the other k - 1 blocks to each folded-out rank in two
    // messages, [0, me - 1) and [me + 1, k), to the same peer: back to back
    // on that pair's connection, priced as one message of k - 1 blocks.
    int64_t l = lg(k), p2 = int64_t(1) << l, rem = k - p2;
    double t = rem ? L.step(1, 1, N / kk, 0) : 0;
    for (int64_t i = 0; i < l; ++i) {
      int64_t dist = int64_t(1) << i;
      t += L.step(1, 1,
                  static_cast<double>(dist + std::min(dist, rem)) * N / kk, 0);
    }
    if (rem)
      t += L.step(1, 1, N * (kk - 1) / kk, 0);
    return t;
  }
  default:
    return NAN;
  }
}

double ar(Algorithm a, int64_t k, double n, const Level &L) {
  if (k == 1)
    return 0;
  double kk = static_cast<double>(k);
  switch (a) {
  case Algorithm::Ring:
  case Algorithm::MeshTwoShot:
    return rs(a, k, n, L) + ag(a, k, n, L);
  case Algorithm::MeshOneShot: {
    double f = L.fan(k);
    return L.step(1, f, f * n, 0) + L.step(1, 0, 0, (kk - 1) * n);
  }
  case Algorithm::RHD: {
    int64_t l = lg(k), p2 = int64_t(1) << l;
    bool fold = p2 != k;
    double t = fold ? L.step(1, 1, n, n) + L.step(1, 1, n, 0) : 0;
    for (int64_t i = 0; i < l; ++i) {
      double b = n / static_cast<double>(int64_t(2) << i);
      t += L.step(1, 1, b, b) + L.step(1, 1, b, 0); // halve + double
    }
    return t;
  }
  case Algorithm::RecursiveDoubling: {
    int64_t l = lg(k), p2 = int64_t(1) << l;
    bool fold = p2 != k;
    double t = fold ? L.step(1, 1, n, n) + L.step(1, 1, n, 0) : 0;
    return t + L.step(static_cast<double>(l), 1, n, n);
  }
  default:
    return NAN;
  }
}

double bcast(Algorithm a, int64_t k, double n, const Level &L) {
  if (k == 1)
    return 0;
  switch (a) {
  case Algorithm::Ring: {
    double K = static_cast<double>(L.chunkCount(k));
    return L.step(K + static_cast<double>(k) - 2, 1, n / K, 0);
  }
  case Algorithm::Tree:
    return L.step(std::ceil(std::log2(static_cast<double>(k))), 1, n, 0);
  case Algorithm::Star: {
    double f = L.fan(k);
    // Receivers that copy take the root's bytes at once (predictCost).
    if (L.link->receiverCopies())
      return L.step(1, 1, n, 0);
    return L.step(1, f, f * n, 0);
  }
  default:
    return NAN;
  }
}

double reduce(Algorithm a, int64_t k, double n, const Level &L) {
  if (k == 1)
    return 0;
  switch (a) {
  case Algorithm::Ring: {
    double K = static_cast<double>(L.chunkCount(k));
    return L.step(K + static_cast<double>(k) - 2, 1, n / K, n / K);
  }
  case Algorithm::Tree:
    return L.step(std::ceil(std::log2(static_cast<double>(k))), 1, n, n);
  case Algorithm::Star: {
    double f = L.fan(k);
    return L.step(1, f, f * n, 0) +
           L.step(1, 0, 0, (static_cast<double>(k) - 1) * n);
  }
  default:
    return NAN;
  }
}

double alltoall(Algorithm a, int64_t k, double n, const Level &L) {
  if (k == 1)
    return 0;
  switch (a) {
  case Algorithm::Pairwise:
    return L.step(static_cast<double>(k) - 1, 1, n, 0);
  case Algorithm::MeshTwoShot: {
    double f = L.fan(k);
    return L.step(1, f, f * n, 0);
  }
  default:
    return NAN;
  }
}

double flat(Collective c, Algorithm a, int64_t k, double n, const Level &L) {
  double kk = static_cast<double>(k);
  switch (c) {
  case Collective::AllReduce:
    return ar(a, k, n, L);
  case Collective::ReduceScatter:
    return rs(a, k, n * kk, L);
  case Collective::AllGather:
    return ag(a, k, n * kk, L);
  case Collective::Broadcast:
    return bcast(a, k, n, L);
  case Collective::Reduce:
    return reduce(a, k, n, L);
  case Collective::AllToAll:
  case Collective::AllToAllV:
    return alltoall(a, k, n, L);
  case Collective::Permute: // one exchange: send n, receive n
    return a == Algorithm::Pairwise ? L.step(1, 1, n, 0) : NAN;
  }
  return NAN;
}

Algorithm canonicalFor(Collective c, Algorithm a) {
  if ((c == Collective::Broadcast || c == Collective::Reduce) &&
      a == Algorithm::MeshTwoShot)
    return Algorithm::Star;
  return a;
}

/// The steps' time, without the per-collective overhead.
Result<double> stepsCost(const ClosedFormRequest &req, const Topology &topo) {
  using R = Result<double>;
  if (req.p < 1)
    return R::error("cost: p must be >= 1");
  if (!(req.bytes >= 0))
    return R::error("cost: bytes must be >= 0");
  if (Status s = topo.validate(); !s)
    return R(s);
  Collective c = req.collective;
  Algorithm a = canonicalFor(c, req.algorithm);
  const int64_t p = req.p;
  const double n = req.bytes;
  int64_t count =
      req.elemBytes > 0 ? static_cast<int64_t>(req.bytes / req.elemBytes) : 0;
  if (req.pieces < 1)
    return R::error("cost: pieces must be >= 1");
  Level intra{&topo.intra, topo.gamma(), req.slices, req.elemBytes,
              req.chunks,  count,        req.pieces};
  // Between servers: a super pod's scale-up bus while the group lies in
  // one pod (its placement says, or its servers counted from server 0
  // fit), the inter-server link otherwise.
  auto across = [&](int64_t serversSpanned) {
    Level l = intra;
    l.link = req.pods > 0 ? (topo.hasPods() && req.pods == 1 ? &topo.scaleUp
                                                             : &topo.inter)
                          : &topo.acrossServers(serversSpanned);
    return l;
  };
  auto bad = [&](Algorithm x) {
    return R::error(std::string("algorithm '") + algorithmName(x) +
                    "' cannot serve " + collectiveName(c));
  };
  auto serves = [](const std::vector<Algorithm> &v, Algorithm x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (!serves(algorithmsFor(c), a))
    return bad(req.algorithm);
  if (a != Algorithm::Hierarchical) {
    // A flat algorithm is as slow as the slowest link class it crosses. The
    // caller's ranks per server says where the group lies (e.g. one rank on
    // each of 4 servers: m = 1 < p); without it, a group larger than a
    // server must span servers.
    bool spans = topo.servers > 1 &&
                 (req.ranksPerServer > 0
                      ? req.ranksPerServer < p
                      : topo.worldSize() > 0 && p > topo.devicesPerServer);
    int64_t spanned =
        req.ranksPerServer > 0
            ? (p + req.ranksPerServer - 1) / req.ranksPerServer
            : (p + topo.devicesPerServer - 1) / topo.devicesPerServer;
    double t = flat(c, a, p, n, spans ? across(spanned) : intra);
    if (std::isnan(t))
      return bad(a);
    return t;
  }
  if (req.pieces > 1)
    return R::error("hierarchical algorithms move blocks of the leading "
                    "dimension only");
  int64_t m =
      req.ranksPerServer > 0 ? req.ranksPerServer : topo.devicesPerServer;
  if (m < 1 || p % m != 0)
    return R::error("hierarchical: " + std::to_string(p) +
                    " ranks are not a multiple of " + std::to_string(m) +
                    " ranks per server");
  Algorithm l0 = canonicalFor(c, req.level0), l1 = canonicalFor(c, req.level1);
  if (!serves(levelAlgorithmsFor(c, 0), l0))
    return bad(req.level0);
  if (!serves(levelAlgorithmsFor(c, 1), l1))
    return bad(req.level1);
  const int64_t S = p / m;
  // Split at the super pod: level 0 inside each pod (its pairs across
  // servers on the bus, the slowest inside), level 1 between pods.
  Level lv0 = intra, lv1 = across(S);
  if (req.podSplit) {
    lv0.link = &topo.scaleUp;
    lv1.link = &topo.inter;
  }
  double mm = static_cast<double>(m), ss = static_cast<double>(S);
  double t = NAN;
  switch (c) {
  case Collective::AllReduce:
    t = rs(l0, m, n, lv0) + ar(l1, S, n / mm, lv1) + ag(l0, m, n, lv0);
    break;
  case Collective::ReduceScatter:
    t = rs(l0, m, n * static_cast<double>(p), lv0) + rs(l1, S, n * ss, lv1);
    break;
  case Collective::AllGather:
    t = ag(l1, S, n * ss, lv1) + ag(l0, m, n * static_cast<double>(p), lv0);
    break;
  case Collective::Broadcast:
    t = bcast(l1, S, n, lv1) + bcast(l0, m, n, lv0);
    break;
  case Collective::Reduce:
    t = reduce(l0, m, n, lv0) + reduce(l1, S, n, lv1);
    break;
  default:
    return bad(a);
  }
  if (std::isnan(t))
    return R::error("hierarchical: levels cannot serve " +
                    std::string(collectiveName(c)));
  return t;
}

} // namespace

Result<double> closedFormCost(const ClosedFormRequest &req,
                              const Topology &topo) {
  Result<double> t = stepsCost(req, topo);
  if (!t || req.p <= 1)
    return t;
  double s = *t;
  if (topo.pastCacheScale(req.bytes) != 1.0) {
    // Past the caches' knee the byte terms grow; the latency terms (the
    // same request moving one element per piece) do not.
    ClosedFormRequest tiny = req;
    tiny.bytes =
        req.elemBytes * static_cast<double>(std::max<int64_t>(1, req.pieces));
    if (Result<double> t0 = stepsCost(tiny, topo); t0 && *t0 < s)
      s = *t0 + (s - *t0) * topo.pastCacheScale(req.bytes);
  }
  return s + topo.collectiveOverhead();
}

} // namespace hccl::sched
