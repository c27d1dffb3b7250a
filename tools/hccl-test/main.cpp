//===- main.cpp - hccl-test: Huawei hccl_test for the bundled runtime -----===//
//
//   hccl-test all_reduce -b 8K -e 64M -f 2 -d fp32 -o sum -p 8
//
// Alone, it starts -p local ranks itself; under mpirun (or torchrun) each
// process is one rank. Bad options: one line on stderr, exit status 2.
//
//===----------------------------------------------------------------------===//
#include "Launcher.h"
#include "Options.h"
#include "Runner.h"

#include <cstdio>
#include <cstdlib>

using namespace hccltest;

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
  switch (detectLaunchMode()) {
  case LaunchMode::Mpi:
    prepareMpiRendezvous();
    return runRank(opts);
  case LaunchMode::Torchrun:
    return runRank(opts);
  case LaunchMode::Local:
    if (opts.root >= static_cast<uint32_t>(opts.npus)) {
      std::fprintf(stderr,
                   "hccl-test: -r %u: the root must be below the number of "
                   "ranks (-p %d)\n",
                   opts.root, opts.npus);
      return 2;
    }
    return launchLocal(opts.npus, [&] { return runRank(opts); });
  }
  return 1;
}
