#!/usr/bin/env python3
"""The cost model against measurement (issue 15, "Validation").

For every graph, bucketing policy and in-flight setting: compile with
`hccl-opt --hccl-pipeline`, predict with `--comm-estimate` (iteration and
exposed communication), export with `hccl-translate --comm-to-plan`, run
with `hccl-run` on local ranks, and print predicted and measured figures
side by side with the relative error, the Spearman rank correlation of the
policies (per graph and in-flight setting, per graph, overall) and whether
`optimal` was measured no slower than the best other policy beyond the
run-to-run noise.

Graphs are priced for this host the way scripts/demo.sh prices them:
topology host-N with link figures calibrated by
tools/calibrate/calibrate_host.py (or given with --link-params), the
data-parallel group on N ranks, compute times scaled (1 for graphs exported
for a host device, 16 for graphs priced for a 910B-class NPU: 320 -> 20
TFLOPS, the device of examples/gpt-small-host.graph.json).

Policies (all through --hccl-pipeline, with max-in-flight=K given to both
sizing and overlap scheduling):
  none     no fusion: one bucket per gradient (policy=threshold
           threshold-bytes=1: every gradient is larger than the limit)
  ddp      policy=ddp (PyTorch DDP's Reducer: 1 MiB first bucket, 25 MiB)
  t25M, t64M, t256M
           policy=threshold threshold-bytes=25M / 64M / 256M
  horovod  Horovod's tensor fusion, emulated (the pipeline has no such
           policy): gradients that become ready within one cycle
           (--horovod-cycle-ms, default 5 ms, Horovod's default before 0.21,
           which went with the 64 MiB buffer) are fused in ready order into
           buffers of at most --horovod-fusion-bytes (default 64M); a tensor
           larger than the buffer goes alone. The buckets are written into
           the graph as multi-input all_reduce ops and the pipeline then runs
           with no further fusion (policy=threshold threshold-bytes=1).
           Unlike Horovod, a bucket starts when its last gradient is ready,
           not at the next cycle tick, and there is no negotiation.
  optimal  policy=optimal (the pipeline's default)

In-flight settings: max-in-flight of --hccl-pipeline, 0 = unlimited.

Measurement: hccl-run -n ITERS -w WARMUP per round (its median of the
slowest rank), --rounds rounds interleaved over all configurations (each
round visits them in a rotated order); the figure is the median of the
rounds, the spread (max - min) / median over the rounds. --phase-probe
SIZE also times an all-reduce of SIZE bytes before the first run and after
each, and prices each run's plan again at the host's memory phase then
(PhaseProbe; bench/model/README.md).

Everything it writes goes to --work (default: a temporary folder, removed
at the end unless --keep-work) and to --csv / --json. Exit status: 0 done
(targets met or not: the summary says), 1 a tool failed (named, with its
stderr), 2 bad command line.

The statistics are in model_stats.py, the host's phase in phase_probe.py
(the tools both drive, in model_tools.py).

  bench/model/validate_model.py --bin build/bin --link-params calib.json --csv out.csv
  bench/model/validate_model.py --quick
"""
import argparse
import csv
import glob
import hashlib
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
# The link-parameter format's Python reader lives with its writer.
sys.path.insert(0, os.path.join(ROOT, "tools", "calibrate"))
from calibrate_host import knees_of  # noqa: E402
import host_memory  # noqa: E402
# Split out of this file (each says why); imported by name so that
# validate_model.<name> still reaches them (test_validate_model.py). They
# import nothing from here. This script's folder is on sys.path when it runs.
from model_stats import (TARGET_MEDIAN_ERR, TARGET_RHO,  # noqa: E402,F401
                         TARGET_WORST_ERR, config_name, distinct,
                         distinct_plans, error_summary, fmt_rho,
                         optimal_verdict, pct, ranks_of, rel_error,
                         rho_ceiling, separated_pairs, spearman, spread)
from model_tools import (ToolError, Tools, log,  # noqa: E402
                         parse_estimate, parse_run)
from phase_probe import (PHASE_STEP, PhaseProbe,  # noqa: E402,F401
                         add_phase_summaries, error_groups, error_targets,
                         inside_fields, inside_summary, iteration_errors,
                         median_runs, phase_factor, phase_fields, phase_links,
                         phase_summary, price_at_phases, print_group_errors,
                         print_inside_summary, print_phase_summary,
                         quantize_phase, run_phase)

POLICIES = ["none", "ddp", "t25M", "t64M", "t256M", "horovod", "optimal"]
POLICY_OPTS = {
    "none": "policy=threshold threshold-bytes=1",
    "ddp": "policy=ddp",
    "t25M": "policy=threshold threshold-bytes=25M",
    "t64M": "policy=threshold threshold-bytes=64M",
    "t256M": "policy=threshold threshold-bytes=256M",
    "horovod": "policy=threshold threshold-bytes=1",
    "optimal": "policy=optimal",
}
# Extra --hccl-pipeline options per graph, for every policy alike. gpt2-xl:
# 5.8 GiB of gradients; an unbounded bucket (optimal picks one of 4.1 GB)
# does not fit N ranks' buffers in this machine's memory (docs/performance.md,
# the demo's gpt2-xl row uses the same cap).
GRAPH_PIPELINE = {"gpt2-xl": "max-bucket-bytes=256M"}
NPU_COMPUTE_SCALE = 16.0
QUICK = {"graphs": ["resnet18-host"], "policies": ["none", "ddp", "optimal"],
         "in_flight": [0], "ranks": 2, "rounds": 2, "iters": 2}
DTYPE_BYTES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "fp16": 2,
               "bf16": 2, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
               "fp32": 4, "f32": 4, "float32": 4, "int64": 8, "uint64": 8,
               "fp64": 8, "f64": 8, "float64": 8}


# ---------------------------------------------------------------- plans
# (It reads the plan files: not model_stats.py's pure arithmetic.)

def mark_same_plans(configs):
    """Give each config its plan file's digest and, where an earlier config of
    the same graph compiled to the same bytes, `twin` (that config) and
    `same_plan_as` (its name); such configs are not measured but take the
    twin's runs (measure)."""
    first = {}
    for c in configs:
        with open(c["plan"], "rb") as f:
            c["plan_digest"] = hashlib.sha256(f.read()).hexdigest()
        twin = first.setdefault((c["graph"], c["plan_digest"]), c)
        c["twin"] = None if twin is c else twin
        c["same_plan_as"] = None if twin is c else config_name(twin)


# ---------------------------------------------------------------- graphs

def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMG]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: '{text}' (N, NK, NM or NG)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def graph_name(path):
    base = os.path.basename(path)
    for suffix in (".graph.json", ".json"):
        if base.endswith(suffix):
            return base[:-len(suffix)]
    return base


