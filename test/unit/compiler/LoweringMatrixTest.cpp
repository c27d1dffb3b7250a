//===- LoweringMatrixTest.cpp - Every algorithm, lowered and verified ----===//
//
// Every collective x algorithm (hierarchical: every level pair) on
// multi-server topologies goes through comm-lower-schedule and
// comm-verify-schedule. lib/schedule's tests prove the generated programs;
// this proves their IR emission (the pass manager verifies the IR after
// each pass, so a value used outside its scope fails here) and that the
// program read back from the IR still verifies on every rank.
//
//===----------------------------------------------------------------------===//
#include "PassTestUtil.h"

#include "hccl-mlir/Dialect/Comm/CommOps.h"
#include "hccl-mlir/schedule/Generate.h"

#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace hccl::testing;
namespace sched = hccl::sched;

namespace {

struct Case {
  const char *topology; ///< a 910b-8xN preset
  int64_t p;
  sched::Collective collective;
  sched::Algorithm algorithm, level0, level1;
  int64_t root;
};

std::vector<Case> allCases() {
  using C = sched::Collective;
  std::vector<Case> cases;
  for (auto [topo, p] :
       {std::pair{"910b-8x2", int64_t(16)}, std::pair{"910b-8x4", int64_t(32)}})
    for (C c : {C::AllReduce, C::AllGather, C::ReduceScatter, C::Broadcast,
                C::Reduce, C::AllToAll}) {
      bool rooted = c == C::Broadcast || c == C::Reduce;
      // Root 11 sits on the second server, off its first device.
      for (int64_t root :
           rooted ? std::vector<int64_t>{0, 11} : std::vector<int64_t>{0})
        for (sched::Algorithm a : sched::algorithmsFor(c)) {
          if (a != sched::Algorithm::Hierarchical) {
            cases.push_back({topo, p, c, a, a, a, root});
            continue;
          }
          for (sched::Algorithm l0 : sched::levelAlgorithmsFor(c, 0))
            for (sched::Algorithm l1 : sched::levelAlgorithmsFor(c, 1))
              cases.push_back({topo, p, c, a, l0, l1, root});
        }
    }
  return cases;
}

std::string algoText(const Case &c) {
  if (c.algorithm != sched::Algorithm::Hierarchical)
    return sched::algorithmName(c.algorithm);
  return std::string("hierarchical(") + sched::algorithmName(c.level0) + ", " +
         sched::algorithmName(c.level1) + ")";
}

/// One collective on a group of all p ranks. Counts are not multiples of
/// the ranks per server or of p.
std::string moduleText(const Case &c) {
  using C = sched::Collective;
  auto tensor = [](int64_t n) {
    return "tensor<" + std::to_string(n) + "xf32>";
  };
  std::string algo = " algo <" + algoText(c) + ">";
  std::string root = " root " + std::to_string(c.root);
  int64_t block = 5, whole = 37;
  std::string in, out, op;
  switch (c.collective) {
  case C::AllReduce:
    in = out = tensor(whole);
    op = "comm.all_reduce sum %x on @w" + algo + " : " + in;
    break;
  case C::AllGather:
    in = tensor(block);
    out = tensor(block * c.p);
    op = "comm.all_gather %x on @w dim 0" + algo + " : " + in + " -> " + out;
    break;
  case C::ReduceScatter:
    in = tensor(block * c.p);
    out = tensor(block);
    op = "comm.reduce_scatter sum %x on @w dim 0" + algo + " : " + in + " -> " +
         out;
    break;
  case C::Broadcast:
    in = out = tensor(whole);
    op = "comm.broadcast %x on @w" + root + algo + " : " + in;
    break;
  case C::Reduce:
    in = out = tensor(whole);
    op = "comm.reduce max %x on @w" + root + algo + " : " + in;
    break;
  default:
    in = out = tensor(block * c.p);
    op = "comm.all_to_all %x on @w split_dim 0 concat_dim 0" + algo + " : " +
         in + " -> " + out;
    break;
  }
  std::string ranks;
  for (int64_t r = 0; r < c.p; ++r)
    ranks += (r ? ", " : "") + std::to_string(r);
  return std::string("module attributes {comm.topology = #comm.topology<\"") +
         c.topology + "\">} {\n  comm.group @w ranks = [" + ranks +
         "]\n  func.func @f(%x: " + in + ") -> " + out + " {\n    %0 = " + op +
         "\n    return %0 : " + out + "\n  }\n}\n";
}

// gtest prints a failing parameter with this instead of its bytes.
void PrintTo(const Case &c, std::ostream *os) {
  *os << sched::collectiveName(c.collective) << " algo <" << algoText(c)
      << "> root " << c.root << " on " << c.topology;
}

class LoweringMatrix : public ::testing::TestWithParam<Case> {};

TEST_P(LoweringMatrix, LowersToVerifiedIR) {
  const Case &c = GetParam();
  std::string text = moduleText(c);
  MLIRContext ctx;
  loadDialects(ctx);
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
  ASSERT_TRUE(succeeded(
      runPipeline(*m, "comm-lower-schedule,comm-verify-schedule", &diags)))
      << diags << "\nin:\n"
      << text;
  int programs = 0, schedules = 0;
  m->walk([&](Operation *op) {
    programs += isa<comm::ProgramOp>(op);
    schedules += isa<comm::ScheduleOp>(op);
  });
  EXPECT_EQ(programs, 1) << print(*m);
  EXPECT_EQ(schedules, 1) << print(*m);
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  const Case &c = info.param;
  std::string s = std::string(c.topology + 5) + "_" + // "8x2"
                  sched::collectiveName(c.collective) + "_" +
                  sched::algorithmName(c.algorithm);
  if (c.algorithm == sched::Algorithm::Hierarchical)
    s += std::string("_") + sched::algorithmName(c.level0) + "_" +
         sched::algorithmName(c.level1);
  if (c.root)
    s += "_root" + std::to_string(c.root);
  for (char &ch : s)
    if (!isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(MultiServer, LoweringMatrix,
                         ::testing::ValuesIn(allCases()), caseName);

} // namespace
