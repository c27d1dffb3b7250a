"""The host's memory phase (--phase-probe, --phase-inside): the probe that
times it beside the measured runs, the plans priced again at it, the rows'
figures at the phase and their summaries and report. Its own module
because it is one feature, a quarter of what validate_model.py was, that
the plain bench and report can be read without."""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The probe times as calibrate_host.py does (validate_model.py puts its
# folder on the path first; imported alone, this module does).
CALIBRATE = os.path.join(ROOT, "tools", "calibrate")
if CALIBRATE not in sys.path:
    sys.path.insert(0, CALIBRATE)
from calibrate_host import (hccl_test_cmd, memory_args,  # noqa: E402
                            predict_all_reduce, read_times)
from model_stats import (TARGET_MEDIAN_ERR, TARGET_WORST_ERR,  # noqa: E402
                         config_name, distinct, distinct_plans, error_summary,
                         pct, rel_error)
from model_tools import ToolError, log, parse_estimate  # noqa: E402


# ---------------------------------------------------------------- the host's phase

# Phase factors are rounded to this step before a plan is priced at one, so
# that a configuration's rounds share a few comm-estimate runs.
PHASE_STEP = 0.02


class PhaseProbe:
    """The host's memory phase beside the measured runs (--phase-probe).

    This VM's memory bandwidth changes in phases of seconds to minutes, by
    up to 1.6x (gpt2-xl at 2 ranks, 2026-12-07 16:02-16:04: a 64 MiB
    all-reduce 3.6-4.5 ms in one phase and 5.5-6.9 ms in another, the
    iteration 391-448 ms and 554-636 ms; bench/model/results/
    2026-12-07-1559-gpt2-xl-phases.txt). A calibration prices the phase it was taken
    in. The probe times one all-reduce of `size` bytes as the calibration
    timed its sizes (ring, its memory mode and call count) and returns its
    phase factor: what the call's bytes took over what the calibrated
    model prices them at (the fit's price at that size, so that the model
    at the phase prices the probe's own call exactly as it ran). Not the
    calibration's median at that size: one size's median carries this
    host's noise (run 58's 64 MiB median moved its bytes 1.26-1.30x as
    fast as those of 32 and 128 MiB, its bytes' time 7% under the fit's),
    which that reference would put into every phase; priced against the
    median, run 58's iterations came out 3-11% high at their phases,
    against the fit within 4.1% (bar t256M, whose knee was itself fitted
    to that median): docs/performance.md, "The phase inside each run".
    The median is kept beside it in the JSON."""

    def __init__(self, args, tools, calib, tag):
        self.args, self.tools, self.tag = args, tools, tag
        how = calib.get("calibrated")
        timed = how.get("all_reduce_median_us") if isinstance(how, dict) else None
        if not isinstance(timed, dict):
            raise ToolError("--phase-probe times a call as the calibration timed its "
                            "sizes: the link parameters must carry calibrate_host.py's "
                            "\"calibrated\" with \"all_reduce_median_us\" (written since "
                            "2026-12-07)")
        self.size = args.phase_probe
        if str(self.size) not in timed:
            sizes = ", ".join(k for k in sorted(timed, key=int) if int(k) > (1 << 20))
            raise ToolError(f"--phase-probe {self.size}: the calibration timed no "
                            f"all-reduce of that size; it timed (past 1 MiB): {sizes}")
        if getattr(args, "phase_inside", False) and not (
                how.get("evict_buffers") and how.get("memory_calls") == "queued"):
            raise ToolError("--phase-inside: hccl-run times its probe from memory as "
                            "calibrate_host.py --evict-buffers does (queued calls), "
                            "and this calibration timed "
                            + ("with --flush-mib" if how.get("flush_mib") else
                               "calls issued alone" if how.get("evict_buffers") else
                               "warm calls")
                            + ": calibrate with --calibrate-opts '--evict-buffers' "
                            "(and --buffer-span-mib)")
        self.median = timed[str(self.size)] * 1e-6
        self.baseline = predict_all_reduce(calib, args.ranks, self.size)
        self.iters = how.get("iters", 5)
        self.memory = memory_args(how.get("flush_mib", 0), how.get("evict_buffers", False),
                                  how.get("memory_calls") == "queued")
        # A fitted bandwidth is finite, so the price exceeds the fixed cost.
        self.latency = predict_all_reduce(calib, args.ranks, 0)
        self.times, self.retries = [], 0

    def record(self):
        """What the JSON keeps of this probe (to derive each phase again)."""
        return {"calibration": self.tag, "bytes": self.size, "iters": self.iters,
                # the model's price of the call (before run 59: the median)
                "baseline": "fit",
                "baseline_us": round(self.baseline * 1e6, 3),
                "calibration_median_us": round(self.median * 1e6, 3),
                "fixed_us": round(self.latency * 1e6, 3),
                "times_us": [round(t * 1e6, 3) for t in self.times],
                "retries": self.retries}

    def time_once(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "probe.csv")
            cmd = hccl_test_cmd(self.args.hccl_test or os.path.join(self.args.bin, "hccl-test"),
                                "all_reduce", self.args.ranks, self.size, self.size, 2,
                                self.iters, path, self.memory)
            if self.args.nice:
                cmd = ["nice", "-n", str(self.args.nice)] + cmd
            try:
                res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=self.tools.env,
                                     timeout=self.args.timeout)
            except subprocess.TimeoutExpired:
                raise ToolError(f"phase probe timed out after {self.args.timeout} s: "
                                f"{' '.join(cmd)}")
            except OSError as e:
                raise ToolError(f"phase probe: cannot run {cmd[0]}: {e}")
            if res.returncode != 0:
                raise ToolError(f"phase probe failed (exit {res.returncode}): "
                                f"{' '.join(cmd)}\n{res.stderr.strip()[-2000:]}")
            rows = read_times(path) if os.path.exists(path) else []
        if len(rows) != 1:
            raise ToolError(f"phase probe: expected one row, found {len(rows)}: "
                            f"{' '.join(cmd)}")
        return rows[0][1]

    def factor(self):
        """The phase now (--retries as for hccl-run)."""
        for attempt in range(self.args.retries + 1):
            try:
                t = self.time_once()
                break
            except ToolError as e:
                if attempt == self.args.retries:
                    raise
                self.retries += 1
                log(f"phase probe failed (retrying, --retries {self.args.retries}): "
                    f"{str(e).splitlines()[0]}")
        self.times.append(t)
        return self.factor_of(t)

    def factor_of(self, seconds):
        """The phase of one probe's time (this one's, or hccl-run's)."""
        f = phase_factor(seconds, self.latency, self.baseline)
        if not f > 0:
            raise ToolError(f"phase probe: an all-reduce of {self.size} B took "
                            f"{seconds * 1e6:.1f} us, no more than the calibration's fixed "
                            f"cost ({self.latency * 1e6:.1f} us): no phase to read")
        return f

    def inside_phases(self, probes_us):
        """Each iteration's phase from hccl-run's probes around it (the
        geometric mean of the two, as for a run), to PHASE_STEP."""
        f = [self.factor_of(us * 1e-6) for us in probes_us]
        return [quantize_phase(run_phase(a, b)) for a, b in zip(f, f[1:])]