def default_graphs():
    return (sorted(glob.glob(os.path.join(ROOT, "examples", "*.graph.json"))) +
            sorted(glob.glob(os.path.join(HERE, "graphs", "*.graph.json"))))


def resolve_graph(spec):
    if os.path.isfile(spec):
        return os.path.abspath(spec)
    for p in default_graphs():
        if graph_name(p) == spec:
            return p
    names = ", ".join(graph_name(p) for p in default_graphs())
    raise argparse.ArgumentTypeError(
        f"no graph '{spec}' (a .graph.json file or one of: {names})")


def compute_scale(graph, override):
    if override is not None:
        return override
    topo = graph.get("topology", "")
    preset = topo if isinstance(topo, str) else topo.get("preset", "")
    return 1.0 if str(preset).startswith("host") else NPU_COMPUTE_SCALE


def host_graph(graph, calib, ranks, scale):
    """scripts/demo.sh's pricing: host-N with calibrated links, every group
    on the N ranks, compute scaled."""
    g = json.loads(json.dumps(graph))
    g["topology"] = {"preset": f"host-{ranks}", "link_params": calib}
    g["groups"] = [{"name": grp["name"], "ranks": list(range(ranks))}
                   for grp in g["groups"]]
    for op in g["ops"]:
        if op["op"] == "compute" and "time_us" in op:
            op["time_us"] *= scale
    return g


def horovod_buckets(graph, cycle_us, fusion_bytes):
    """Horovod's tensor fusion on the graph's ready timeline: lists of
    all_reduce op indices, each one fused all_reduce. A gradient is ready
    when the compute op that produced it ends (compute runs back to back in
    op order); the background thread picks up at each cycle tick the
    tensors that became ready since the last one and fuses them, in ready
    order, into buffers of at most fusion_bytes (same group, reduction and
    dtype); a tensor larger than the buffer goes alone."""
    tensors = {t["name"]: t for t in graph["tensors"]}

    def nbytes(name):
        t = tensors[name]
        n = DTYPE_BYTES[t["dtype"]]
        for d in t["shape"]:
            n *= d
        return n

    ready = {}          # tensor -> time it is produced
    clock = 0.0
    consumers = {}      # tensor -> index of first op reading it
    for i, op in enumerate(graph["ops"]):
        for t in op["inputs"]:
            consumers.setdefault(t, i)
    buckets, cur, cur_key, cur_bytes, cur_tick = [], [], None, 0, None
    for i, op in enumerate(graph["ops"]):
        if op["op"] == "compute":
            clock += op.get("time_us", 0.0)
            for t in op["outputs"]:
                ready[t] = clock
            continue
        if op["op"] != "all_reduce":
            # Another collective: fused buckets do not reach across it.
            if cur:
                buckets.append(cur)
            cur, cur_key, cur_bytes, cur_tick = [], None, 0, None
            continue
        t_ready = max([ready.get(t, 0.0) for t in op["inputs"]] + [0.0])
        tick = math.ceil(t_ready / cycle_us) if cycle_us > 0 else t_ready
        size = sum(nbytes(t) for t in op["inputs"])
        key = (op.get("group"), op.get("reduction", "sum"),
               tuple(tensors[t]["dtype"] for t in op["inputs"]))
        # A consumer of a bucket member's result before this op would have
        # to move past the fused op: close the bucket there instead.
        blocked = any(consumers.get(o, len(graph["ops"])) < i
                      for j in cur for o in graph["ops"][j]["outputs"])
        if (cur and (tick != cur_tick or key != cur_key or blocked or
                     cur_bytes + size > fusion_bytes)):
            buckets.append(cur)
            cur, cur_bytes = [], 0
        cur.append(i)
        cur_key, cur_tick = key, tick
        cur_bytes += size
        for t in op["outputs"]:
            ready[t] = clock
    if cur:
        buckets.append(cur)
    return buckets


def fuse_graph(graph, buckets):
    """The graph with each bucket as one multi-input all_reduce at the
    position of its last member."""
    g = json.loads(json.dumps(graph))
    last = {b[-1]: b for b in buckets if len(b) > 1}
    dropped = {i for b in buckets if len(b) > 1 for i in b[:-1]}
    ops = []
    for i, op in enumerate(graph["ops"]):
        if i in dropped:
            continue
        if i in last:
            members = [graph["ops"][j] for j in last[i]]
            op = dict(op)
            op["name"] = f"horovod.bucket{len(ops)}"
            op["inputs"] = [t for m in members for t in m["inputs"]]
            op["outputs"] = [t for m in members for t in m["outputs"]]
        ops.append(op)
    g["ops"] = ops
    return g


# ---------------------------------------------------------------- the bench

def check_provenance(calib, args):
    """A --link-params file calibrate_host.py wrote says how it measured
    ("calibrated"): refuse one taken at another rank count or issue mode
    than this run's (its wake-up belongs to them: docs/performance.md,
    "Starts held on the stream"). Files without it are taken as given."""
    how = calib.get("calibrated") if isinstance(calib, dict) else None
    if not isinstance(how, dict):
        return
    issue = args.issue or "ahead"
    if how.get("ranks") not in (None, args.ranks):
        raise ToolError(f"--link-params {args.link_params}: calibrated at "
                        f"{how['ranks']} ranks, this run has --ranks {args.ranks}")
    cold = bool(how.get("flush_mib")) or bool(how.get("evict_buffers"))
    if how.get("flush_mib") is not None and cold != (
            args.buffer_span_mib is not None):
        raise ToolError(f"--link-params {args.link_params}: calibrated "
                        + ("from memory (--flush-mib or --evict-buffers), this "
                           "run measures warm (no --buffer-span-mib)" if cold else
                           "warm, this run measures from memory "
                           "(--buffer-span-mib); calibrate with --flush-mib or "
                           "--evict-buffers"))
    if how.get("issue") not in (None, issue) and how.get("gap_us"):
        raise ToolError(f"--link-params {args.link_params}: its cold calls were "
                        f"held with --issue {how['issue']}, this run issues "
                        f"--issue {issue}; calibrate again with --issue {issue}")


# The calibrations that failed and were taken again (--retries), by graph.
CALIBRATION_RETRIES = []


def print_calibration_retries(retries):
    if retries:
        print(f"calibrate_host.py failed and was run again {len(retries)} "
              "times, for: " + ", ".join(retries))


