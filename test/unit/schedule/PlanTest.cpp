//===- PlanTest.cpp - Plan documents: round trips and validation ----------===//
#include "hccl-mlir/schedule/Plan.h"
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Verify.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace hccl::sched;

namespace {

Program gen(Collective c, Algorithm a, int64_t p, int64_t n) {
  GenerateRequest q;
  q.collective = c;
  q.algorithm = a;
  q.ranks = p;
  q.count = n;
  q.ranksPerServer = 2;
  q.level1 = Algorithm::RHD;
  q.root = p - 1;
  auto prog = generate(q);
  EXPECT_TRUE(prog.isOk()) << prog.message();
  return prog.take();
}

// Two programs are the same if every rank runs the same concrete ops.
void expectSameExpansion(const Program &a, const Program &b) {
  ASSERT_EQ(a.p, b.p);
  for (int64_t r = 0; r < a.p; ++r) {
    auto x = expandRank(a, r), y = expandRank(b, r);
    ASSERT_TRUE(x.isOk() && y.isOk());
    EXPECT_EQ(x->bufferSize, y->bufferSize);
    ASSERT_EQ(x->steps.size(), y->steps.size());
    ASSERT_EQ(x->ops.size(), y->ops.size());
    for (size_t i = 0; i < x->ops.size(); ++i) {
      const ConcreteOp &u = x->ops[i], &v = y->ops[i];
      EXPECT_EQ(u.kind, v.kind);
      EXPECT_EQ(u.peer, v.peer);
      EXPECT_EQ(u.dstOff, v.dstOff);
      EXPECT_EQ(u.srcOff, v.srcOff);
      EXPECT_EQ(u.count, v.count);
      EXPECT_EQ(u.srcN, v.srcN);
    }
  }
}

TEST(Plan, RoundTripsEveryForm) {
  std::vector<Program> progs = {
      gen(Collective::AllReduce, Algorithm::RHD, 6, 1001),
      gen(Collective::AllReduce, Algorithm::Hierarchical, 8, 77),
      gen(Collective::Reduce, Algorithm::Star, 5, 9),
      gen(Collective::AllToAllV, Algorithm::Pairwise, 3, 4)};
  Topology topo = *Topology::preset("910b-8x2");
  // Calibrated figures travel with the plan (operator== compares them).
  ASSERT_TRUE(topo.applyLinkParams(R"({"collective_overhead_us": 3.5,
                                       "collective_wakeup_us": 120,
                                       "collective_wakeup_idle_us": 900,
                                       "cache_bytes": [8388608, 33554432],
                                       "past_cache_factor": [1.7, 2.25]})")
                  .isOk());
  for (const Program &prog : progs)
    for (ProgramForm f :
         {ProgramForm::Compact, ProgramForm::Expanded, ProgramForm::Both}) {
      SCOPED_TRACE(std::string(algorithmName(prog.algorithm)) + " form " +
                   std::to_string(static_cast<int>(f)));
      PlanWriteOptions wo;
      wo.form = f;
      auto text = writeProgram(prog, wo, &topo);
      ASSERT_TRUE(text.isOk()) << text.message();
      auto plan = readPlan(*text);
      ASSERT_TRUE(plan.isOk()) << plan.message();
      ASSERT_EQ(plan->programs.size(), 1u);
      const Program &back = plan->programs[0].program;
      EXPECT_EQ(back.collective, prog.collective);
      EXPECT_EQ(back.n, prog.n);
      EXPECT_EQ(back.root, prog.root);
      ASSERT_TRUE(plan->topology.has_value());
      EXPECT_TRUE(*plan->topology == topo);
      expectSameExpansion(prog, back);
      EXPECT_TRUE(verify(back).isOk()) << verify(back).message();
      if (f == ProgramForm::Compact) {
        // The compact text is stable under a second round trip.
        auto again = writeProgram(back, wo, &topo);
        ASSERT_TRUE(again.isOk());
        EXPECT_EQ(*again, *text);
      }
    }
}

