//===- Options.cpp - hccl-run's command line ------------------------------===//
#include "Options.h"

#include "hccl-mlir/schedule/Types.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace hcclrun {
namespace {

bool parseInt(const char *s, int lo, int hi, int &out) {
  if (!s || !*s)
    return false;
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return false;
  out = static_cast<int>(v);
  return true;
}

bool parseDouble(const char *s, double &out) {
  if (!s || !*s)
    return false;
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  if (errno || *end || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

} // namespace

std::string usage() {
  return "usage: hccl-run PLAN.json [-p RANKS] [-n ITERS] [-w WARMUP]\n"
         "                [--time-scale X] [--compare BASELINE.json]\n"
         "                [--trace OUT.json] [-c 0|1] [--streams N|group]\n"
         "                [--max-buffer-mib M] [--buffer-span-mib S]\n"
         "                [--spin-us N]\n"
         "                [--host-slice-us N] [--issue ahead|host]\n"
         "                [--phase-probe BYTES [--phase-probe-calls N]]\n"
         "Runs a plan exported by `hccl-translate --comm-to-plan` on the\n"
         "bundled runtime: collectives on real buffers (checked against a\n"
         "reference with -c 1), compute items as a device clock advanced by\n"
         "their predicted time (x --time-scale); a collective starts when\n"
         "the device reaches it. Alone it launches the plan's ranks; under\n"
         "mpirun or torchrun each process is one rank.\n"
         "  -p RANKS          local ranks (default: the plan's group size)\n"
         "  -n ITERS          measured iterations (default 5)\n"
         "  -w WARMUP         warm-up iterations (default 1)\n"
         "  --time-scale X    multiply compute times by X (default 1)\n"
         "  --compare PLAN    also run this (unscheduled) plan and print the\n"
         "                    speedup of PLAN.json over it\n"
         "  --trace FILE      write a Chrome trace (chrome://tracing,\n"
         "                    Perfetto) of the last iteration, one process "
         "per rank\n"
         "                    (with --compare, the baseline's goes to\n"
         "                    FILE with .baseline before the extension)\n"
         "  -c 0|1            check every collective's result (default 1)\n"
         "  --streams N|group communication streams; started collectives go\n"
         "                    to them round-robin and run in order on each,\n"
         "                    as on an NPU's comm streams (default 1);\n"
         "                    group: one per communicator, as the\n"
         "                    compiler's timeline assumes\n"
         "  --max-buffer-mib M  above M MiB of buffers per rank (default\n"
         "                    1024; 0: always) the collectives share one\n"
         "                    buffer pair;\n"
         "                    results are then checked one by one after the\n"
         "                    timed iterations\n"
         "  --buffer-span-mib S  with shared buffers, the pair spans S MiB\n"
         "                    and each launch takes the next stretch of it,\n"
         "                    so that its data comes from memory (last\n"
         "                    touched about S MiB of collectives ago), as in\n"
         "                    a training step, not from the caches the\n"
         "                    collective before it filled (default: none,\n"
         "                    every collective at the pair's start); the\n"
         "                    warm-up goes on until the span has wrapped\n"
         "                    (at most 200 more), so that no timed launch\n"
         "                    is the first to touch its stretch; a note\n"
         "                    says when the host gives the span 4 KiB\n"
         "                    pages (shmem_enabled never or deny, or no\n"
         "                    transparent huge pages)\n"
         "  --spin-us N       wait for the device clock by sleeping, then\n"
         "                    yielding for the last N us, since a sleep\n"
         "                    wakes late (default 100; 0: sleep only)\n"
         "  --host-slice-us N ask the kernel for an N us time slice for the\n"
         "                    thread that issues the starts while timing\n"
         "                    (see --issue; Linux 6.12+), so\n"
         "                    that it can preempt busy runtime threads\n"
         "                    sooner when it wakes to issue a start\n"
         "                    (100..100000; default 0: the kernel's slice)\n"
         "  --issue ahead|host who holds a start until the device reaches\n"
         "                    it: ahead (default): the host queues an\n"
         "                    iteration's starts at once, each behind a\n"
         "                    gate on its stream that holds it until then,\n"
         "                    as an NPU's comm stream waits on an event of\n"
         "                    its compute stream (no host wake-up between\n"
         "                    a collective's end and the next start); a\n"
         "                    late start is one issued over 1 ms after it\n"
         "                    was due and its stream was free, and\n"
         "                    --host-slice-us goes to the streams'\n"
         "                    threads, which issue the starts; host: the\n"
         "                    host thread waits, then issues each start\n"
         "  --phase-probe BYTES  before the first timed iteration and after\n"
         "                    each, time an fp32 all-reduce of BYTES (ring,\n"
         "                    on its own communicator and buffers) from\n"
         "                    memory, as calibrate_host.py times its sizes\n"
         "                    (hccl-test --evict-buffers --issue ahead), and\n"
         "                    print each iteration's time and the probes:\n"
         "                    the host's memory phase while it ran\n"
         "                    (bench/model/validate_model.py --phase-inside);\n"
         "                    a multiple of 4 from 4K to 1G\n"
         "  --phase-probe-calls N  calls per probe, their mean reported\n"
         "                    (1..1000, default 5: the calibration's -n)\n"
         "exit status: 0 ok, 1 a run failed or a check failed, 2 bad input\n";
}

ParseResult parseOptions(int argc, const char *const *argv) {
  Options o;
  bool callsGiven = false;
  auto err = [](const std::string &m) {
    ParseResult r;
    r.error = "hccl-run: " + m;
    return r;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *what) -> const char * {
      if (i + 1 >= argc)
        return nullptr;
      (void)what;
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "-p" || a == "-n" || a == "-w") {
      const char *v = value(a.c_str());
      int *dst = a == "-p" ? &o.ranks : a == "-n" ? &o.iters : &o.warmup;
      int lo = a == "-w" ? 0 : 1;
      if (!v || !parseInt(v, lo, a == "-p" ? 1024 : 1000000, *dst))
        return err(a + " needs an integer " +
                   (a == "-p"   ? "in 1..1024"
                    : a == "-n" ? ">= 1"
                                : ">= 0") +
                   ", found '" + (v ? v : "") + "'");
    } else if (a == "--streams") {
      const char *v = value("--streams");
      o.streamPerGroup = v && std::string(v) == "group";
      if (!o.streamPerGroup && (!v || !parseInt(v, 1, 64, o.streams)))
        return err(std::string("--streams needs an integer in 1..64 or "
                               "'group', found '") +
                   (v ? v : "") + "'");
    } else if (a == "--spin-us") {
      const char *v = value("--spin-us");
      if (!v || !parseInt(v, 0, 100000, o.spinUs))
        return err(std::string("--spin-us needs an integer in 0..100000, "
                               "found '") +
                   (v ? v : "") + "'");
    } else if (a == "--host-slice-us") {
      const char *v = value("--host-slice-us");
      if (!v || !parseInt(v, 0, 100000, o.hostSliceUs) ||
          (o.hostSliceUs && o.hostSliceUs < 100))
        return err(std::string("--host-slice-us needs 0 or an integer in "
                               "100..100000 (the kernel's bounds), found '") +
                   (v ? v : "") + "'");
    } else if (a == "--issue") {
      const char *v = value("--issue");
      std::string w = v ? v : "";
      if (w != "host" && w != "ahead")
        return err("--issue needs 'ahead' or 'host', found '" + w + "'");
      o.issueAhead = w == "ahead";
    } else if (a == "--max-buffer-mib") {
      const char *v = value("--max-buffer-mib");
      int mib = 0;
      if (!v || !parseInt(v, 0, 1 << 20, mib))
        return err(std::string("--max-buffer-mib needs an integer in "
                               "0..1048576, found '") +
                   (v ? v : "") + "'");
      o.maxBufferMiB = static_cast<unsigned long long>(mib);
    } else if (a == "--buffer-span-mib") {
      const char *v = value("--buffer-span-mib");
      int mib = 0;
      if (!v || !parseInt(v, 1, 65536, mib))
        return err(std::string("--buffer-span-mib needs an integer in "
                               "1..65536, found '") +
                   (v ? v : "") + "'");
      o.bufferSpanMiB = static_cast<unsigned long long>(mib);
    } else if (a == "--phase-probe") {
      const char *v = value("--phase-probe");
      uint64_t b = 0;
      if (v)
        b = hccl::sched::parseByteSize(v).value_or(0);
      if (b < 4096 || b > (1ULL << 30) || b % 4)
        return err(std::string("--phase-probe needs a size in bytes, a "
                               "multiple of 4 from 4K to 1G (e.g. 64M), "
                               "found '") +
                   (v ? v : "") + "'");
      o.phaseProbeBytes = b;
    } else if (a == "--phase-probe-calls") {
      const char *v = value("--phase-probe-calls");
      callsGiven = true;
      if (!v || !parseInt(v, 1, 1000, o.phaseProbeCalls))
        return err(std::string("--phase-probe-calls needs an integer in "
                               "1..1000, found '") +
                   (v ? v : "") + "'");
    } else if (a == "-c") {
      const char *v = value("-c");
      if (!v || (std::strcmp(v, "0") && std::strcmp(v, "1")))
        return err(std::string("-c needs 0 or 1, found '") + (v ? v : "") +
                   "'");
      o.check = std::strcmp(v, "1") == 0;
    } else if (a == "--time-scale") {
      const char *v = value("--time-scale");
      if (!v || !parseDouble(v, o.timeScale) || o.timeScale < 0 ||
          o.timeScale > 1e6)
        return err(std::string("--time-scale needs a number in 0..1e6, "
                               "found '") +
                   (v ? v : "") + "'");
    } else if (a == "--compare" || a == "--trace") {
      const char *v = value(a.c_str());
      if (!v || !*v)
        return err(a + " needs a file name");
      (a == "--compare" ? o.baseline : o.trace) = v;
    } else if (!a.empty() && a[0] == '-') {
      return err("unknown option '" + a + "' (see --help)");
    } else if (o.plan.empty()) {
      o.plan = a;
    } else {
      return err("more than one plan given ('" + o.plan + "' and '" + a +
                 "'); use --compare for the baseline");
    }
  }
  if (!o.help && o.plan.empty())
    return err("no plan given (see --help)");
  if (callsGiven && !o.phaseProbeBytes)
    return err("--phase-probe-calls has no effect without --phase-probe");
  ParseResult r;
  r.options = o;
  return r;
}

} // namespace hcclrun