def calibrate(args, work, tag=""):
    if args.link_params:
        with open(args.link_params) as f:
            calib = json.load(f)
        check_provenance(calib, args)
        return calib, args.link_params
    out = os.path.join(work, f"host-calibration-p{args.ranks}{tag}.json")
    cmd = [sys.executable, os.path.join(ROOT, "tools", "calibrate", "calibrate_host.py"),
           "--hccl-test", args.hccl_test or os.path.join(args.bin, "hccl-test"),
           "-p", str(args.ranks),
           "-o", out] + (["--issue", args.issue] if args.issue else []) \
        + shlex.split(args.calibrate_opts)
    if args.nice:
        cmd = ["nice", "-n", str(args.nice)] + cmd
    log(f"calibrating host-{args.ranks}: {' '.join(cmd)}")
    for attempt in range(args.retries + 1):
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        sys.stderr.write(res.stdout)
        # Exit 3 is calibrate_host's verdict that the host is too noisy,
        # not a failed run: another try would only shop for a quiet moment;
        # exit 2 is a bad option (--calibrate-opts), the same every time.
        if res.returncode in (0, 2, 3) or attempt == args.retries:
            break
        last = (res.stderr.strip().splitlines() or [""])[-1].strip()
        log(f"calibrate_host.py failed (retrying, --retries {args.retries}): "
            f"{last}")
        CALIBRATION_RETRIES.append(tag.lstrip("-") or "all graphs")
    if res.returncode != 0:
        hint = ("\n(more rounds with --calibrate-opts '-n 50 -r 15', or "
                "measured figures with --link-params FILE)"
                if res.returncode == 3 else "")
        raise ToolError(f"calibrate_host.py failed (exit {res.returncode}): "
                        f"{' '.join(cmd)}\n{res.stderr.strip()}{hint}")
    with open(out) as f:
        return json.load(f), out