// One knee is written as two numbers (what readers before lists took),
// several as two arrays.
TEST(Plan, CacheKneesAreWrittenInTheFormTheyNeed) {
  Program prog = gen(Collective::AllReduce, Algorithm::Ring, 4, 64);
  for (const char *params :
       {R"({"cache_bytes": 1048576, "past_cache_factor": 2})",
        R"({"cache_bytes": [1048576, 33554432],
            "past_cache_factor": [2, 5.5]})"}) {
    SCOPED_TRACE(params);
    Topology topo = *Topology::preset("host-4");
    ASSERT_TRUE(topo.applyLinkParams(params).isOk());
    auto text = writeProgram(prog, PlanWriteOptions(), &topo);
    ASSERT_TRUE(text.isOk()) << text.message();
    auto t = nlohmann::json::parse(*text).at("topology");
    bool one = topo.cacheKnees.size() == 1;
    EXPECT_EQ(t.at("cache_bytes").is_number(), one);
    EXPECT_EQ(t.at("past_cache_factor").is_array(), !one);
    auto plan = readPlan(*text);
    ASSERT_TRUE(plan.isOk()) << plan.message();
    EXPECT_TRUE(plan->topology->cacheKnees == topo.cacheKnees);
  }
}

TEST(Plan, ExpandedFormCarriesLinks) {
  Program prog = gen(Collective::AllReduce, Algorithm::Ring, 16, 32);
  Topology topo = *Topology::preset("910b-8x2");
  PlanWriteOptions wo;
  wo.form = ProgramForm::Expanded;
  auto text = writeProgram(prog, wo, &topo);
  ASSERT_TRUE(text.isOk());
  auto j = nlohmann::json::parse(*text);
  // Rank 7 sends to 8 across servers (RoCE); rank 0 to 1 over HCCS.
  auto firstSend = [&](int r) {
    for (auto &st : j["programs"][0]["expanded"][r]["steps"])
      for (auto &op : st["ops"])
        if (op["kind"] == "send")
          return op;
    return nlohmann::json();
  };
  EXPECT_EQ(firstSend(7)["link"], "roce");
  EXPECT_EQ(firstSend(0)["link"], "hccs");
}

TEST(Plan, ScheduleItems) {
  Plan plan;
  plan.topology = *Topology::preset("910b-8");
  plan.programs.push_back(
      {"grads0", gen(Collective::AllReduce, Algorithm::Ring, 4, 100), {}});
  plan.programs.push_back(
      {"grads1", gen(Collective::AllReduce, Algorithm::RHD, 2, 10), {{4, 6}}});
  // A partitioned group: one program, both pairs at once.
  plan.programs.push_back({"tp",
                           gen(Collective::AllReduce, Algorithm::Ring, 2, 6),
                           {{4, 5}, {6, 7}}});
  plan.groupRanks = {4, 5, 6, 7};
  plan.items = {{PlanItemKind::Compute, "backward.layer3", 120.5, 0, ""},
                {PlanItemKind::Start, "", 0, 0, "grads0"},
                {PlanItemKind::Start, "", 0, 1, "grads1"},
                {PlanItemKind::Compute, "backward.layer2", 80, 0, ""},
                {PlanItemKind::Wait, "", 0, 1, ""},
                {PlanItemKind::Wait, "", 0, 0, ""},
                {PlanItemKind::Start, "", 0, 2, "tp"},
                {PlanItemKind::Wait, "", 0, 2, ""}};
  auto text = writePlan(plan);
  ASSERT_TRUE(text.isOk()) << text.message();
  auto back = readPlan(*text);
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->groupRanks, plan.groupRanks);
  ASSERT_EQ(back->items.size(), 8u);
  EXPECT_EQ(back->items[0].name, "backward.layer3");
  EXPECT_DOUBLE_EQ(back->items[0].costUs, 120.5);
  EXPECT_EQ(back->items[2].program, "grads1");
  EXPECT_EQ(back->items[4].id, 1);
  ASSERT_NE(back->find("grads1"), nullptr);
  EXPECT_EQ(back->find("grads1")->groups,
            (std::vector<std::vector<int64_t>>{{4, 6}}));
  // One group is written as "group", several as "groups".
  auto j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["programs"][1]["group"], nlohmann::json({4, 6}));
  EXPECT_FALSE(j["programs"][1].contains("groups"));
  EXPECT_EQ(j["programs"][2]["groups"], nlohmann::json({{4, 5}, {6, 7}}));
  const PlanProgram *tp = back->find("tp");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->groups, (std::vector<std::vector<int64_t>>{{4, 5}, {6, 7}}));
  int64_t gr = -1;
  ASSERT_EQ(tp->groupOf(7, &gr), &tp->groups[1]);
  EXPECT_EQ(gr, 1);
  EXPECT_EQ(tp->groupOf(3), nullptr);
  EXPECT_EQ(tp->allRanks(), (std::vector<int64_t>{4, 5, 6, 7}));
}

