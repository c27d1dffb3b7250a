//===- Generate.cpp - Request checking and generator dispatch -------------===//
#include "hccl-mlir/schedule/Generate.h"

#include "algorithms/GenCommon.h"

#include <algorithm>

namespace hccl::sched {
namespace {

using gen::GroupView;
using gen::Region;

bool contains(const std::vector<Algorithm> &v, Algorithm a) {
  return std::find(v.begin(), v.end(), a) != v.end();
}

std::string names(const std::vector<Algorithm> &v) {
  std::string out;
  for (Algorithm a : v)
    out += (out.empty() ? "" : ", ") + std::string(algorithmName(a));
  return out;
}

// Broadcast and reduce accept "mesh" for the star (HCCL's level0 Mesh).
Algorithm canonical(Collective c, Algorithm a) {
  if ((c == Collective::Broadcast || c == Collective::Reduce) &&
      a == Algorithm::MeshTwoShot)
    return Algorithm::Star;
  return a;
}

// Prefix sums of one row of a p*p matrix.
std::vector<int64_t> packedDispls(const std::vector<int64_t> &counts,
                                  int64_t p) {
  std::vector<int64_t> d(counts.size());
  for (int64_t i = 0; i < p; ++i) {
    int64_t acc = 0;
    for (int64_t j = 0; j < p; ++j) {
      d[i * p + j] = acc;
      acc += counts[i * p + j];
    }
  }
  return d;
}

Status checkAllToAllV(const GenerateRequest &req) {
  const int64_t p = req.ranks;
  if (req.sendCounts.empty())
    return Status::ok();
  if (p > 4096)
    return Status::error("alltoallv: at most 4096 ranks (its tables hold p*p "
                         "entries), found " +
                         std::to_string(p));
  size_t pp = static_cast<size_t>(p * p);
  if (req.sendCounts.size() != pp)
    return Status::error("alltoallv: send counts hold " +
                         std::to_string(req.sendCounts.size()) +
                         " entries, expected p*p = " + std::to_string(pp));
  for (const auto *v : {&req.sendDispls, &req.recvDispls})
    if (!v->empty() && v->size() != pp)
      return Status::error("alltoallv: displacements hold " +
                           std::to_string(v->size()) +
                           " entries, expected p*p = " + std::to_string(pp));
  for (size_t i = 0; i < pp; ++i) {
    if (req.sendCounts[i] < 0 || req.sendCounts[i] > kMaxCount)
      return Status::error("alltoallv: send count [" + std::to_string(i / p) +
                           "][" + std::to_string(i % p) +
                           "] = " + std::to_string(req.sendCounts[i]) +
                           " outside 0.." + std::to_string(kMaxCount));
    for (const auto *v : {&req.sendDispls, &req.recvDispls})
      if (!v->empty() && ((*v)[i] < 0 || (*v)[i] > kMaxCount))
        return Status::error(
            "alltoallv: displacement [" + std::to_string(i / p) + "][" +
            std::to_string(i % p) + "] = " + std::to_string((*v)[i]) +
            " outside 0.." + std::to_string(kMaxCount));
  }
  return Status::ok();
}

} // namespace

std::vector<Algorithm> algorithmsFor(Collective c) {
  using A = Algorithm;
  switch (c) {
  case Collective::AllReduce:
    return {A::Ring, A::MeshTwoShot,       A::MeshOneShot,
            A::RHD,  A::RecursiveDoubling, A::Hierarchical};
  case Collective::ReduceScatter:
  case Collective::AllGather:
    return {A::Ring, A::MeshTwoShot, A::RHD, A::Hierarchical};
  case Collective::Broadcast:
  case Collective::Reduce:
    return {A::Ring, A::Tree, A::Star, A::Hierarchical};
  case Collective::AllToAll:
  case Collective::AllToAllV:
    return {A::Pairwise, A::MeshTwoShot};
  case Collective::Permute: // one exchange with each rank's partners
    return {A::Pairwise};
  }
  return {};
}

std::vector<Algorithm> levelAlgorithmsFor(Collective c, int level) {
  using A = Algorithm;
  switch (c) {
  case Collective::AllReduce:
    if (level == 0) // runs as reduce-scatter + all-gather
      return {A::Ring, A::MeshTwoShot, A::RHD};
    return {A::Ring, A::MeshTwoShot, A::MeshOneShot, A::RHD,
            A::RecursiveDoubling};
  case Collective::ReduceScatter:
  case Collective::AllGather:
    return {A::Ring, A::MeshTwoShot, A::RHD};
  case Collective::Broadcast:
  case Collective::Reduce:
    return {A::Ring, A::Tree, A::Star};
  default:
    return {};
  }
}

Status checkRequest(const GenerateRequest &req) {
  if (collectiveName(req.collective) == std::string("invalid"))
    return Status::error("unknown collective");
  if (req.ranks < 1 || req.ranks > kMaxRanks)
    return Status::error("ranks must be in 1.." + std::to_string(kMaxRanks) +
                         ", found " + std::to_string(req.ranks));
  if (req.count < 0 || req.count > kMaxCount)
    return Status::error("count must be in 0.." + std::to_string(kMaxCount) +
                         ", found " + std::to_string(req.count));
  if (dataTypeSize(req.dtype) == 0)
    return Status::error("unknown data type");
  if (reduceOpName(req.reduceOp) == std::string("invalid"))
    return Status::error("unknown reduction operator");
  if (req.slices < 1 || req.slices > (1 << 20))
    return Status::error("slices must be in 1..1048576, found " +
                         std::to_string(req.slices));
  if (req.chunks < 0 || req.chunks > (1 << 20))
    return Status::error("chunks must be in 0..1048576, found " +
                         std::to_string(req.chunks));
  if (req.root < 0 || req.root >= req.ranks)
    return Status::error("root " + std::to_string(req.root) + " outside 0.." +
                         std::to_string(req.ranks - 1));
  Algorithm a = canonical(req.collective, req.algorithm);
  std::vector<Algorithm> ok = algorithmsFor(req.collective);
  if (!contains(ok, a))
    return Status::error(std::string("algorithm '") +
                         algorithmName(req.algorithm) + "' cannot serve " +
                         collectiveName(req.collective) +
                         " (valid: " + names(ok) + ")");
  // (p*n must stay representable for the collectives whose buffers hold p
  // blocks; kMaxRanks * kMaxCount < 2^61.)
  if (Status s = checkBlockLayout(req.collective, req.count, req.inputOuter,
                                  req.outputOuter);
      !s)
    return s;
  bool rows = req.inputOuter > 1 || req.outputOuter > 1;
  if (rows && a == Algorithm::Hierarchical)
    return Status::error("hierarchical algorithms move blocks of the leading "
                         "dimension only (a block layout with outer > 1 needs "
                         "a flat algorithm)");
  if (rows && req.collective == Collective::AllToAllV)
    return Status::error("all-to-allv has no block layout");
  if (req.collective == Collective::Permute) {
    if (static_cast<int64_t>(req.permuteTargets.size()) != req.ranks)
      return Status::error(
          "permute: " + std::to_string(req.permuteTargets.size()) +
          " targets for " + std::to_string(req.ranks) +
          " ranks (one per rank, -1 for none)");
    std::vector<char> hit(static_cast<size_t>(req.ranks), 0);
    for (int64_t r = 0; r < req.ranks; ++r) {
      int64_t t = req.permuteTargets[static_cast<size_t>(r)];
      if (t < -1 || t >= req.ranks)
        return Status::error("permute: rank " + std::to_string(r) +
                             "'s target " + std::to_string(t) +
                             " is outside -1.." +
                             std::to_string(req.ranks - 1));
      if (t >= 0 && hit[static_cast<size_t>(t)]++)
        return Status::error("permute: rank " + std::to_string(t) +
                             " is the target of two ranks");
    }
  } else if (!req.permuteTargets.empty()) {
    return Status::error("permute targets given for " +
                         std::string(collectiveName(req.collective)));
  }
  if (a == Algorithm::Hierarchical) {
    int64_t m = req.ranksPerServer;
    if (m < 1)
      return Status::error("hierarchical: ranks per server must be >= 1, "
                           "found " +
                           std::to_string(m));
    if (req.ranks % m != 0)
      return Status::error("hierarchical: " + std::to_string(req.ranks) +
                           " ranks are not a multiple of " + std::to_string(m) +
                           " ranks per server");
    for (int lv = 0; lv < 2; ++lv) {
      Algorithm la = canonical(req.collective, lv ? req.level1 : req.level0);
      std::vector<Algorithm> lok = levelAlgorithmsFor(req.collective, lv);
      if (!contains(lok, la))
        return Status::error(
            "hierarchical: level" + std::to_string(lv) + " algorithm '" +
            algorithmName(lv ? req.level1 : req.level0) + "' cannot serve " +
            collectiveName(req.collective) + " (valid: " + names(lok) + ")");
    }
  }
  if (req.collective == Collective::AllToAllV)
    return checkAllToAllV(req);
  if (!req.sendCounts.empty())
    return Status::error("send counts are only meaningful for alltoallv");
  return Status::ok();
}

Result<Program> generate(const GenerateRequest &reqIn) {
  if (Status s = checkRequest(reqIn); !s)
    return Result<Program>(s);
  GenerateRequest req = reqIn;
  req.algorithm = canonical(req.collective, req.algorithm);
  req.level0 = canonical(req.collective, req.level0);
  req.level1 = canonical(req.collective, req.level1);
  const int64_t p = req.ranks;

  Program prog;
  prog.collective = req.collective;
  prog.algorithm = req.algorithm;
  if (req.algorithm == Algorithm::Hierarchical) {
    prog.level0 = req.level0;
    prog.level1 = req.level1;
  }
  prog.dtype = req.dtype;
  prog.reduceOp = req.reduceOp;
  prog.p = p;
  prog.n = req.count;
  prog.root = req.root;
  prog.slices = req.slices;
  prog.inputOuter = req.inputOuter;
  prog.outputOuter = req.outputOuter;

  ProgramBuilder b(std::move(prog));
  gen::Gen G(b, req);
  E r = b.r(), pE = b.p(), n = b.n();
  GroupView flat{r, p, pE, [](E x) { return x; }, {}};
  Region in{BufferId::Input, b.c(0)}, out{BufferId::Output, b.c(0)};
  E inSize = n, outSize = n;
  Status st;
  bool hier = req.algorithm == Algorithm::Hierarchical;
  switch (req.collective) {
  case Collective::AllReduce:
    st = hier ? gen::hierarchical(G, req)
              : gen::genAllReduce(G, req.algorithm, flat, in, out, n);
    break;
  case Collective::ReduceScatter: {
    // Block layout: my block is `outer` rows of n / outer (packed in the
    // output), block i of the input row-interleaved (gen::rowsLayout).
    inSize = pE * n;
    E rows = b.c(req.inputOuter);
    st = hier ? gen::hierarchical(G, req)
              : gen::genReduceScatter(
                    G, req.algorithm, flat, in,
                    gen::rowsLayout(n, req.inputOuter, p, pE, rows),
                    gen::packed(out, n / rows), nullptr);
    break;
  }
  case Collective::AllGather: {
    outSize = pE * n;
    E rows = b.c(req.outputOuter);
    st = hier ? gen::hierarchical(G, req)
              : gen::genAllGather(
                    G, req.algorithm, flat, gen::packed(in, n / rows), out,
                    gen::rowsLayout(n, req.outputOuter, p, pE, rows));
    break;
  }
  case Collective::Broadcast:
  case Collective::Reduce: {
    if (hier) {
      st = gen::hierarchical(G, req);
      break;
    }
    E root = b.param("root", req.root);
    st = req.collective == Collective::Broadcast
             ? gen::genBroadcast(G, req.algorithm, flat, root, in, out, n)
             : gen::genReduce(G, req.algorithm, flat, root, in, out, n);
    break;
  }
  case Collective::AllToAll:
  case Collective::AllToAllV: {
    gen::AllToAllShape sh;
    if (req.collective == Collective::AllToAll || req.sendCounts.empty()) {
      sh.sendOff = sh.recvOff = [n](E j) { return j * n; };
      sh.sendCnt = sh.recvCnt = [n](E) { return n; };
      inSize = outSize = pE * n;
      // Block layouts (a split or concat dimension that is not leading):
      // the finer side's rows are the pieces; the other side's rows hold
      // whole pieces, since one side's row length divides the other's.
      int64_t pieces = std::max(req.inputOuter, req.outputOuter);
      if (pieces > 1) {
        sh.pieces = pieces;
        E len = n / b.c(pieces);
        auto at = [len, n, pE, &b](int64_t outer) {
          return [len, n, pE, outer, &b](E k, E j) {
            E i = j * len;
            if (outer <= 1)
              return k * n + i;
            E row = n / b.c(outer);
            return (i / row * pE + k) * row + i % row;
          };
        };
        sh.sendPiece = at(req.inputOuter);
        sh.recvPiece = at(req.outputOuter);
      }
      if (req.collective == Collective::AllToAllV) {
        // Uniform counts still travel as tables, as alltoallv plans do.
        std::vector<int64_t> counts(static_cast<size_t>(p * p), req.count);
        GenerateRequest copy = req;
        copy.sendCounts = counts;
        return generate(copy);
      }
    } else {
      const std::vector<int64_t> &sc = req.sendCounts;
      std::vector<int64_t> rc(sc.size());
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < p; ++j)
          rc[i * p + j] = sc[j * p + i];
      std::vector<int64_t> sd =
          req.sendDispls.empty() ? packedDispls(sc, p) : req.sendDispls;
      std::vector<int64_t> rd =
          req.recvDispls.empty() ? packedDispls(rc, p) : req.recvDispls;
      std::vector<int64_t> inSz(p, 0), outSz(p, 0);
      int64_t maxCount = 0;
      for (int64_t i = 0; i < p; ++i)
        for (int64_t j = 0; j < p; ++j) {
          inSz[i] = std::max(inSz[i], sd[i * p + j] + sc[i * p + j]);
          outSz[i] = std::max(outSz[i], rd[i * p + j] + rc[i * p + j]);
          maxCount = std::max(maxCount, sc[i * p + j]);
        }
      b.program().n = maxCount;
      uint32_t tSc = b.addTable(sc), tSd = b.addTable(sd);
      uint32_t tRc = b.addTable(rc), tRd = b.addTable(rd);
      uint32_t tIn = b.addTable(inSz), tOut = b.addTable(outSz);
      auto at = [&b, r, pE](uint32_t tbl) {
        return [&b, r, pE, tbl](E j) { return b.tableAt(tbl, r * pE + j); };
      };
      sh.sendCnt = at(tSc);
      sh.sendOff = at(tSd);
      sh.recvCnt = at(tRc);
      sh.recvOff = at(tRd);
      inSize = b.tableAt(tIn, r);
      outSize = b.tableAt(tOut, r);
    }
    if (req.algorithm == Algorithm::Pairwise)
      gen::pairwiseAllToAll(G, flat, sh);
    else
      gen::meshAllToAll(G, flat, sh);
    break;
  }
  case Collective::Permute: {
    std::vector<int64_t> sources(static_cast<size_t>(p), -1);
    for (int64_t r = 0; r < p; ++r)
      if (int64_t t = req.permuteTargets[static_cast<size_t>(r)]; t >= 0)
        sources[static_cast<size_t>(t)] = r;
    E target = b.tableAt(b.addTable(req.permuteTargets), r);
    E source = b.tableAt(b.addTable(sources), r);
    gen::permute(G, flat, target, source, n);
    break;
  }
  }
  if (!st)
    return Result<Program>(st);
  b.setBufferSize(BufferId::Input, inSize);
  b.setBufferSize(BufferId::Output, outSize);
  b.setBufferSize(BufferId::Scratch, G.scratchSize());
  Program prog2 = b.take();
  if (Status v = prog2.validate(); !v)
    return Result<Program>::error("internal: generated program invalid: " +
                                  v.message());
  return prog2;
}

} // namespace hccl::sched