def compile_config(tools, work, gname, mlir, graph_host, policy, inflight, extra):
    """Compile one configuration; returns (prediction, plan path, buckets)."""
    tag = f"{gname}.{policy}.k{inflight}"
    src = mlir
    if policy == "horovod":
        src = os.path.join(work, f"{gname}.horovod.mlir")
        if not os.path.exists(src):
            gpath = os.path.join(work, f"{gname}.horovod.graph.json")
            with open(gpath, "w") as f:
                json.dump(graph_host["horovod"], f)
            tools.run("hccl-translate", ["--import-graph", gpath, "-o", src])
    opts = " ".join(x for x in (POLICY_OPTS[policy], f"max-in-flight={inflight}",
                                extra) if x)
    sched = os.path.join(work, f"{tag}.mlir")
    tools.run("hccl-opt", [src, f"--hccl-pipeline=lower=false {opts}", "-o", sched])
    est = tools.run("hccl-opt", [sched, "--comm-estimate", "-o", os.devnull])
    pred = parse_estimate(est, tag)
    lowered = tools.run("hccl-opt", [sched, "--comm-lower-schedule",
                                     "--comm-verify-schedule"])
    plan = os.path.join(work, f"{tag}.plan.json")
    tools.run("hccl-translate", ["--comm-to-plan", "-o", plan], stdin=lowered)
    with open(sched) as f:
        buckets = sum(1 for line in f if "comm.start" in line)
    return pred, plan, buckets, opts, sched


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="validate_model.py",
        description="The cost model (comm-estimate) against hccl-run, per graph, "
                    "bucketing policy and in-flight setting (issue 15).")
    ap.add_argument("--graphs", nargs="+", metavar="G",
                    help="graph names (examples/*.graph.json, bench/model/graphs/"
                         "*.graph.json, without .graph.json) or files; default all")
    ap.add_argument("--policies", nargs="+", choices=POLICIES, metavar="P",
                    help=f"of {', '.join(POLICIES)}; default all")
    ap.add_argument("--in-flight", nargs="+", type=int, metavar="K",
                    help="max-in-flight settings, 0 = unlimited (default 1 2 0)")
    ap.add_argument("--ranks", type=int, help="local ranks (default 4)")
    ap.add_argument("--rounds", type=int, help="measured rounds per configuration "
                    "(default 3)")
    ap.add_argument("--iters", type=int, help="hccl-run -n per round (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="hccl-run -w (default 1)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: resnet18-host, none / ddp / optimal, unlimited "
                         "in flight, 2 ranks, 2 rounds of 2 iterations (options "
                         "given explicitly still win)")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                    help="folder with hccl-opt, hccl-translate, hccl-run, hccl-test "
                         "(default build/bin; ../lib beside it goes on LD_LIBRARY_PATH)")
    ap.add_argument("--hccl-test", metavar="PATH",
                    help="hccl-test for the calibration and --phase-probe "
                         "(default: --bin's)")
    ap.add_argument("--calibrate-opts", default="", metavar="OPTS",
                    help="extra calibrate_host.py options, e.g. '-n 50 -r 15' "
                         "(default: its own, as scripts/demo.sh runs it)")
    ap.add_argument("--link-params", metavar="FILE",
                    help="calibrated link figures for host-N (calibrate_host.py's "
                         "output for the same --ranks); default: calibrate now")
    ap.add_argument("--calibrate-each-graph", action="store_true",
                    help="calibrate just before each graph, and price and measure "
                         "it with that calibration (graph by graph; the rounds "
                         "rotate within a graph): the host's figures drift over the "
                         "tens of minutes a full run takes. Excludes --link-params")
    ap.add_argument("--compute-scale", type=float,
                    help="multiply every graph's compute times by this (default: 1 "
                         "for host-priced graphs, 16 for NPU-priced ones)")
    ap.add_argument("--pipeline", default="", metavar="OPTS",
                    help="extra --hccl-pipeline options for every configuration")
    ap.add_argument("--optimal-pipeline", default="", metavar="OPTS",
                    help="extra --hccl-pipeline options for the optimal policy "
                         "alone, e.g. 'slack-margin=0' (the default is 1), which the "
                         "pipeline refuses under the other policies")
    ap.add_argument("--horovod-cycle-ms", type=float, default=5.0)
    ap.add_argument("--horovod-fusion-bytes", type=parse_size, default=64 << 20)
    ap.add_argument("--predict-only", action="store_true",
                    help="compile and predict only: print the predictions and "
                         "how long measuring would take")
    ap.add_argument("--check", action="store_true",
                    help="hccl-run -c 1: check every collective's result (slower)")
    ap.add_argument("--retries", type=int, default=0,
                    help="run a failed hccl-run (or calibrate_host.py run, "
                         "but not one that found the host too noisy) again up "
                         "to N times; each failure is counted in the report "
                         "(default 0: the first fails the bench)")
    ap.add_argument("--spin-us", type=int, metavar="N",
                    help="hccl-run --spin-us N: sleep until N us before each "
                         "start, then yield (default: hccl-run's 100). On a VM a "
                         "long sleep sometimes ends 10-23 ms late, and a start "
                         "issued that late is exposed, which an NPU's host, "
                         "running ahead of its device, never is; 20000 made "
                         "late starts rarer at 2 ranks, not absent "
                         "(docs/performance.md). Each "
                         "waiting host thread then yields a core's time away: "
                         "keep it small when ranks outnumber cores")
    ap.add_argument("--host-slice-us", type=int, metavar="N",
                    help="hccl-run --host-slice-us N: the host thread asks the "
                         "kernel (Linux 6.12+) for an N us scheduler slice, so "
                         "that it can preempt busy runtime threads sooner when "
                         "it wakes to issue a start (default: hccl-run's 0, the "
                         "kernel's slice)")
    ap.add_argument("--max-buffer-mib", type=int, metavar="M",
                    help="hccl-run --max-buffer-mib M: above M MiB of buffers "
                         "per rank the plan's collectives share one buffer pair "
                         "(0: always). Default: hccl-run's 1024. On this VM, "
                         "ranks that touch hundreds of MiB of distinct buffers "
                         "an iteration woke tens of ms late at 4 ranks "
                         "(docs/performance.md, run 17); the calibration reuses "
                         "one buffer per size")
    ap.add_argument("--buffer-span-mib", type=int, metavar="S",
                    help="hccl-run --buffer-span-mib S: with shared buffers "
                         "(--max-buffer-mib), each launch takes the next "
                         "stretch of an S MiB span, so that its data comes "
                         "from memory as in a training step, not from the "
                         "caches the collective before it filled (which "
                         "favours plans whose buckets repeat one size: "
                         "docs/performance.md, runs 23-26). Needs "
                         "--max-buffer-mib and a calibration from memory: "
                         "--calibrate-opts '--evict-buffers' or '--flush-mib "
                         "N' (or a --link-params file measured so)")
    ap.add_argument("--issue", choices=("ahead", "host"),
                    help="hccl-run --issue, and calibrate_host.py --issue for "
                         "the calibration made here: ahead (hccl-run's "
                         "default) queues an iteration's starts at once, each "
                         "held on its stream until the device clock reaches it "
                         "(no host wake-up between a collective's end and the "
                         "next start, as on an NPU; docs/performance.md, "
                         "\"Starts held on the stream\"); host: hccl-run's host "
                         "thread issues each start. A --link-params file "
                         "should have been calibrated the same way")
    ap.add_argument("--phase-probe", type=parse_size, metavar="SIZE",
                    help="time an all-reduce of SIZE bytes (K/M/G, a size "
                         "over 1M the calibration timed, e.g. 64M) as the "
                         "calibration timed it, before the first measured run "
                         "and after each, and price each run's plan again at "
                         "the host's memory phase then (the calibration's "
                         "bandwidths divided by how much longer the probe's "
                         "bytes took than the calibrated model prices them: "
                         "hccl-opt --comm-estimate=link-params); its errors are "
                         "reported after the plain report. Needs a calibration "
                         "by calibrate_host.py since 2026-12-07 (its medians "
                         "say which sizes it timed)")
    ap.add_argument("--phase-inside", action="store_true",
                    help="with --phase-probe, also probe inside each run: "
                         "hccl-run --phase-probe times the same call before "
                         "the first timed iteration and after each, and each "
                         "iteration is priced at the phase of the probes "
                         "around it (a phase can come and go between two "
                         "runs' probes); its errors are reported after the "
                         "--phase-probe ones. hccl-run times from memory as "
                         "calibrate_host.py --evict-buffers does (queued): the "
                         "calibration must have been taken so")
    ap.add_argument("--nice", type=int, default=5,
                    help="run hccl-run and the calibration under nice -n N (0: no)")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds one hccl-run may take (default 1800)")
    ap.add_argument("--work", help="folder for intermediate files (kept); default "
                    "a temporary one, removed at the end")
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--csv", metavar="FILE", help="write one row per configuration")
    ap.add_argument("--json", metavar="FILE", help="write rows and summary as JSON")
    ap.add_argument("--from-json", metavar="FILE",
                    help="measure nothing: print the report (and --csv) again from "
                         "an earlier run's --json output")
    args = ap.parse_args(argv)
    if args.from_json:
        return report_again(args)

    q = QUICK if args.quick else {}
    try:
        graphs = [resolve_graph(g) for g in (args.graphs or q.get("graphs") or [])]
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    if not graphs:
        graphs = default_graphs()
    policies = args.policies or q.get("policies") or POLICIES
    in_flight = args.in_flight or q.get("in_flight") or [1, 2, 0]
    args.ranks = args.ranks or q.get("ranks") or 4
    args.rounds = args.rounds or q.get("rounds") or 3
    args.iters = args.iters or q.get("iters") or 5
    if any(k < 0 for k in in_flight):
        ap.error("--in-flight values must be >= 0 (0 = unlimited)")
    if args.ranks < 2:
        ap.error("--ranks must be >= 2")
    if args.rounds < 1 or args.iters < 1 or args.warmup < 0:
        ap.error("--rounds and --iters must be >= 1, --warmup >= 0")
    if args.retries < 0:
        ap.error("--retries must be >= 0")
    if args.spin_us is not None and not 0 <= args.spin_us <= 10_000_000:
        ap.error("--spin-us must be in 0..10000000")
    if args.host_slice_us is not None and not (
            args.host_slice_us == 0 or 100 <= args.host_slice_us <= 100_000):
        ap.error("--host-slice-us must be 0 or in 100..100000")
    if any(t == "--issue" or t.startswith("--issue=")
           for t in shlex.split(args.calibrate_opts or "")):
        ap.error("--calibrate-opts: give --issue to validate_model.py, which "
                 "passes it to both the calibration and hccl-run")
    if args.max_buffer_mib is not None and not 0 <= args.max_buffer_mib <= 1 << 20:
        ap.error("--max-buffer-mib must be in 0..1048576")
    if args.buffer_span_mib is not None and not 1 <= args.buffer_span_mib <= 65536:
        ap.error("--buffer-span-mib must be in 1..65536")
    if args.buffer_span_mib is not None and args.max_buffer_mib is None:
        ap.error("--buffer-span-mib places collectives in hccl-run's shared "
                 "buffer pair: give --max-buffer-mib too (0: always shared)")
    # Measured from memory and priced warm, or the other way round, is not
    # a validation of either (docs/performance.md, runs 23-26).
    flush = any(t in ("--flush-mib", "--evict-buffers")
                or t.startswith("--flush-mib=")
                for t in shlex.split(args.calibrate_opts or ""))
    if not args.link_params and flush != (args.buffer_span_mib is not None):
        ap.error("--buffer-span-mib measures collectives from memory and "
                 "--calibrate-opts '--evict-buffers' or '--flush-mib N' "
                 "prices them so: give both or neither")
    if args.compute_scale is not None and args.compute_scale <= 0:
        ap.error("--compute-scale must be > 0")
    if args.horovod_cycle_ms < 0:
        ap.error("--horovod-cycle-ms must be >= 0")
    if args.horovod_fusion_bytes <= 0:
        ap.error("--horovod-fusion-bytes must be > 0")
    if args.phase_probe is not None and args.phase_probe <= (1 << 20):
        ap.error("--phase-probe must be over 1M: the probe reads the bytes' cost, "
                 "which the fixed costs hide below that, and the calibration "
                 "timed 1M and less with another call count (--small-iters)")
    if args.phase_inside and not args.phase_probe:
        ap.error("--phase-inside probes with --phase-probe's call: give --phase-probe SIZE")
    if args.phase_probe and args.predict_only:
        ap.error("--phase-probe prices measured runs: it excludes --predict-only")
    if args.link_params and args.calibrate_each_graph:
        ap.error("--calibrate-each-graph calibrates: it excludes --link-params")
    if args.link_params and not os.path.isfile(args.link_params):
        ap.error(f"--link-params: no file '{args.link_params}'")
    policies = list(dict.fromkeys(policies))
    in_flight = list(dict.fromkeys(in_flight))
    names = [graph_name(g) for g in graphs]
    if len(set(names)) != len(names):
        ap.error("two graphs with the same name")
    args.bin = os.path.abspath(args.bin)

    work = args.work or tempfile.mkdtemp(prefix="validate_model.")
    os.makedirs(work, exist_ok=True)
    try:
        return bench(args, graphs, policies, in_flight, work)
    except ToolError as e:
        print(f"validate_model: error: {e}", file=sys.stderr)
        return 1
    finally:
        if not args.work and not args.keep_work:
            shutil.rmtree(work, ignore_errors=True)
        elif not args.work:
            log(f"intermediate files kept in {work}")