// Starts from a valid document and applies one edit.
std::string edited(const std::function<void(nlohmann::json &)> &edit) {
  Plan plan;
  plan.programs.push_back(
      {"c0", gen(Collective::AllReduce, Algorithm::Ring, 4, 8), {}});
  plan.groupRanks = {0, 1, 2, 3};
  plan.items = {{PlanItemKind::Start, "", 0, 7, "c0"},
                {PlanItemKind::Wait, "", 0, 7, ""}};
  auto j = nlohmann::json::parse(*writePlan(plan));
  edit(j);
  return j.dump();
}

TEST(Plan, RejectsMalformedDocumentsWithTheirPath) {
  using J = nlohmann::json;
  struct {
    std::string text;
    const char *expect;
  } cases[] = {
      {"{\"format\": ", "plan: malformed JSON"},
      {edited([](J &j) { j["format"] = "nccl"; }),
       "format: expected \"hccl-plan\""},
      {edited([](J &j) { j["version"] = 2; }),
       "version: unsupported version 2"},
      {edited([](J &j) { j["extra"] = 1; }),
       "plan document.extra: unknown key"},
      {edited([](J &j) { j["programs"] = J::array(); }),
       "programs: missing, empty or not an array"},
      {edited([](J &j) { j["programs"][0]["ranks"] = "4"; }),
       "programs[0].ranks: expected an integer in 1..1048576, found string"},
      {edited([](J &j) { j["programs"][0]["ranks"] = -4; }),
       "programs[0].ranks: expected an integer in 1..1048576, found -4"},
      {edited([](J &j) { j["programs"][0]["collective"] = "gather"; }),
       "programs[0].collective: unknown value 'gather'"},
      {edited([](J &j) { j["programs"][0]["dtype"] = "fp8"; }),
       "programs[0].dtype: unknown value 'fp8'"},
      {edited([](J &j) { j["programs"][0]["level0"] = "ring"; }),
       "programs[0].level0: only allowed when algorithm is hierarchical"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][0]["peer"] = "(r + 1) % q";
       }),
       "programs[0].phases[0].ops[0].peer: column 11: unknown name 'q'"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][0]["peer"] = "(r + 1 % p";
       }),
       "programs[0].phases[0].ops[0].peer: column 11: expected ')'"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][0]["src"]["buffer"] = "temp";
       }),
       "programs[0].phases[0].ops[0].src.buffer: unknown buffer 'temp'"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][1]["dst"]["buffer"] = "input";
       }),
       "programs[0].phases[0].ops[1].dst.buffer: ops may not write the input "
       "buffer"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][0]["dst"] = {{"buffer", "output"},
                                                           {"offset", "0"}};
       }),
       "programs[0].phases[0].ops[0].dst: not allowed for send"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][0].erase("count");
       }),
       "programs[0].phases[0].ops[0].count: missing"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][0]["kind"] = "put";
       }),
       "programs[0].phases[0].ops[0].kind: unknown op kind 'put'"},
      {edited([](J &j) { j["programs"][0]["phases"][0]["steps"] = "r"; }),
       "programs[0].phases[0].steps: may not depend on r"},
      {edited([](J &j) {
         j["programs"][0]["phases"][0]["ops"][0]["repeat"] = "t + 1";
       }),
       "programs[0].phases[0].ops[0].repeat: may not depend on t"},
      {edited([](J &j) { j["programs"][0]["params"]["min"] = 3; }),
       "programs[0].params.min: not a valid parameter name"},
      {edited([](J &j) { j["programs"][0]["buffers"].erase("scratch"); }),
       "programs[0].buffers.scratch: missing"},
      {edited([](J &j) {
         j["programs"][0].erase("phases");
         j["programs"][0].erase("buffers");
       }),
       "programs[0]: needs \"phases\" (compact form), \"expanded\", or both"},
      {edited([](J &j) { j["programs"][0]["group"] = {0, 1, 1, 2}; }),
       "programs[0].group: lists rank 1 twice"},
      {edited([](J &j) {
         j["programs"][0]["group"] = {0, 1, 2, 3};
         j["programs"][0]["groups"] = {{0, 1, 2, 3}};
       }),
       "programs[0].groups: given with group"},
      {edited([](J &j) { j["programs"][0]["groups"] = J::array(); }),
       "programs[0].groups: expected a non-empty array of rank arrays"},
      {edited([](J &j) {
         j["programs"][0]["groups"] = {{0, 1, 2, 3}, {4, 5, 1, 7}};
       }),
       "programs[0].groups[1]: lists rank 1 of an earlier group"},
      {edited([](J &j) {
         j["programs"][0]["groups"] = {{0, 1, 2, 3}, {4, 5, 6}};
       }),
       "programs[0].groups[1]: holds 3 ranks, ranks says 4"},
      {edited([](J &j) {
         j["programs"][0]["groups"] = {{0, 1, 2, 3}, {4, 5, 6, 7}};
       }),
       "program 'c0' uses global rank 4, not in plan.group"},
      {edited([](J &j) { j["programs"].push_back(j["programs"][0]); }),
       "programs[1].id: duplicate program id 'c0'"},
      {edited([](J &j) { j["plan"]["items"][0]["program"] = "c9"; }),
       "plan.items[0].program: no program with id 'c9'"},
      {edited([](J &j) { j["plan"]["items"].erase(1); }),
       "plan.items[0]: collective 7 is started but never waited for"},
      {edited([](J &j) { j["plan"]["items"][1]["id"] = 8; }),
       "plan.items[1].id: waits for collective 8, which is not in flight"},
      {edited([](J &j) { j["plan"]["items"][0]["kind"] = "sleep"; }),
       "plan.items[0].kind: unknown item kind 'sleep'"},
      {edited([](J &j) { j["plan"]["group"] = {0, 1, 2}; }),
       "runs on 4 ranks without a group, the plan's group has 3"},
      {edited([](J &j) { j["topology"] = {{"servers", "two"}}; }),
       "topology.servers: expected an integer in 1..1048576, found string"},
      {edited([](J &j) { j["topology"] = {{"intra", {{"ports", 99}}}}; }),
       "topology.intra.ports: expected an integer in 1..64, found 99"},
  };
  for (auto &c : cases) {
    auto r = readPlan(c.text);
    ASSERT_FALSE(r.isOk()) << "accepted; expected: " << c.expect;
    EXPECT_NE(r.message().find(c.expect), std::string::npos)
        << "got: " << r.message();
  }
}

