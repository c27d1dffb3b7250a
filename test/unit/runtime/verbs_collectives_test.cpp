//===- verbs_collectives_test.cpp - The collective suite over RoCE --------===//
//
// The runtime's collectives run over the verbs transport on the fake
// libibverbs, element-exact against rt_reference.h:
//  - every link verbs (HCCL_TRANSPORT=verbs), p in {2, 3, 4}: every
//    collective x every algorithm of lib/schedule (plus the API's choice) x
//    counts from 0 to several slot rings (credits wrap many times);
//  - two "servers" (HCCL_FAKE_HOST_ID) of two ranks: shm inside a server,
//    verbs between, hierarchical algorithms included;
//  - HCCL_RDMA_QPS_PER_CONNECTION=4 (chunks striped over queue pairs);
//  - the registration cache: registered and HcclMemAlloc'd buffers go out
//    zero-copy, malloc'd ones through the bounce ring, a deregistered range
//    stops being used;
//  - point-to-point in both directions at once.
//
//===----------------------------------------------------------------------===//
#include "rt_collective_runner.h"
#include "verbs_env.h"

using namespace rtest;

namespace {

const Collective kColls[] = {Collective::AllReduce, Collective::ReduceScatter,
                             Collective::AllGather, Collective::Broadcast,
                             Collective::Reduce,    Collective::AllToAll,
                             Collective::AllToAllV};

/// Every collective x algorithm x count on this communicator.
std::string runMatrix(HcclComm comm, int rank, int p,
                      const std::vector<uint64_t> &counts) {
  int variant = 0;
  for (Collective coll : kColls)
    for (uint64_t count : counts)
      for (const AlgoChoice &a : algoChoices(coll, p)) {
        RunSpec s;
        s.coll = coll;
        s.algo = a;
        // Large counts in fp32 sum; small ones rotate types and operators.
        bool big = count > 4096;
        const DataType smallTypes[] = {DataType::Bf16, DataType::Int32,
                                       DataType::Fp64, DataType::Int8};
        const ReduceOp ops[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max,
                                ReduceOp::Min};
        s.dtype = big ? DataType::Fp32 : smallTypes[variant % 4];
        s.op = hccl::sched::isReduction(coll)
                   ? (big ? ReduceOp::Sum : ops[variant % 4])
                   : ReduceOp::Sum;
        s.count = count;
        s.root = static_cast<int>((count * 3 + 1) % static_cast<uint64_t>(p));
        s.inPlace = supportsInPlace(coll) && variant % 3 == 1;
        s.sharedMem = variant % 2 == 1;
        ++variant;
        std::string err = runOne(comm, rank, p, s);
        if (!err.empty())
          return err;
      }
  return "";
}

class VerbsCollectives : public VerbsFixture {};

} // namespace

TEST_F(VerbsCollectives, EveryAlgorithmOverVerbs) {
  for (int p : {2, 3, 4}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    auto body = [](RankCtx &c) -> std::string {
      HcclComm comm;
      RT_OK(c.initComm(&comm));
      std::string e =
          checkLinks(comm, c.rank, c.size, [](int) { return "verbs"; });
      if (!e.empty())
        return e;
      // 0, 1, odd, 3p+1, and 1.25 M elements (5 MiB of fp32: the 2 MiB
      // receive ring wraps, credits flow back many times).
      std::vector<uint64_t> counts = {
          0, 1, 7, static_cast<uint64_t>(c.size) * 3 + 1, (5u << 20) / 4 + 3};
      e = runMatrix(comm, c.rank, c.size, counts);
      if (!e.empty())
        return e;
      RT_OK(HcclCommDestroy(comm));
      return "";
    };
    EXPECT_EQ(runRanks(p, body, verbsOpts()), "");
  }
}