def compile_graph(args, tools, work, gpath, calib, policies, in_flight):
    """Every configuration of one graph, compiled and predicted with `calib`."""
    gname = graph_name(gpath)
    with open(gpath) as f:
        graph = json.load(f)
    scale = compute_scale(graph, args.compute_scale)
    host = host_graph(graph, calib, args.ranks, scale)
    variants = {"plain": host}
    if "horovod" in policies:
        b = horovod_buckets(host, args.horovod_cycle_ms * 1e3, args.horovod_fusion_bytes)
        variants["horovod"] = fuse_graph(host, b)
    gjson = os.path.join(work, f"{gname}.graph.json")
    with open(gjson, "w") as f:
        json.dump(host, f)
    mlir = os.path.join(work, f"{gname}.mlir")
    tools.run("hccl-translate", ["--import-graph", gjson, "-o", mlir])
    extra = " ".join(x for x in (GRAPH_PIPELINE.get(gname, ""), args.pipeline) if x)
    configs = []
    for k in in_flight:
        for pol in policies:
            ext = " ".join(x for x in (extra, args.optimal_pipeline
                                       if pol == "optimal" else "") if x)
            pred, plan, nb, opts, sched = compile_config(tools, work, gname, mlir,
                                                         variants, pol, k, ext)
            configs.append({"graph": gname, "policy": pol, "in_flight": k,
                            "scale": scale, "pipeline": opts, "buckets": nb,
                            "pred": pred, "plan": plan, "sched": sched,
                            "calib": calib, "runs": [], "failures": []})
    mark_same_plans(configs)
    log(f"{gname}: compiled {len(policies) * len(in_flight)} configurations "
        f"(compute x{scale:g}), {len(distinct(configs))} distinct plans")
    return configs


def print_calibrations(calibrations):
    print("calibrated before each graph:")
    for g, c in calibrations.items():
        print(f"  {g} ({c['taken_utc']} UTC): {calibration_figures(c['params'])}")


def calibration_figures(c):
    intra = c.get("intra", {})
    return (f"alpha {intra.get('latency_us')} us, {intra.get('bandwidth_gbps')} GB/s, "
            f"reduction {c.get('reduce_gbps')} GB/s, overhead "
            f"{c.get('collective_overhead_us', 0)} us per collective, wake-up "
            f"{c.get('collective_wakeup_us', 0)} us"
            + (f" (all of it after {c['collective_wakeup_idle_us']} us idle)"
               if c.get("collective_wakeup_idle_us") else "")
            + "".join(f", x{f} past {b} B" for b, f in knees_of(c)))


def print_predictions(configs):
    print(f"{'graph':<16} {'policy':<8} {'k':>3} {'bkts':>5} | {'pred it':>9} "
          f"{'pred exp':>9} {'pred cmp':>9}")
    for c in configs:
        p = c["pred"]
        print(f"{c['graph']:<16} {c['policy']:<8} {c['in_flight'] or 'inf':>3} "
              f"{c['buckets']:>5} | {p['iter_ms']:9.3f} {p['exposed_ms']:9.3f} "
              f"{p['compute_ms']:9.3f}"
              + (f"  = {c['same_plan_as']}" if c.get("same_plan_as") else ""))


def hccl_run_args(args, plan, probe=None):
    """hccl-run's arguments for one measured run of `plan` (with
    --phase-inside, its probe's call between the iterations)."""
    cmd = [plan, "-p", str(args.ranks), "-n", str(args.iters),
           "-w", str(args.warmup), "-c", "1" if args.check else "0"]
    if probe and args.phase_inside:
        cmd += ["--phase-probe", str(probe.size), "--phase-probe-calls", str(probe.iters)]
    for opt, val in (("--spin-us", args.spin_us),
                     ("--host-slice-us", args.host_slice_us),
                     ("--max-buffer-mib", args.max_buffer_mib),
                     ("--buffer-span-mib", args.buffer_span_mib),
                     ("--issue", args.issue)):
        if val is not None:
            cmd += [opt, str(val)]
    return cmd


