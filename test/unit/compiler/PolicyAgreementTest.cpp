//===- PolicyAgreementTest.cpp - Compiler and runtime choose alike --------===//
//
// comm-select-algorithm (the compiler) and a runtime communicator's
// AlgorithmPolicy (what HcclAllReduce & co. run) must pick the same
// algorithm for the same group, size and topology: both place the group and
// select through lib/schedule. Every case below goes through both: groups
// that fill or split servers, one or two ranks per server, interleaved and
// irregular groups, sizes from bytes to gigabytes, two element types, every
// collective with a closed form, on one- and multi-server topologies.
//
//===----------------------------------------------------------------------===//
#include "PassTestUtil.h"

#include "core/AlgorithmPolicy.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <iostream>
#include <string>
#include <vector>

using namespace mlir;
using namespace hccl::testing;
namespace sched = hccl::sched;

namespace {

using Group = std::vector<std::vector<int64_t>>;

std::vector<int64_t> iota(int64_t from, int64_t n, int64_t stride = 1) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(from + i * stride);
  return v;
}

/// Group shapes on `servers` servers of `d` devices.
std::vector<Group> groupsFor(int64_t servers, int64_t d) {
  std::vector<Group> g = {{iota(0, servers * d)}, {iota(0, d)}};
  if (d >= 4) {
    g.push_back({iota(0, d / 2)});
    g.push_back({iota(1, d / 2, 2)}); // every other device of one server
  }
  if (servers > 1) {
    g.push_back({iota(0, servers, d)}); // one rank per server
    std::vector<int64_t> two, interleaved, irregular = iota(0, d);
    for (int64_t s = 0; s < servers; ++s)
      for (int64_t k = 0; k < 2 && k < d; ++k)
        two.push_back(s * d + k);
    g.push_back({two});
    for (int64_t k = 0; k < 2 && k < d; ++k)
      for (int64_t s = 0; s < 2; ++s)
        interleaved.push_back(s * d + k);
    g.push_back({interleaved});
    irregular.push_back(d); // a full server and one rank of the next
    g.push_back({irregular});
    g.push_back({iota(0, d), iota(d, d)}); // two communicators, one each
  }
  return g;
}

struct Coll {
  sched::Collective kind;
  const char *text;
};

const Coll kColls[] = {
    {sched::Collective::AllReduce, "all_reduce"},
    {sched::Collective::AllGather, "all_gather"},
    {sched::Collective::ReduceScatter, "reduce_scatter"},
    {sched::Collective::Broadcast, "broadcast"},
    {sched::Collective::Reduce, "reduce"},
    {sched::Collective::AllToAll, "all_to_all"},
};

/// One collective of HCCL count `n` on group @g, as comm IR.
std::string opText(const Coll &c, int64_t n, int64_t p, const char *et,
                   int id) {
  auto t = [&](int64_t k) {
    return "tensor<" + std::to_string(k) + "x" + et + ">";
  };
  std::string x = "%x" + std::to_string(id), r = "%r" + std::to_string(id);
  std::string g = " on @g";
  switch (c.kind) {
  case sched::Collective::AllReduce:
    return r + " = comm.all_reduce sum " + x + g + " : " + t(n);
  case sched::Collective::AllGather:
    return r + " = comm.all_gather " + x + g + " dim 0 : " + t(n) + " -> " +
           t(n * p);
  case sched::Collective::ReduceScatter:
    return r + " = comm.reduce_scatter sum " + x + g + " dim 0 : " + t(n * p) +
           " -> " + t(n);
  case sched::Collective::Broadcast:
    return r + " = comm.broadcast " + x + g + " root 0 : " + t(n);
  case sched::Collective::Reduce:
    return r + " = comm.reduce sum " + x + g + " root 0 : " + t(n);
  default:
    return r + " = comm.all_to_all " + x + g +
           " split_dim 0 concat_dim 0 : " + t(n * p) + " -> " + t(n * p);
  }
}

std::string inputType(const Coll &c, int64_t n, int64_t p, const char *et) {
  bool whole = c.kind == sched::Collective::ReduceScatter ||
               c.kind == sched::Collective::AllToAll;
  return "tensor<" + std::to_string(whole ? n * p : n) + "x" + et + ">";
}