TEST(Plan, ExpandedFormMustAgreeWithCompact) {
  Program prog = gen(Collective::AllReduce, Algorithm::Ring, 3, 9);
  PlanWriteOptions wo;
  wo.form = ProgramForm::Both;
  auto j = nlohmann::json::parse(*writeProgram(prog, wo));
  j["programs"][0]["expanded"][1]["steps"][2]["ops"][0]["count"] = 4;
  auto r = readPlan(j.dump());
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("programs[0].expanded[1].steps[2].ops[0]: differs "
                             "from the compact form"),
            std::string::npos)
      << r.message();
  // Expanded only: every rank is required.
  wo.form = ProgramForm::Expanded;
  auto e = nlohmann::json::parse(*writeProgram(prog, wo));
  e["programs"][0]["expanded"].erase(2);
  auto r2 = readPlan(e.dump());
  ASSERT_FALSE(r2.isOk());
  EXPECT_NE(r2.message().find("programs[0].expanded: lists 2 of 3 ranks"),
            std::string::npos)
      << r2.message();
}

TEST(Plan, ReadsFilesAndNamesThem) {
  auto r = readPlanFile("/nonexistent/plan.json");
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.message().find("/nonexistent/plan.json: cannot open"),
            std::string::npos);
}

} // namespace