def measure(args, tools, configs, progress, probe=None):
    """args.rounds rounds over `configs`, each round in a rotated order so
    that drift hits every configuration alike; fills each one's "runs".
    With a PhaseProbe, the host's phase is probed before the first run and
    after each, and each run gets "phase" and "phase_drift" (run_phase).
    `progress` counts runs across calls: [done, total, slice refusals,
    graphs not yet compiled] (while the last is above 0 the total still
    counts their twins: an upper bound, shown as such).
    A config whose plan is an earlier one's (mark_same_plans) is not run: it
    shares its twin's runs."""
    twins = [c for c in configs if c.get("twin")]
    configs = distinct(configs)
    before = probe.factor() if probe else None
    for r in range(args.rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for c in order:
            cmd = hccl_run_args(args, c["plan"], probe)
            what = f"{c['graph']} {c['policy']} in-flight {c['in_flight'] or 'unlimited'}"
            for attempt in range(args.retries + 1):
                try:
                    out = tools.run("hccl-run", cmd, measure=True, timeout=args.timeout)
                    break
                except ToolError as e:
                    if attempt == args.retries:
                        raise
                    first = next((l for l in str(e).splitlines()[1:]
                                  if "WARNING" not in l), "")
                    c["failures"].append(first)
                    log(f"hccl-run failed on {what} (retrying, --retries "
                        f"{args.retries}): {first}")
            m = parse_run(out, what)
            if "refused --host-slice-us" in tools.last_stderr:
                progress[2] += 1
            phase = ""
            if probe:
                after = probe.factor()
                m["phase_raw"], m["phase_drift"] = run_phase(before, after), after / before
                # Priced at this step (price_at_phases), and shown so.
                m["phase"] = quantize_phase(m["phase_raw"])
                before = after
                phase = f", phase x{m['phase']:.2f}"
                if "probes_us" in m:
                    m["inside_phase"] = probe.inside_phases(m["probes_us"])
                    phase += (f", inside x{min(m['inside_phase']):.2f}.."
                              f"x{max(m['inside_phase']):.2f}")
            c["runs"].append(m)
            progress[0] += 1
            bound = " at most" if len(progress) > 3 and progress[3] else ""
            log(f"[{progress[0]}/{progress[1]}{bound}] round {r + 1}: {what}: {m['iter_ms']:.2f} "
                f"ms (predicted {c['pred']['iter_ms']:.2f}{phase})")
    for c in twins:
        c["runs"] = c["twin"]["runs"]


def bench(args, graphs, policies, in_flight, work):
    tools = Tools(args.bin, args.nice)
    started = time.time()
    # hccl-run's buffers are shared memory; on a VM that shadows page tables,
    # 4 KiB pages of a span cost resnet18-host 47-155% over its price at 2
    # ranks (docs/performance.md, "Huge pages for shared memory").
    huge = host_memory.shmem_huge_mode()
    if (args.buffer_span_mib is not None and not args.predict_only
            and huge not in host_memory.ALLOWING):
        log("warning: shared memory gets 4 KiB pages here, so on a VM that "
            "shadows page tables a span costs more than the calibration "
            "prices (docs/performance.md, \"Huge pages for shared memory\"): "
            + host_memory.advice())
    load0 = os.getloadavg()
    progress = [0, len(graphs) * len(policies) * len(in_flight) * args.rounds, 0,
                len(graphs)]
    configs = []
    calibrations = {}
    probes = []
    if args.calibrate_each_graph:
        # Calibrate, compile and measure one graph at a time: the host's
        # memory and wake-up drift over tens of minutes (docs/performance.md,
        # "Calibrated before each graph: run 14"), so each graph is priced with
        # figures taken just before its own runs.
        for gpath in graphs:
            gname = graph_name(gpath)
            calib, src = calibrate(args, work, f"-{gname}")
            calibrations[gname] = {"file": src, "taken_utc": time.strftime(
                "%Y-%m-%d %H:%M", time.gmtime()), "params": calib}
            own = compile_graph(args, tools, work, gpath, calib, policies, in_flight)
            progress[1] -= args.rounds * (len(own) - len(distinct(own)))
            progress[3] -= 1
            configs += own
            if args.predict_only:
                continue
            probe = PhaseProbe(args, tools, calib, gname) if args.phase_probe else None
            measure(args, tools, own, progress, probe)
            probes += [probe] if probe else []
        calib, calib_src = None, None
    else:
        calib, calib_src = calibrate(args, work)
        probe = PhaseProbe(args, tools, calib, "all graphs") if args.phase_probe else None
        probes += [probe] if probe else []
        for gpath in graphs:
            configs += compile_graph(args, tools, work, gpath, calib, policies, in_flight)
        progress[1] -= args.rounds * (len(configs) - len(distinct(configs)))
        progress[3] = 0
    est = sum(c["pred"]["iter_ms"] for c in distinct(configs)) \
        * (args.iters + args.warmup) * args.rounds / 1e3
    if args.predict_only:
        plans = len(distinct(configs))
        log(f"{plans} distinct plans of {len(configs)} configurations x {args.rounds} "
            f"rounds on {args.ranks} ranks would take {est:.0f} s of predicted "
            "iterations alone")
        if calibrations:
            print_calibrations(calibrations)
        print_calibration_retries(CALIBRATION_RETRIES)
        print_predictions(configs)
        return 0
    if not args.calibrate_each_graph:
        log(f"measuring {progress[1] // args.rounds} distinct plans of {len(configs)} "
            f"configurations x {args.rounds} rounds on "
            f"{args.ranks} ranks (predicted iterations alone: {est:.0f} s)")
        measure(args, tools, configs, progress, probe)
    slice_refused = progress[2]
    if args.phase_probe:
        price_at_phases(tools, work, configs)

    rows = []
    for c in configs:
        its = [m["iter_ms"] for m in c["runs"]]
        # None: hccl-run did not count them (before 2026-12-04)
        counted = all(m["late_starts"] is not None for m in c["runs"])
        p = c["pred"]
        meas_it = statistics.median(its)
        meas_exp = statistics.median(m["exposed_ms"] for m in c["runs"])
        meas_cmp = statistics.median(m["compute_ms"] for m in c["runs"])
        rows.append({
            "graph": c["graph"], "policy": c["policy"], "in_flight": c["in_flight"],
            "buckets": c["buckets"], "compute_scale": c["scale"],
            "pred_iter_ms": p["iter_ms"], "meas_iter_ms": meas_it,
            "iter_err": rel_error(p["iter_ms"], meas_it),
            # diagnostic: the prediction with the compute the sleeps really
            # took (hccl-run's compute column) in place of the predicted
            # compute: what is left is the communication's share
            "iter_err_meas_compute": rel_error(p["iter_ms"] - p["compute_ms"] + meas_cmp,
                                               meas_it),
            "pred_exposed_ms": p["exposed_ms"], "meas_exposed_ms": meas_exp,
            # exposed error as a share of the measured iteration (exposed
            # times near 0 make a plain relative error meaningless)
            "exposed_err_of_iter": (p["exposed_ms"] - meas_exp) / meas_it if meas_it > 0 else None,
            "pred_compute_ms": p["compute_ms"], "meas_compute_ms": meas_cmp,
            "meas_spread": spread(its), "meas_range_ms": max(its) - min(its),
            "rounds": len(its), "failed_runs": len(c["failures"]),
            "late_starts": sum(m["late_starts"] for m in c["runs"]) if counted else None,
            "worst_late_ms": max(m["worst_late_ms"] for m in c["runs"]) if counted else None,
            "pipeline": c["pipeline"], "round_iter_ms": its,
            "plan_digest": c["plan_digest"], "same_plan_as": c["same_plan_as"],
        })
        if args.phase_probe:
            rows[-1].update(phase_fields(c["runs"], meas_it))
        if args.phase_inside:
            rows[-1].update(inside_fields(c["runs"]))
    summary = summarize(rows, policies, in_flight)
    add_phase_summaries(summary, rows, in_flight)
    load1 = os.getloadavg()
    meta = {"date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
            "duration_s": round(time.time() - started, 1),
            "load_start": [round(x, 2) for x in load0],
            "load_end": [round(x, 2) for x in load1],
            "ranks": args.ranks, "rounds": args.rounds, "iters": args.iters,
            "warmup": args.warmup, "spin_us": args.spin_us,
            "host_slice_us": args.host_slice_us,
            "max_buffer_mib": args.max_buffer_mib,
            "buffer_span_mib": args.buffer_span_mib,
            "issue": args.issue or "ahead",  # hccl-run's default
            "shmem_huge_pages": huge,
            "host_slice_refused_runs": slice_refused,
            "calibration_retries": list(CALIBRATION_RETRIES),
            "calibration": calib, "calibration_file": calib_src,
            "calibrations": calibrations,
            "phase_probes": [p.record() for p in probes],
            "phase_inside": bool(args.phase_inside),
            "command": " ".join(sys.argv)}
    print_report(rows, summary, meta, policies)
    if args.csv:
        write_csv(args.csv, rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows, "summary": summary}, f, indent=1)
            f.write("\n")
    return 0