std::string groupText(const Group &g) {
  auto list = [](const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  if (g.size() == 1)
    return list(g[0]);
  std::string s = "[";
  for (size_t i = 0; i < g.size(); ++i)
    s += (i ? ", " : "") + list(g[i]);
  return s + "]";
}

std::string choiceText(sched::Algorithm a, sched::Algorithm l0,
                       sched::Algorithm l1) {
  std::string s = sched::algorithmName(a);
  if (a == sched::Algorithm::Hierarchical)
    s += std::string("(") + sched::algorithmName(l0) + ", " +
         sched::algorithmName(l1) + ")";
  return s;
}

struct TopoCase {
  const char *name;
  sched::Topology topo;
};

std::vector<TopoCase> topologies() {
  std::vector<TopoCase> out;
  // 910d-8x4-pod2: super pods, where a hierarchy may split at the pod.
  for (const char *p :
       {"910b-8", "910b-8x2", "910b-8x4", "host-8", "910d-8x4-pod2"})
    out.push_back({p, *sched::Topology::preset(p)});
  // What a runtime communicator of 4 hosts x 2 processes builds without a
  // rank table.
  out.push_back(
      {"hosts 4x2", *sched::Topology::hosts({0, 0, 1, 1, 2, 2, 3, 3})});
  return out;
}

TEST(PolicyAgreement, CompilerAndRuntimeChooseTheSameAlgorithm) {
  const int64_t counts[] = {1, 1000, 65536, 1 << 22, 1 << 28};
  const char *types[] = {"f32", "f16"};
  int compared = 0, hierarchical = 0, flatAcross = 0, podSplit = 0;
  for (const TopoCase &tc : topologies()) {
    const sched::Topology &topo = tc.topo;
    for (const Group &group : groupsFor(topo.servers, topo.devicesPerServer)) {
      int64_t p = static_cast<int64_t>(group[0].size());
      // The compiler: one module per topology and group, every collective,
      // size and type on it, through comm-select-algorithm.
      std::string args, body, results, resultTypes;
      int id = 0;
      struct Item {
        const Coll *coll;
        int64_t n;
        size_t elemBytes;
      };
      std::vector<Item> items;
      for (const Coll &c : kColls)
        for (int64_t n : counts)
          for (const char *et : types) {
            if (c.kind == sched::Collective::AllToAll && n * p > (1 << 28))
              continue;
            args += std::string(id ? ", " : "") + "%x" + std::to_string(id) +
                    ": " + inputType(c, n, p, et);
            body += "    " + opText(c, n, p, et, id) + "\n";
            items.push_back({&c, n, std::string(et) == "f16" ? 2u : 4u});
            ++id;
          }
      MLIRContext ctx;
      loadDialects(ctx);
      std::string text = "comm.group @g ranks = " + groupText(group) +
                         "\nfunc.func @f(" + args + ") {\n" + body +
                         "    return\n}\n";
      std::string diags;
      OwningOpRef<ModuleOp> m;
      {
        llvm::raw_string_ostream os(diags);
        ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
          os << d << "\n";
          return success();
        });
        m = parseSourceString<ModuleOp>(text, &ctx);
      }
      ASSERT_TRUE(m) << diags << "\n" << text;
      (*m)->setAttr(comm::CommDialect::getTopologyAttrName(),
                    comm::TopologyAttr::get(&ctx, topo));
      ASSERT_TRUE(succeeded(runPipeline(*m, "comm-select-algorithm", &diags)))
          << tc.name << " group " << groupText(group) << ": " << diags;
      std::vector<comm::AlgorithmAttr> chosen;
      m->walk([&](comm::CollectiveOpInterface op) {
        chosen.push_back(op.getAlgorithm());
      });
      ASSERT_EQ(chosen.size(), items.size());

      // The runtime: a communicator per subgroup, as HcclCommInitRootInfo,
      // a rank table or HcclCreateSubCommConfig would build it.
      for (const std::vector<int64_t> &members : group) {
        auto policy = hccl::rt::AlgorithmPolicy::create(topo, members,
                                                        hccl::rt::Config{});
        ASSERT_TRUE(policy.isOk()) << policy.status().message();
        for (size_t i = 0; i < items.size(); ++i) {
          const Item &it = items[i];
          auto rt = policy->choose(it.coll->kind,
                                   static_cast<uint64_t>(it.n) * it.elemBytes,
                                   it.elemBytes);
          ASSERT_TRUE(rt.isOk()) << rt.status().message();
          ASSERT_TRUE(chosen[i]);
          std::string want =
              choiceText(chosen[i].getKind(), chosen[i].getLevel0(),
                         chosen[i].getLevel1()) +
              (chosen[i].getPodSplit() ? " split at the pod" : "");
          std::string got = choiceText(rt->algorithm, rt->level0, rt->level1) +
                            (rt->podSplit ? " split at the pod" : "");
          EXPECT_EQ(got, want)
              << tc.name << " group " << groupText(group) << " "
              << it.coll->text << " of " << it.n << " x " << it.elemBytes
              << " bytes: runtime " << got << ", compiler " << want;
          ++compared;
          hierarchical += rt->algorithm == sched::Algorithm::Hierarchical;
          podSplit += rt->podSplit;
          flatAcross += rt->algorithm != sched::Algorithm::Hierarchical &&
                        policy->placement().servers > 1;
        }
      }
    }
  }
  std::cout << compared << " cases, " << hierarchical << " hierarchical ("
            << podSplit << " split at the pod), " << flatAcross
            << " flat across servers\n";
  // The cases reach both kinds of choice across servers.
  EXPECT_GT(compared, 2000);
  EXPECT_GT(hierarchical, 50);
  EXPECT_GT(flatAcross, 50);
  EXPECT_GT(podSplit, 0);
}

TEST(PolicyAgreement, PlacementFollowsTheRanksNotTheirCount) {
  sched::Topology t = *sched::Topology::preset("910b-8x2");
  auto even = sched::placeGroup(t, {{0, 1, 8, 9}});
  ASSERT_TRUE(even.isOk());
  EXPECT_EQ(even->ranksPerServer, 2);
  EXPECT_EQ(even->servers, 2);
  // Two ranks on each server, but group-local ranks 0 and 1 lie on
  // different servers: a hierarchical program would run its level0 across
  // them.
  auto interleaved = sched::placeGroup(t, {{0, 8, 1, 9}});
  ASSERT_TRUE(interleaved.isOk());
  EXPECT_EQ(interleaved->ranksPerServer, 0);
  EXPECT_EQ(interleaved->servers, 2);
  auto outside = sched::placeGroup(t, {{0, 16}});
  ASSERT_FALSE(outside.isOk());
  EXPECT_EQ(outside.message(),
            "rank 16 does not fit the topology (16 ranks: 0..15)");
}

} // namespace
