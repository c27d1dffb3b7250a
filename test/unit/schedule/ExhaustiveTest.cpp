//===- ExhaustiveTest.cpp - Every algorithm, many p, counts and slices ----===//
//
// Every collective x algorithm (hierarchical: every level pair and several
// ranks-per-server m) x p in 1..33, 64, 128, 256, 1000, 1024 x counts x
// slice counts is generated and verified on every rank, out of place and
// in place. To fit the CI budget the largest p (1000, 1024) use two counts
// (p-1 and 1000003), one slice setting, m = 8 and only the level pairs
// with ring on at least one level (every level algorithm still appears);
// the p list itself is complete.
//
//===----------------------------------------------------------------------===//
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

using namespace hccl::sched;

namespace {

enum class Size { Small, Medium, P1000, P1024 };

struct SizeClass {
  std::vector<int64_t> ps;
  bool fewCounts; ///< counts {p-1, 1000003} instead of all five
  std::vector<int64_t> slices;
  std::vector<int64_t> ms;    ///< ranks per server (when they divide p)
  bool ringPairsOnly = false; ///< level pairs with ring on some level
};

SizeClass sizeClass(Size s) {
  switch (s) {
  case Size::Small: {
    SizeClass c{{}, false, {1, 3}, {1, 2, 3, 4, 8}};
    for (int64_t p = 1; p <= 33; ++p)
      c.ps.push_back(p);
    return c;
  }
  case Size::Medium:
    return {{64, 128, 256}, false, {1, 2}, {8}};
  case Size::P1000:
    return {{1000}, true, {1}, {8}, true};
  case Size::P1024:
    return {{1024}, true, {1}, {8}, true};
  }
  return {};
}

std::vector<int64_t> counts(int64_t p, bool few) {
  std::set<int64_t> c;
  if (few)
    c = {p - 1, 1000003};
  else
    c = {0, 1, p - 1, p, 1000003};
  return {c.begin(), c.end()};
}

// Deterministic irregular alltoallv counts (zeros included).
std::vector<int64_t> vCounts(int64_t p, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(p * p));
  int64_t cap = std::min<int64_t>(n, 50) + 1;
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < p; ++j)
      v[i * p + j] =
          static_cast<int64_t>((static_cast<uint64_t>(i * 2654435761u) ^
                                static_cast<uint64_t>(j * 40503u + 17)) %
                               static_cast<uint64_t>(cap));
  return v;
}

struct Runner {
  int64_t cases = 0;
  std::vector<std::string> failures;

  void run(const GenerateRequest &q) {
    ++cases;
    auto prog = generate(q);
    std::string err;
    if (!prog)
      err = "generate: " + prog.message();
    else if (auto v = verify(*prog); !v)
      err = "verify: " + v.message();
    else if (!v->proven)
      err = "not proven: " + v->summary;
    if (err.empty())
      return;
    std::ostringstream os;
    os << collectiveName(q.collective) << " " << algorithmName(q.algorithm);
    if (q.algorithm == Algorithm::Hierarchical)
      os << "(" << algorithmName(q.level0) << "," << algorithmName(q.level1)
         << ", m=" << q.ranksPerServer << ")";
    os << " p=" << q.ranks << " n=" << q.count << " slices=" << q.slices << ": "
       << err;
    failures.push_back(os.str());
  }
};

class Exhaustive
    : public ::testing::TestWithParam<std::tuple<Collective, Size>> {};

TEST_P(Exhaustive, AllAlgorithmsVerify) {
  auto [c, size] = GetParam();
  SizeClass sc = sizeClass(size);
  Runner run;
  for (int64_t p : sc.ps)
    for (int64_t n : counts(p, sc.fewCounts))
      for (int64_t slices : sc.slices)
        for (Algorithm a : algorithmsFor(c)) {
          GenerateRequest q;
          q.collective = c;
          q.algorithm = a;
          q.ranks = p;
          q.count = n;
          q.slices = slices;
          q.root = (2 * p) / 3;
          if (c == Collective::AllToAllV)
            q.sendCounts = vCounts(p, n);
          if (a != Algorithm::Hierarchical) {
            run.run(q);
            continue;
          }
          std::set<int64_t> ms(sc.ms.begin(), sc.ms.end());
          if (size == Size::Small)
            ms.insert(p);
          for (int64_t m : ms) {
            if (p % m != 0)
              continue;
            q.ranksPerServer = m;
            for (Algorithm l0 : levelAlgorithmsFor(c, 0))
              for (Algorithm l1 : levelAlgorithmsFor(c, 1)) {
                if (sc.ringPairsOnly && l0 != Algorithm::Ring &&
                    l1 != Algorithm::Ring)
                  continue;
                q.level0 = l0;
                q.level1 = l1;
                run.run(q);
              }
          }
        }
  EXPECT_GT(run.cases, 0);
  RecordProperty("cases", static_cast<int>(run.cases));
  std::string report;
  for (size_t i = 0; i < run.failures.size() && i < 10; ++i)
    report += run.failures[i] + "\n";
  EXPECT_TRUE(run.failures.empty())
      << run.failures.size() << " of " << run.cases << " cases failed:\n"
      << report;
}

std::string
name(const ::testing::TestParamInfo<std::tuple<Collective, Size>> &i) {
  static const char *sizes[] = {"p1to33", "p64to256", "p1000", "p1024"};
  return std::string(collectiveName(std::get<0>(i.param))) + "_" +
         sizes[static_cast<int>(std::get<1>(i.param))];
}

INSTANTIATE_TEST_SUITE_P(
    Schedule, Exhaustive,
    ::testing::Combine(
        ::testing::Values(Collective::AllReduce, Collective::ReduceScatter,
                          Collective::AllGather, Collective::Broadcast,
                          Collective::Reduce, Collective::AllToAll,
                          Collective::AllToAllV),
        ::testing::Values(Size::Small, Size::Medium, Size::P1000, Size::P1024)),
    name);

} // namespace