def write_csv(path, rows):
    lists = [k for k in ("round_iter_ms", "round_phase", "round_phase_pred_iter_ms")
             if k in rows[0]]
    # "inside" (--phase-inside: lists per run) stays in the JSON
    keys = [k for k in rows[0] if k not in lists and k != "inside"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys + lists)
        w.writeheader()
        for r in rows:
            w.writerow({**{k: r[k] for k in keys},
                        **{k: " ".join(f"{x:.3f}" for x in r[k]) for k in lists}})


def report_again(args):
    try:
        with open(args.from_json) as f:
            data = json.load(f)
        rows, meta = data["rows"], data["meta"]
        for r in rows:
            r.setdefault("failed_runs", 0)
            r.setdefault("late_starts", None)
            r.setdefault("worst_late_ms", None)
            r["iter_err_meas_compute"] = rel_error(
                r["pred_iter_ms"] - r["pred_compute_ms"] + r["meas_compute_ms"],
                r["meas_iter_ms"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"validate_model: error: --from-json {args.from_json}: {e}", file=sys.stderr)
        return 1
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    in_flight = list(dict.fromkeys(r["in_flight"] for r in rows))
    summary = summarize(rows, policies, in_flight)
    add_phase_summaries(summary, rows, in_flight)
    print_report(rows, summary, meta, policies)
    if args.csv:
        write_csv(args.csv, rows)
    return 0


def summarize(rows, policies, in_flight):
    """Per graph and in-flight setting, per graph and overall. The rank
    correlation, the errors, the separated pairs and the spreads count each
    distinct plan once (distinct_plans); the optimal verdict looks at every
    policy (a twin of optimal's plan has its very runs)."""
    s = {"groups": [], "graphs": []}
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    for g in graphs:
        for k in in_flight:
            every = [r for r in rows if r["graph"] == g and r["in_flight"] == k]
            grp = distinct_plans(every)
            rho = spearman([r["pred_iter_ms"] for r in grp], [r["meas_iter_ms"] for r in grp])
            med, worst = error_summary([r["iter_err"] for r in grp])
            s["groups"].append({"graph": g, "in_flight": k, "rho": rho,
                                "rho_ceiling": rho_ceiling([r["pred_iter_ms"] for r in grp]),
                                "plans": len(grp), "configs": len(every),
                                "median_err": med, "worst_err": worst,
                                "pairs": separated_pairs(grp),
                                "optimal": optimal_verdict(every)})
        grp = distinct_plans([r for r in rows if r["graph"] == g])
        rho = spearman([r["pred_iter_ms"] for r in grp], [r["meas_iter_ms"] for r in grp])
        med, worst = error_summary([r["iter_err"] for r in grp])
        s["graphs"].append({"graph": g, "rho": rho, "median_err": med, "worst_err": worst})
    one = distinct_plans(rows)
    med, worst = error_summary([r["iter_err"] for r in one])
    emed, eworst = error_summary([r["exposed_err_of_iter"] for r in one])
    cmed, cworst = error_summary([r["iter_err_meas_compute"] for r in one])
    rhos = [x["rho"] for x in s["groups"] if x["rho"] is not None]
    pairs = [x["pairs"] for x in s["groups"]]
    verdicts = [x["optimal"] for x in s["groups"] if x["optimal"]]
    s["overall"] = {
        "median_err": med, "worst_err": worst,
        "exposed_median_err_of_iter": emed, "exposed_worst_err_of_iter": eworst,
        "meas_compute_median_err": cmed, "meas_compute_worst_err": cworst,
        "rho_mean": statistics.mean(rhos) if rhos else None,
        "rho_min": min(rhos) if rhos else None,
        "separated_pairs_agree": sum(a for a, _ in pairs),
        "separated_pairs": sum(n for _, n in pairs),
        "optimal_ok": sum(1 for v in verdicts if v[0] == "ok"),
        "optimal_checked": len(verdicts),
        "plans": len(one), "configs": len(rows),
        "median_spread": statistics.median(r["meas_spread"] for r in one),
        "worst_spread": max(r["meas_spread"] for r in one),
    }
    o = s["overall"]
    o["targets"] = {
        "median_err<=10%": med is not None and med <= TARGET_MEDIAN_ERR,
        "worst_err<=25%": worst is not None and worst <= TARGET_WORST_ERR,
        "rho>=0.9 (every graph and in-flight setting)":
            bool(rhos) and min(rhos) >= TARGET_RHO and len(rhos) == len(s["groups"]),
        "optimal no slower beyond noise": bool(verdicts) and o["optimal_ok"] == len(verdicts),
    }
    return s


def print_report(rows, summary, meta, policies):
    print(f"validate_model: {meta['date_utc']}, {meta['ranks']} ranks, "
          f"{meta['rounds']} rounds x {meta['iters']} iterations (+{meta['warmup']} "
          f"warm-up), load {meta['load_start'][0]:.2f} -> {meta['load_end'][0]:.2f}, "
          f"{meta['duration_s']:.0f} s"
          + (f", hccl-run --max-buffer-mib {meta['max_buffer_mib']}"
             if meta.get("max_buffer_mib") is not None else "")
          + (f", hccl-run --buffer-span-mib {meta['buffer_span_mib']}"
             if meta.get("buffer_span_mib") is not None else "")
          + (f", hccl-run --issue {meta['issue']}" if meta.get("issue") else "")
          + (f", shared memory huge pages [{meta['shmem_huge_pages']}]"
             if meta.get("shmem_huge_pages") else "")
          + (f", --phase-probe {meta['phase_probes'][0]['bytes']} B"
             + (" (and inside each run)" if meta.get("phase_inside") else "")
             if meta.get("phase_probes") else ""))
    if meta.get("calibrations"):
        print_calibrations(meta["calibrations"])
    else:
        print(f"calibration: {calibration_figures(meta['calibration'])}")
    print("times in ms; err = (predicted - measured) / measured; cerr = the same "
          "with the measured compute in place of the predicted (diagnostic); exp "
          "err = (predicted - measured exposed) / measured iteration; spread = "
          "(max - min) / median over the rounds")
    phased = "phase" in summary
    if phased:
        print("phase = the host's memory phase (the bytes' cost against the "
              "calibrated model's price, from a --phase-probe call before and after each "
              "run) of "
              "the run that measured the median; at phase = the plan priced at that "
              "phase, p-err% its error")
    hdr = (f"{'graph':<16} {'policy':<8} {'k':>3} {'bkts':>5} | {'pred it':>9} "
           f"{'meas it':>9} {'err%':>6} {'cerr%':>6} | "
           + (f"{'phase':>5} {'at phase':>9} {'p-err%':>6} | " if phased else "")
           + f"{'pred exp':>9} {'meas exp':>9} "
           f"{'exp err%':>8} | {'pred cmp':>9} {'meas cmp':>9} | {'spread%':>7}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        k = r["in_flight"] or "inf"
        print(f"{r['graph']:<16} {r['policy']:<8} {k:>3} {r['buckets']:>5} | "
              f"{r['pred_iter_ms']:9.3f} {r['meas_iter_ms']:9.3f} {pct(r['iter_err']):>6} "
              f"{pct(r['iter_err_meas_compute']):>6} | "
              + (f"{r['phase']:5.2f} {r['phase_pred_iter_ms']:9.3f} "
                 f"{pct(r['phase_iter_err']):>6} | " if phased else "")
              + f"{r['pred_exposed_ms']:9.3f} {r['meas_exposed_ms']:9.3f} "
              f"{pct(r['exposed_err_of_iter']):>8} | {r['pred_compute_ms']:9.3f} "
              f"{r['meas_compute_ms']:9.3f} | {100 * r['meas_spread']:7.1f}"
              + (f"  = {r['same_plan_as']}" if r.get("same_plan_as") else ""))
    print()
    print("per graph and in-flight setting (policies ranked by predicted vs measured "
          "iteration; pairs: of the policy pairs the model separates by more than "
          "the measured noise, those measured in the predicted order; plans: the "
          "distinct plans of the policies, each counted once):")
    print(f"{'graph':<16} {'k':>3} | {'rho':>6} | {'plans':>5} | {'pairs':>7} | "
          f"{'med|err|%':>9} {'worst%':>7} | optimal measured vs best other")
    for g in summary["groups"]:
        k = g["in_flight"] or "inf"
        v = g["optimal"]
        verdict = ("-" if v is None else
                   f"{v[0]}: {v[1]:.2f} vs {v[2]} {v[3]:.2f} (noise {v[4]:.2f})")
        pr = f"{g['pairs'][0]}/{g['pairs'][1]}"
        plans = f"{g['plans']}/{g['configs']}" if "plans" in g else "-"
        print(f"{g['graph']:<16} {k:>3} | {fmt_rho(g['rho']):>6} | {plans:>5} | {pr:>7} | "
              f"{pct(g['median_err']).lstrip('+'):>9} {pct(g['worst_err']).lstrip('+'):>7} | "
              f"{verdict}")
    print()
    print("per graph (all its configurations):")
    for g in summary["graphs"]:
        print(f"{g['graph']:<16} rho {fmt_rho(g['rho'])}, median |err| "
              f"{pct(g['median_err']).lstrip('+')}%, worst {pct(g['worst_err']).lstrip('+')}%")
    o = summary["overall"]
    print()
    print(f"overall: median |err| {pct(o['median_err']).lstrip('+')}%, worst "
          f"{pct(o['worst_err']).lstrip('+')}%; exposed error (of the iteration) "
          f"median {pct(o['exposed_median_err_of_iter']).lstrip('+')}%, worst "
          f"{pct(o['exposed_worst_err_of_iter']).lstrip('+')}%; with the measured "
          f"compute (cerr) median {pct(o['meas_compute_median_err']).lstrip('+')}%, "
          f"worst {pct(o['meas_compute_worst_err']).lstrip('+')}%; rho mean "
          f"{fmt_rho(o['rho_mean'])}, min {fmt_rho(o['rho_min'])}; separated pairs in "
          f"the predicted order {o['separated_pairs_agree']} of {o['separated_pairs']}; "
          f"optimal no slower "
          f"than the best other beyond noise in {o['optimal_ok']} of "
          f"{o['optimal_checked']}; "
          + (f"{o['plans']} distinct plans of {o['configs']} configurations; "
             if "plans" in o else "")
          + f"run-to-run spread median "
          f"{100 * o['median_spread']:.1f}%, worst {100 * o['worst_spread']:.1f}%")
    low = [g for g in summary["groups"] if g["rho"] is not None and g["rho"] < TARGET_RHO]
    if low:
        def ceiling(g):
            c = g.get("rho_ceiling")
            out = f"{fmt_rho(g['rho'])} of {fmt_rho(c)}"
            return out + (" (unreachable)" if c is not None and c < TARGET_RHO else "")
        print(f"rho below {TARGET_RHO}, of the highest the predictions' exact ties allow "
              f"(unreachable: that ceiling is below {TARGET_RHO} itself): "
              + ", ".join(f"{g['graph']} k={g['in_flight'] or 'inf'} {ceiling(g)}"
                          for g in low))
    failed = [r for r in rows if r["failed_runs"]]
    if failed:
        print(f"hccl-run failed and was run again {sum(r['failed_runs'] for r in failed)} "
              f"times, in: " + ", ".join(f"{r['graph']} {r['policy']} k={r['in_flight'] or 'inf'}"
                                        f" ({r['failed_runs']})" for r in failed))
    counted = [r for r in rows if r["late_starts"] is not None]
    late = [r for r in counted if r["late_starts"]]
    if not counted:
        print("late starts: not counted (hccl-run before 2026-12-04)")
    else:
        who = ("a start issued over 1 ms after the device clock reached it "
               "and its stream was free" if meta.get("issue") == "ahead" else
               "hccl-run's host issued a start over 1 ms after its device clock")
        print(f"late starts ({who}): {sum(r['late_starts'] for r in late)} in "
              f"{len(late)} of {len(counted)} configurations"
              + (", worst " + f"{max(r['worst_late_ms'] for r in late):.1f} ms: "
                 + ", ".join(f"{r['graph']} {r['policy']} k={r['in_flight'] or 'inf'} "
                             f"({r['late_starts']})" for r in late) if late else ""))
    print_calibration_retries(meta.get("calibration_retries"))
    if meta.get("host_slice_refused_runs"):
        print(f"the kernel refused --host-slice-us in {meta['host_slice_refused_runs']} "
              f"runs (they timed with the thread's own slice)")
    for name, met in o["targets"].items():
        print(f"target {name}: {'met' if met else 'NOT met'}")
    if phased:
        print_phase_summary(summary["phase"])
    if "inside" in summary:
        print_inside_summary(summary["inside"])


if __name__ == "__main__":
    sys.exit(main())
