//===- Hierarchical.cpp - Intra-server + inter-server composition ---------===//
//
// m ranks per server, server-major numbering. The intra-server group of r is
// r/m*m + 0..m-1 (index r%m), the inter-server group the ranks with equal r%m
// (index r/m). The flat generators run on these views:
//   all-reduce:     intra RS -> inter AR (own algorithm) -> intra AG
//   reduce-scatter: intra RS of strided blocks -> inter RS
//   all-gather:     inter AG -> intra AG of strided blocks
//   broadcast:      inter bcast among root's local index -> intra bcast
//   reduce:         intra reduce to the local root -> inter reduce
// so the slow inter-server links carry 1/m of the data for RS, AG and AR.
//
//===----------------------------------------------------------------------===//
#include "GenCommon.h"

namespace hccl::sched::gen {

Status hierarchical(Gen &G, const GenerateRequest &req) {
  const int64_t p = req.ranks, m = req.ranksPerServer, servers = p / m;
  ProgramBuilder &b = G.b;
  E r = b.r(), mE = b.param("m", m), n = b.n();
  E srvE = b.p() / mE;
  GroupView intra{r % mE, m, mE, [r, mE](E x) { return r - r % mE + x; }, {}};
  GroupView inter{
      r / mE, servers, srvE, [r, mE](E x) { return x * mE + r % mE; }, {}};
  E me0 = intra.me;
  Region in{BufferId::Input, b.c(0)}, out{BufferId::Output, b.c(0)};
  // Block i of server j's share in a p-block vector: strided over servers.
  auto strided = [&]() {
    Layout L;
    L.pieces = servers;
    L.off = [mE, n](E i, E j) { return (j * mE + i) * n; };
    L.cnt = [n](E) { return n; };
    L.maxCnt = n;
    L.total = b.p() * n;
    return L;
  };
  auto level = [&](int lv) { G.prefix = lv == 0 ? "l0_" : "l1_"; };
  Status st;
  switch (req.collective) {
  case Collective::AllReduce: {
    Layout L0 = splitLayout(n, m, mE);
    Placement mine = atBlock(out, L0, me0);
    level(0);
    if (!(st = genReduceScatter(G, req.level0, intra, in, L0, mine, &out)))
      return st;
    level(1);
    Region blk{BufferId::Output, L0.off(me0, b.c(0))};
    if (!(st = genAllReduce(G, req.level1, inter, blk, blk, L0.cnt(me0))))
      return st;
    level(0);
    return genAllGather(G, req.level0, intra, mine, out, L0);
  }
  case Collective::ReduceScatter: {
    Region part{BufferId::Scratch, G.alloc(srvE * n)};
    level(0);
    if (!(st = genReduceScatter(G, req.level0, intra, in, strided(),
                                packed(part, n), nullptr)))
      return st;
    level(1);
    return genReduceScatter(G, req.level1, inter, part,
                            uniformLayout(n, servers, srvE), packed(out, n),
                            nullptr);
  }
  case Collective::AllGather: {
    Layout L0 = strided();
    if (req.level1 == Algorithm::RHD) {
      // RHD needs consecutive blocks: gather the servers' blocks packed in
      // scratch, then spread them with the intra-server all-gather.
      Region part{BufferId::Scratch, G.alloc(srvE * n)};
      level(1);
      if (!(st = genAllGather(G, req.level1, inter, packed(in, n), part,
                              uniformLayout(n, servers, srvE))))
        return st;
      level(0);
      return genAllGather(G, req.level0, intra, packed(part, n), out, L0);
    }
    // Otherwise gather straight into the output: server i's block of my
    // local index sits at (i*m + r%m)*n.
    Layout L1;
    L1.pieces = 1;
    L1.off = [mE, n, me0](E i, E) { return (i * mE + me0) * n; };
    L1.cnt = [n](E) { return n; };
    L1.maxCnt = n;
    L1.total = b.p() * n;
    level(1);
    if (!(st = genAllGather(G, req.level1, inter, packed(in, n), out, L1)))
      return st;
    level(0);
    return genAllGather(G, req.level0, intra, atBlock(out, L0, me0), out, L0);
  }
  case Collective::Broadcast: {
    GroupView leaders = inter;
    leaders.active = eq(me0, b.c(req.root % m));
    level(1);
    if (!(st = genBroadcast(G, req.level1, leaders, b.c(req.root / m), in, out,
                            n)))
      return st;
    level(0);
    return genBroadcast(G, req.level0, intra, b.c(req.root % m), out, out, n);
  }
  case Collective::Reduce: {
    Region part{BufferId::Scratch, G.alloc(n)};
    level(0);
    if (!(st = genReduce(G, req.level0, intra, b.c(req.root % m), in, part, n)))
      return st;
    GroupView leaders = inter;
    leaders.active = eq(me0, b.c(req.root % m));
    level(1);
    return genReduce(G, req.level1, leaders, b.c(req.root / m), part, out, n);
  }
  default:
    return Status::error(std::string("hierarchical: ") +
                         collectiveName(req.collective) +
                         " has no "
                         "hierarchical algorithm (use pairwise or mesh)");
  }
}

} // namespace hccl::sched::gen