def phase_factor(measured, fixed, baseline):
    """How much longer the probe's bytes took than the calibration prices
    them: (measured - fixed) / (baseline - fixed), the calibration's
    fixed cost (overhead, alphas) left out of both. Seconds in; a factor
    out."""
    return (measured - fixed) / (baseline - fixed)


def quantize_phase(f):
    """A phase to PHASE_STEP (and at least one step): a plan is priced once
    per step it is measured at."""
    return max(PHASE_STEP, round(f / PHASE_STEP) * PHASE_STEP)


def run_phase(before, after):
    """A run's phase factor from the probes around it: their geometric mean
    (a run that straddles a change of phase lies between them; the report
    gives the drift, after / before)."""
    return math.sqrt(before * after)


def phase_links(calib, factor):
    """The calibration with every bandwidth (the links' and the
    reduction's) divided by `factor`: the same host in a phase whose bytes
    cost `factor` times as much. Latencies, overheads, wake-ups and the
    caches' knees stay."""
    out = json.loads(json.dumps(calib))
    for cls in ("intra", "inter", "scaleup"):
        if isinstance(out.get(cls), dict) and "bandwidth_gbps" in out[cls]:
            out[cls]["bandwidth_gbps"] = round(out[cls]["bandwidth_gbps"] / factor, 6)
    if "reduce_gbps" in out:
        out["reduce_gbps"] = round(out["reduce_gbps"] / factor, 6)
    return out


