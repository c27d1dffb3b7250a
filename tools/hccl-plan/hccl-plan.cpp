//===- hccl-plan.cpp - Generate, verify, price and expand plans -----------===//
//
//   hccl-plan generate --collective C --algo A --ranks P --count N [...]
//   hccl-plan verify PLAN.json [...]
//   hccl-plan cost --collective C --ranks P --count N [...]
//   hccl-plan expand PLAN.json --rank R [--program ID]
//
// Exit codes: 0 success (verify: every program proven), 1 a plan failed
// verification, 2 bad input (a one-line error on stderr naming the
// problem), 3 verify found no error but could not prove every program (its
// contents were beyond the simulation budget: "NOT PROVEN", never "OK").
//
//===----------------------------------------------------------------------===//
#include "RequestArgs.h"

#include "hccl-mlir/schedule/Cost.h"
#include "hccl-mlir/schedule/Generate.h"
#include "hccl-mlir/schedule/Plan.h"
#include "hccl-mlir/schedule/Select.h"
#include "hccl-mlir/schedule/Verify.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace hccl::sched;
using namespace hccl::tools;

namespace {

const char *const kUsage =
    "usage:\n"
    "  hccl-plan generate --collective C --algo A --ranks P --count N\n"
    "        [--dtype fp32] [--op sum] [--root R] [--slices K] [--chunks K]\n"
    "        [--ranks-per-server M] [--level0 A] [--level1 A]\n"
    "        [--hccl-algo SPEC] [--topology PRESET | --rank-table FILE]\n"
    "        [--link-params FILE] [--form compact|expanded|both] [-o FILE]\n"
    "        [--targets T0,T1,.. (permute)] [--input-outer A] [--output-outer "
    "A]\n"
    "  hccl-plan verify PLAN.json [--exhaustive-limit N] [--no-in-place]\n"
    "        [--no-slices] [--max-ops N] [--max-simulated-ops N]\n"
    "  hccl-plan cost --collective C --ranks P --count N [--dtype fp32]\n"
    "        [--topology PRESET | --rank-table FILE] [--link-params FILE]\n"
    "        [--ranks-per-server M] [--hccl-algo SPEC] [--slices K] [--exact]\n"
    "  hccl-plan cost PLAN.json [--topology PRESET]\n"
    "  hccl-plan expand PLAN.json --rank R [--program ID]\n"
    "algorithms: ring, mesh, mesh_oneshot, rhd, rd, tree, star, pairwise,\n"
    "  hierarchical, auto (pick by cost). Counts and sizes accept K/M/G.\n"
    "exit codes: 0 ok, 1 verification failed, 2 bad input, 3 verify: not\n"
    "  proven (no error found, contents beyond the simulation budget)\n";

void writeOut(const Args &a, const std::string &text) {
  if (!a.has("output")) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream out(a.get("output"), std::ios::binary);
  if (!out)
    bad(a.get("output") + ": cannot write");
  out << text;
  if (!out)
    bad(a.get("output") + ": write failed");
}

int cmdGenerate(int argc, char **argv) {
  Args a = parseArgs(
      argc, argv, 2,
      {"collective",  "algo",   "ranks",     "count",    "dtype",
       "op",          "root",   "slices",    "chunks",   "ranks-per-server",
       "level0",      "level1", "hccl-algo", "topology", "rank-table",
       "link-params", "form",   "output",    "targets",  "input-outer",
       "output-outer"},
      {});
  if (!a.positional.empty())
    bad("unexpected argument '" + a.positional[0] + "'");
  Request q = requestArgs(a);
  resolveAlgorithm(a, q);
  ProgramForm form = ProgramForm::Compact;
  std::string f = a.get("form", "compact");
  if (f == "expanded")
    form = ProgramForm::Expanded;
  else if (f == "both")
    form = ProgramForm::Both;
  else if (f != "compact")
    bad("--form: expected compact, expanded or both, found '" + f + "'");
  auto prog = generate(q.gen);
  if (!prog)
    bad(prog.message());
  PlanWriteOptions wo;
  wo.form = form;
  auto text = writeProgram(*prog, wo, &q.topo);
  if (!text)
    bad(text.message());
  writeOut(a, *text);
  return 0;
}

Plan planArg(const Args &a) {
  if (a.positional.size() != 1)
    bad(a.positional.empty() ? "missing PLAN.json"
                             : "unexpected argument '" + a.positional[1] + "'");
  auto plan = readPlanFile(a.positional[0]);
  if (!plan)
    bad(plan.message());
  return plan.take();
}

int cmdVerify(int argc, char **argv) {
  Args a = parseArgs(argc, argv, 2,
                     {"exhaustive-limit", "max-ops", "max-simulated-ops"},
                     {"no-in-place", "no-slices"});
  Plan plan = planArg(a);
  VerifyOptions vo;
  vo.exhaustiveLimit = intArg(a, "exhaustive-limit", kMaxRanks, 1, kMaxRanks);
  vo.maxSimulatedOps =
      intArg(a, "max-simulated-ops", vo.maxSimulatedOps, 0, INT64_MAX / 2);
  vo.inPlace = !a.flags.count("no-in-place");
  vo.applySlices = !a.flags.count("no-slices");
  vo.maxOpInstances = intArg(a, "max-ops", vo.maxOpInstances, 1, INT64_MAX / 2);
  int rc = 0;
  bool unproven = false;
  for (const PlanProgram &pp : plan.programs) {
    // Refusing absurd work is bad input (exit 2), not an incorrect plan;
    // so is an expansion beyond kMaxExpandedSize (rank 0's shows here).
    auto est = estimateOpInstances(pp.program);
    if (!est && est.message().find("(kMaxExpandedSize") != std::string::npos)
      bad("program '" + pp.id + "': " + est.message());
    if (est &&
        static_cast<double>(*est) * (vo.applySlices ? pp.program.slices : 1) >
            static_cast<double>(vo.maxOpInstances))
      bad("program '" + pp.id + "' is too large to verify: about " +
          std::to_string(*est) + " op instances (x" +
          std::to_string(vo.applySlices ? pp.program.slices : 1) +
          " slices), budget " + std::to_string(vo.maxOpInstances) +
          " (--max-ops)");
    auto rep = verify(pp.program, vo);
    if (!rep) {
      std::fprintf(stderr, "hccl-plan: program '%s' is incorrect: %s\n",
                   pp.id.c_str(), oneLine(rep.message()).c_str());
      rc = 1;
      continue;
    }
    if (!rep->proven) {
      std::printf("NOT PROVEN %s: %s\n", pp.id.c_str(), rep->summary.c_str());
      unproven = true;
      continue;
    }
    std::printf("OK %s: %s\n", pp.id.c_str(), rep->summary.c_str());
  }
  return rc != 0 ? rc : unproven ? 3 : 0;
}

void printCostTable(const Request &q, const Selection &sel, bool exact) {
  const GenerateRequest &g = q.gen;
  double eb = static_cast<double>(dataTypeSize(g.dtype));
  double bytes = static_cast<double>(g.count) * eb;
  double nbytes = ncclTestBytes(g.collective, bytes, g.ranks);
  std::printf("%s of %lld x %s (%.0f bytes) on %lld ranks, topology %s\n",
              collectiveName(g.collective), static_cast<long long>(g.count),
              dataTypeName(g.dtype), bytes, static_cast<long long>(g.ranks),
              q.topoLabel.c_str());
  std::printf("%-32s %14s %12s %12s%s\n", "algorithm", "predicted_us",
              "algbw_GB/s", "busbw_GB/s", exact ? "   program_us" : "");
  for (const Candidate &c : sel.candidates) {
    bool chosen = c.algorithm == sel.algorithm &&
                  (c.algorithm != Algorithm::Hierarchical ||
                   (c.level0 == sel.level0 && c.level1 == sel.level1));
    std::string label = algoLabel(c.algorithm, c.level0, c.level1);
    std::printf("%-32s %14.2f %12.3f %12.3f", label.c_str(), c.seconds * 1e6,
                algBandwidthGBps(nbytes, c.seconds),
                busBandwidthGBps(g.collective, nbytes, c.seconds, g.ranks));
    if (exact) {
      GenerateRequest gr = g;
      gr.algorithm = c.algorithm;
      gr.level0 = c.level0;
      gr.level1 = c.level1;
      auto prog = generate(gr);
      auto pc = prog ? predictCost(*prog, q.topo)
                     : Result<ProgramCost>(prog.status());
      if (pc)
        std::printf(" %13.2f", pc->seconds * 1e6);
      else
        std::printf(" %13s", "n/a");
    }
    std::printf("%s\n", chosen ? "  *" : "");
  }
  std::printf("selected: %s%s\n",
              algoLabel(sel.algorithm, sel.level0, sel.level1).c_str(),
              sel.overridden ? " (HCCL_ALGO override)" : "");
}

int cmdCost(int argc, char **argv) {
  Args a = parseArgs(argc, argv, 2,
                     {"collective", "ranks", "count", "dtype", "op", "root",
                      "slices", "chunks", "ranks-per-server", "level0",
                      "level1", "hccl-algo", "topology", "rank-table",
                      "link-params", "targets", "input-outer", "output-outer"},
                     {"exact"});
  if (!a.positional.empty()) {
    // Price the programs of a plan file.
    Plan plan = planArg(a);
    std::optional<Topology> topo = plan.topology;
    if (a.has("topology") || a.has("rank-table") || !topo)
      topo = topologyArg(a, plan.programs[0].program.p);
    for (const PlanProgram &pp : plan.programs) {
      CostOptions co;
      // Several groups: priced on the first (they run the same program).
      if (!pp.groups.empty())
        co.groupRanks = pp.groups[0];
      auto pc = predictCost(pp.program, *topo, co);
      if (!pc)
        bad("program '" + pp.id + "': " + pc.message());
      const Program &pr = pp.program;
      double nb = ncclTestBytes(pr.collective,
                                static_cast<double>(pr.n) *
                                    static_cast<double>(dataTypeSize(pr.dtype)),
                                pr.p);
      std::printf("%s: %s %s p=%lld n=%lld: %.2f us over %lld steps (%lld "
                  "rounds), algbw %.3f GB/s, busbw %.3f GB/s\n",
                  pp.id.c_str(), collectiveName(pr.collective),
                  algoLabel(pr.algorithm, pr.level0, pr.level1).c_str(),
                  static_cast<long long>(pr.p), static_cast<long long>(pr.n),
                  pc->seconds * 1e6, static_cast<long long>(pc->steps),
                  static_cast<long long>(pc->rounds),
                  algBandwidthGBps(nb, pc->seconds),
                  busBandwidthGBps(pr.collective, nb, pc->seconds, pr.p));
    }
    return 0;
  }
  Request q = requestArgs(a);
  Selection sel = selectFor(q);
  printCostTable(q, sel, a.flags.count("exact") != 0);
  return 0;
}

int cmdExpand(int argc, char **argv) {
  Args a = parseArgs(argc, argv, 2, {"rank", "program"}, {});
  Plan plan = planArg(a);
  const PlanProgram *pp = &plan.programs[0];
  if (a.has("program")) {
    pp = plan.find(a.get("program"));
    if (!pp)
      bad("no program with id '" + a.get("program") + "'");
  } else if (plan.programs.size() > 1) {
    bad("the plan holds " + std::to_string(plan.programs.size()) +
        " programs: choose one with --program ID");
  }
  if (!a.has("rank"))
    bad("missing --rank");
  int64_t rank = intArg(a, "rank", 0, 0, pp->program.p - 1);
  auto rp = expandRank(pp->program, rank);
  if (!rp)
    bad(rp.message());
  std::fputs(formatRankProgram(pp->program, *rp).c_str(), stdout);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  try {
    if (cmd == "generate")
      return cmdGenerate(argc, argv);
    if (cmd == "verify")
      return cmdVerify(argc, argv);
    if (cmd == "cost")
      return cmdCost(argc, argv);
    if (cmd == "expand")
      return cmdExpand(argc, argv);
    bad("unknown command '" + cmd +
        "' (expected generate, verify, cost, "
        "expand)");
  } catch (const BadInput &e) {
    std::fprintf(stderr, "hccl-plan: error: %s\n", oneLine(e.msg).c_str());
    return 2;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "hccl-plan: error: %s\n", oneLine(e.what()).c_str());
    return 2;
  }
}
