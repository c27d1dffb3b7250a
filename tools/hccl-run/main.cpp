//===- main.cpp - hccl-run: run a compiled plan on the bundled runtime ----===//
//
//   hccl-run plan.json --compare baseline.json --trace out.json
//
// Alone, it launches the plan's ranks as local processes (hccl-test's
// launcher); under mpirun or torchrun each process is one rank.
//
//===----------------------------------------------------------------------===//
#include "Launcher.h"
#include "Options.h"
#include "PlanRunner.h"

#include <cstdio>

using namespace hcclrun;

int main(int argc, char **argv) {
  ParseResult parsed = parseOptions(argc, argv);
  if (!parsed.options) {
    std::fprintf(stderr, "%s\n", parsed.error.c_str());
    return 2;
  }
  const Options &opts = *parsed.options;
  if (opts.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  switch (hccltest::detectLaunchMode()) {
  case hccltest::LaunchMode::Mpi:
    hccltest::prepareMpiRendezvous();
    return runRank(opts);
  case hccltest::LaunchMode::Torchrun:
    return runRank(opts);
  case hccltest::LaunchMode::Local: {
    int planRanks = 0;
    if (int s = precheckPlan(opts.plan, opts.ranks, planRanks); s != 0)
      return s;
    if (!opts.baseline.empty()) {
      int baseRanks = 0;
      if (int s = precheckPlan(opts.baseline, planRanks, baseRanks); s != 0)
        return s;
    }
    return hccltest::launchLocal(planRanks, [&] { return runRank(opts); });
  }
  }
  return 1;
}