def price_at_phases(tools, work, configs):
    """Each measured run's plan priced at its phase (hccl-opt --comm-estimate
    link-params=): fills every run's "phase_pred" (the prediction's fields)
    and, with --phase-inside, "inside_pred_ms" (each iteration's price at
    its phase), one comm-estimate per plan and phase step. A twin shares
    its plan's runs, and so their prices."""
    cache = {}

    def price(c, f):
        key = (c["sched"], round(f, 4))
        if key not in cache:
            links = os.path.join(work, f"{c['graph']}.phase-{f:.2f}.links.json")
            with open(links, "w") as fh:
                json.dump(phase_links(c["calib"], f), fh)
            est = tools.run("hccl-opt", [c["sched"], f"--comm-estimate=link-params={links}",
                                         "-o", os.devnull])
            cache[key] = parse_estimate(est, f"{config_name(c)} at phase x{f:.2f}")
        return cache[key]

    for c in distinct(configs):
        for m in c["runs"]:
            m["phase_pred"] = price(c, m["phase"])
            # --phase-inside: each iteration at its own phase
            if "inside_phase" in m:
                m["inside_pred_ms"] = [price(c, f)["iter_ms"] for f in m["inside_phase"]]


# ---------------------------------------------------------------- the rows at the phase

def median_runs(runs):
    """The run whose iteration is the median (the two middle ones for an
    even count, as statistics.median averages them)."""
    ordered = sorted(runs, key=lambda m: m["iter_ms"])
    n = len(ordered)
    return ordered[(n - 1) // 2:n // 2 + 1]


def phase_fields(runs, meas_it):
    """A row's figures priced at the host's phase (--phase-probe): the
    measured median set against the plan priced at the phase of the run
    (or two) that measured it, not at the median phase (a run whose phase
    changed between its probes has a phase its time does not show, and the
    median of the phases can then pick another run's); each run's phase,
    and the largest drift of the phase across one run (after / before, or
    its inverse)."""
    mid = median_runs(runs)
    phased = statistics.mean(m["phase_pred"]["iter_ms"] for m in mid)
    return {"phase": statistics.mean(m["phase"] for m in mid),
            "phase_drift": max(max(m["phase_drift"], 1 / m["phase_drift"]) for m in runs),
            "round_phase": [m["phase"] for m in runs],
            "round_phase_pred_iter_ms": [m["phase_pred"]["iter_ms"] for m in runs],
            "phase_pred_iter_ms": phased,
            "phase_iter_err": rel_error(phased, meas_it)}


def iteration_errors(inside):
    """(price - time) / time of every iteration of a row's runs (its
    "inside" records)."""
    return [rel_error(p, t) for run in inside
            for t, p in zip(run["iters_ms"], run["pred_ms"]) if t > 0]


def inside_fields(runs):
    """A row's iterations each priced at the host's phase around it
    (--phase-inside): every timed iteration of every run set against the
    plan priced at the phase of hccl-run's probes just before and after it.
    The row's error is the median of the iterations' signed errors; the
    JSON keeps each run's iterations, probes, phases and prices."""
    inside = [{"iters_ms": m["iters_ms"], "probes_us": m["probes_us"],
               "phases": m["inside_phase"], "pred_ms": m["inside_pred_ms"]} for m in runs]
    errs = iteration_errors(inside)
    phases = [f for m in runs for f in m["inside_phase"]]
    return {"inside_iter_err": statistics.median(errs) if errs else None,
            "inside_iters": len(errs),
            "inside_within_10": sum(1 for e in errs if abs(e) <= 0.10),
            "inside_phase_min": min(phases), "inside_phase_max": max(phases),
            "inside": inside}


def error_groups(rows, in_flight, key):
    """Median and worst |error| of `key` per graph and in-flight setting,
    each distinct plan once."""
    out = []
    for g in dict.fromkeys(r["graph"] for r in rows):
        for k in in_flight:
            grp = distinct_plans([r for r in rows if r["graph"] == g and r["in_flight"] == k])
            med, worst = error_summary([r[key] for r in grp])
            out.append({"graph": g, "in_flight": k, "median_err": med, "worst_err": worst})
    return out


def error_targets(med, worst):
    return {"median_err<=10%": med is not None and med <= TARGET_MEDIAN_ERR,
            "worst_err<=25%": worst is not None and worst <= TARGET_WORST_ERR}


def inside_summary(rows, in_flight):
    """The errors of the iterations priced at the phase around each
    (--phase-inside), as phase_summary's: errors only, each plan's median
    iteration per graph and in-flight setting and overall, and per graph
    every iteration alone (how many came within 10% of their price, the
    median and the worst)."""
    out = {"groups": error_groups(rows, in_flight, "inside_iter_err")}
    one = distinct_plans(rows)
    out["graphs"] = []
    for g in dict.fromkeys(r["graph"] for r in one):
        mine = [r for r in one if r["graph"] == g]
        # every iteration alone, not each plan's median
        each = [abs(e) for r in mine for e in iteration_errors(r["inside"])]
        out["graphs"].append({"graph": g,
                              "iters": sum(r["inside_iters"] for r in mine),
                              "iters_within_10": sum(r["inside_within_10"] for r in mine),
                              "iter_median_err": statistics.median(each) if each else None,
                              "iter_worst_err": max(each) if each else None})
    med, worst = error_summary([r["inside_iter_err"] for r in one])
    out["overall"] = {"median_err": med, "worst_err": worst,
                      "phase_min": min(r["inside_phase_min"] for r in one),
                      "phase_max": max(r["inside_phase_max"] for r in one),
                      "targets": error_targets(med, worst)}
    return out


def add_phase_summaries(summary, rows, in_flight):
    """The summaries at the host's phase, where the rows have them."""
    if rows and all("phase_pred_iter_ms" in r for r in rows):
        summary["phase"] = phase_summary(rows, in_flight)
    if rows and all("inside_iter_err" in r for r in rows):
        summary["inside"] = inside_summary(rows, in_flight)


def phase_summary(rows, in_flight):
    """The errors of the plans priced at the host's phase (--phase-probe),
    per graph and in-flight setting and overall, each distinct plan once,
    and the two error targets. Only errors: each configuration is priced at
    its own runs' phase, so two plans measured in different phases differ
    at their phases by the host's doing, and a rank correlation or a
    separated pair between them would credit the model with the probe's
    tracking of the host. Ranking is the plain report's."""
    out = {"groups": error_groups(rows, in_flight, "phase_iter_err")}
    one = distinct_plans(rows)
    # Each run against its own phase's price, per graph: where the phase
    # changed during a run, its probes mislead about that run alone.
    out["graphs"] = []
    for g in dict.fromkeys(r["graph"] for r in one):
        errs = [abs(p - m) / m for r in one if r["graph"] == g
                for m, p in zip(r["round_iter_ms"], r["round_phase_pred_iter_ms"]) if m > 0]
        out["graphs"].append({"graph": g, "runs": len(errs),
                              "run_median_err": statistics.median(errs) if errs else None,
                              "runs_within_10": sum(1 for e in errs if e <= 0.10)})
    med, worst = error_summary([r["phase_iter_err"] for r in one])
    phases = [f for r in one for f in r["round_phase"]]
    out["overall"] = {
        "median_err": med, "worst_err": worst,
        "phase_min": min(phases), "phase_max": max(phases),
        "phase_median": statistics.median(phases),
        "worst_drift": max(r["phase_drift"] for r in one),
        "targets": error_targets(med, worst)}
    return out


# ---------------------------------------------------------------- its report

def print_group_errors(groups, overall):
    for g in groups:
        print(f"  {g['graph']:<16} k={g['in_flight'] or 'inf':<3} median |p-err| "
              f"{pct(g['median_err']).lstrip('+')}%, worst {pct(g['worst_err']).lstrip('+')}%")
    print(f"  overall: median |p-err| {pct(overall['median_err']).lstrip('+')}%, worst "
          f"{pct(overall['worst_err']).lstrip('+')}%")


def print_inside_summary(ps):
    """Each iteration priced at the phase of hccl-run's probes around it
    (--phase-inside)."""
    o = ps["overall"]
    print()
    print(f"each iteration priced at the host's phase around it (--phase-inside: "
          f"hccl-run's probe before and after each iteration; a plan's error is its "
          f"iterations' median): phases x{o['phase_min']:.2f} .. x{o['phase_max']:.2f}")
    print_group_errors(ps["groups"], o)
    for g in ps["graphs"]:
        print(f"  every iteration alone: {g['graph']} {g['iters_within_10']} of "
              f"{g['iters']} within 10% of the price at their phase, median |err| "
              f"{pct(g['iter_median_err']).lstrip('+')}%, worst "
              f"{pct(g['iter_worst_err']).lstrip('+')}%")
    for name, met in o["targets"].items():
        print(f"target {name} with each iteration at its phase: "
              f"{'met' if met else 'NOT met'}")


def print_phase_summary(ps):
    """The errors with each run's plan priced at the host's phase then
    (--phase-probe): the model on the host as it was, its phases left out."""
    o = ps["overall"]
    print()
    print(f"priced at the host's phase (--phase-probe; errors only: ranking is the "
          f"plain report's): phases x{o['phase_min']:.2f} .. x{o['phase_max']:.2f} over "
          f"the runs (median x{o['phase_median']:.2f}), the largest drift across one "
          f"run x{o['worst_drift']:.2f}")
    print_group_errors(ps["groups"], o)
    for g in ps.get("graphs", []):
        print(f"  each run against the price at its own phase: {g['graph']} median "
              f"{pct(g['run_median_err']).lstrip('+')}%, {g['runs_within_10']} of "
              f"{g['runs']} within 10%")
    for name, met in o["targets"].items():
        print(f"target {name} at the host's phase: {'met' if met else 'NOT met'}")
