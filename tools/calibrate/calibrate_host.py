#!/usr/bin/env python3
"""Fits the `host` topology's alpha-beta-gamma figures to this machine.

Runs the bundled runtime's hccl-test with the ring algorithm (whose cost is
the textbook one) at several sizes (median of -r rounds) and fits

  all_gather:  T = c + (p-1) alpha + (p-1)/p S beta          (S = receive bytes)
  all_reduce:  T = c + 2(p-1) alpha + 2(p-1)/p S beta + (p-1)/p S gamma

with c the fixed cost of one collective (launch, synchronisation). The two
intercepts of the least-squares lines give c and alpha: the all-reduce
takes (p-1) more steps than the all-gather, so alpha = (a_ar - a_ag)/(p-1)
and c = 2 a_ag - a_ar. When noise makes either negative, the all-reduce's
intercept is kept (its c + 2(p-1) alpha prices every gradient bucket) and
the all-gather's comes as near its own as c, alpha >= 0 allow: alpha ~ 0
when a_ar < a_ag, c = 0 when a_ar > 2 a_ag. beta from the all-gather
slope, gamma as the median all-reduce excess over the transfers at sizes
>= 1 MiB. The sizes up to 1 MiB, which fix the intercepts, are timed with
--small-iters calls each (default 50): one call costs microseconds there,
and with 5 the all-reduce's intercept ranged 15.1-18.8 us over four runs
minutes apart, with 50 16.6-17.7 (2 ranks from memory, 2026-12-07).
Calls from memory (--evict-buffers, --flush-mib) are queued on the stream
by default, each behind a task that evicts and a barrier on the stream, as
a step queues its collectives (--memory-calls queued): a meeting on the
host before each call parks ranks that share cores, and at 4 ranks on 2
cores priced a plan's tiny all-reduces 77 us against 56 measured in its
queue (queued: 57; docs/performance.md, "Calls from memory queued on the
stream"),

and, as a training step calls collectives between stretches of compute,
the cost of a *cold* call: hccl-test --gap-us idles every rank before each
call, so the runtime's threads have parked and the ranks arrive apart (on
this 2-core VM, 4 ranks: 100-150 us against 46 back to back for 1 KiB).
The median excess of cold over back-to-back calls at the small sizes is
the wake-up (collective_wakeup_us): a collective issued on an idle stream
begins that much after its issue; one queued behind another does not pay
it (the cost model's timeline and the bucket sizing charge it so). By
default (--issue ahead) the cold calls are held by a task on the stream
(hccl-test --issue ahead), as hccl-run holds a plan's starts: no host
thread wakes between a call's end and the next; --issue host idles the
calling thread instead (hccl-run --issue host). The cost grows with the
idle time (0.2-4 us after 100 us on the 2-core VM, 14-69 after 1000), so
the gap is written too (collective_wakeup_idle_us; --no-wakeup-idle
leaves it out): the model charges a start after a shorter idle that share
of the wake-up, all of it after the gap or longer. The cost after 100 us
of idle is measured as well, and the share is written only where it
fits that cost better than all of the wake-up does (at 8 ranks on 2 cores
a short idle cost as much: 85 against 19 us). A note gives both.
Sizes run from 4 KiB to --max-size (default 256 MiB: the buckets the
policies make reach it, and past the caches the bandwidth drops 1.3-1.8x
below what 1-4 MiB shows). One bandwidth cannot price both sides of that
knee, so (unless --knees 0) the fit also tries each timed size C >= 1 MiB
as the caches' knee: the figures above from the sizes <= C alone, and
past_cache_factor, the median factor by which an all-reduce byte past C
costs more than one below it; the knee is kept (cache_bytes = C) when it
predicts the all-reduce medians better (squared log error) than one
bandwidth does. A last-level cache makes more knees (this host, 2 ranks:
the rate falls from 12.7 to 7.5 GB/s between 30 and 47 MiB, then holds):
the sizes double from 1 MiB (4x below it), and with --knees N (default 3) each set of
up to N timed sizes is tried as knees (cache_bytes and past_cache_factor
then lists, each factor per in-cache byte up to the next knee); a knee
more is kept when it cuts the error enough (knee_figures). With 3 or
more rounds the knees must also predict rounds they were not fitted to:
each round is left out in turn, the knees chosen from the others' medians,
and they are kept only when they predict the rounds left out better than
one bandwidth does (knee_held_out). On this VM, whose memory changes
speed within a sweep, the medians alone took a knee from noise (x1.30
past 64 MiB in run 58, pricing 256 MiB buckets 20-32% high), and in a
simulation of 0.8-1.2x jitter with no knee (bench/model/knee_noise_sim.py)
the medians took one in 21 of 40 draws, of which the held-out check kept
7; real knees of 1.3x and 1.75x under that jitter were kept in 39 and 40
of 40. A note says
when the sizes past a larger size still cost more than their price and
those below it less (a level the knees do not price),

then writes the link-parameter JSON that topologies accept
(docs/plan-format.md, "Link parameters"), so the compiler prices
collectives on this machine as they really run.

The figures come from the median time per size over -r rounds. With 3 or
more rounds each round is also fitted alone and the range of each figure
is printed (how far to trust it), and fits that had to be clamped are
named. When the rounds' own fits of the all-reduce's fixed cost (overhead
and 2(p-1) alphas: the intercept a small bucket pays), the bandwidth or the
large all-reduce's rate (transfers and reduction together: the reduction
rate alone is a residual that can swing without changing any price) differ
by more than --max-spread (default 3x) the host is too noisy to
calibrate: the script names the figure, writes nothing and exits 3. The
ranges of alpha, the overhead and the reduction rate are printed, not
checked: alpha and the overhead split the intercepts' small difference,
which noise can put either way.

  tools/calibrate/calibrate_host.py --hccl-test build/bin/hccl-test -p 8 -o calib.json
"""
import argparse
import csv
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time


# The runtime's threads poll this long before they sleep (core/Stream.cpp,
# core/WaitPolicy.h): a collective this soon after the last is warm.
SHORT_GAP_US = 100


# Sizes up to this are timed with --small-iters calls: they fix the
# latency intercepts, and a call there costs microseconds.
SMALL_BYTES = 1 << 20


def run_once(hccl_test, op, ranks, sizes, iters, gap_us=0, issue="host",
             memory=(), small_iters=None):
    """hccl-test over sizes: one run per stretch of sizes that grow by one
    factor (hccl-test's -f); a stretch up to SMALL_BYTES with small_iters
    calls a size when given."""
    out, i = [], 0
    while i < len(sizes):
        f = sizes[i + 1] // sizes[i] if i + 1 < len(sizes) else 2
        j = i
        while j + 1 < len(sizes) and sizes[j + 1] == sizes[j] * f:
            j += 1
        n = small_iters if small_iters and sizes[j] <= SMALL_BYTES else iters
        out += run_sizes(hccl_test, op, ranks, sizes[i], sizes[j], f, n,
                         gap_us, issue, memory)
        i = j + 1
    return out


def hccl_test_cmd(hccl_test, op, ranks, lo, hi, factor, iters, csv_path,
                  memory=(), gap_us=0, issue="host"):
    """hccl-test timing the ring `op` from lo to hi bytes as the fit does
    (also validate_model.py's --phase-probe, which times as the calibration
    did): `memory` are hccl-test's options that time each call from memory
    (memory_args), or none."""
    cmd = [hccl_test, op, "-b", str(lo), "-e", str(hi),
           "-f", str(factor), "-p", str(ranks), "-n", str(iters), "-w", "2",
           "--algo", "level0:ring", "--csv", csv_path, "-c", "0"]
    cmd += list(memory)
    if gap_us:
        cmd += ["--gap-us", str(gap_us)]
        if issue != "host":
            cmd += ["--issue", issue]
    return cmd


def read_times(csv_path):
    """(bytes, seconds) per row of hccl-test's --csv."""
    with open(csv_path) as f:
        return [(float(r["data_size_bytes"]), float(r["avg_time_us"]) * 1e-6)
                for r in csv.DictReader(f)]


def run_sizes(hccl_test, op, ranks, lo, hi, factor, iters, gap_us, issue,
              memory):
    """`memory`: hccl-test's options that time each call from memory
    (memory_args), or none."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.csv")
        cmd = hccl_test_cmd(hccl_test, op, ranks, lo, hi, factor, iters, path,
                            memory, gap_us, issue)
        res = subprocess.run(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            # The ranks' own errors, not only the launcher's last word
            # ("3 rank(s) still running ..."), which names no cause.
            lines = res.stderr.strip().splitlines()
            why = [ln for ln in lines if ln.startswith("hccl-test: rank")]
            shown = "\n  ".join((why or lines)[-8:])
            sys.exit(f"calibrate_host: {' '.join(cmd)} failed (exit "
                     f"{res.returncode}):\n  {shown}")
        return read_times(path)


def memory_args(flush_mib, evict_buffers, queued=False):
    """hccl-test's options that time each call with its data from memory;
    queued: every call queued at once behind a stream task that evicts and
    a barrier on the stream, so no host thread parks between calls
    (hccl-test --issue ahead)."""
    if evict_buffers:
        args = ("--evict-buffers",)
    elif flush_mib:
        args = ("--flush-mib", str(flush_mib))
    else:
        return ()
    return args + (("--issue", "ahead") if queued else ())


def run(hccl_test, op, ranks, sizes, iters, rounds, gap_us=0, issue="host",
        memory=(), small_iters=None):
    """Every round's (size, time) list: single runs on a shared 2-core
    machine vary by tens of percent, so the figures come from the medians
    and the rounds' spread says whether they mean anything."""
    return [run_once(hccl_test, op, ranks, sizes, iters, gap_us, issue, memory,
                     small_iters)
            for _ in range(rounds)]


def cold_excess(cold, warm):
    """Median of what a cold call costs beyond a back-to-back one, over the
    sizes both lists have (seconds; 0 when cold calls are no slower)."""
    w = dict(warm)
    return max(0.0, statistics.median(t - w[s] for s, t in cold))


def medians(runs):
    return [(runs[0][i][0], statistics.median(r[i][1] for r in runs))
            for i in range(len(runs[0]))]


def worst_spread(runs):
    """(max/min time over the rounds, size, min, max) at the size where the
    rounds disagree most."""
    worst = (1.0, 0, 0.0, 0.0)
    for i in range(len(runs[0])):
        ts = [r[i][1] for r in runs]
        lo, hi = min(ts), max(ts)
        if lo > 0 and hi / lo > worst[0]:
            worst = (hi / lo, runs[0][i][0], lo, hi)
    return worst


def fit(points):
    """Least squares T = a + b S in relative error (weights 1/T^2), so the
    small sizes (latency) count as much as the large ones (bandwidth)."""
    w = [1.0 / (t * t) for _, t in points]
    sw = sum(w)
    sx = sum(wi * s for wi, (s, _) in zip(w, points))
    sy = sum(wi * t for wi, (_, t) in zip(w, points))
    sxx = sum(wi * s * s for wi, (s, _) in zip(w, points))
    sxy = sum(wi * s * t for wi, (s, t) in zip(w, points))
    den = sw * sxx - sx * sx
    b = (sw * sxy - sx * sy) / den
    a = (sy - b * sx) / sw
    return a, b


def figures(ag, ar, p, from_memory=False):
    """The link parameters from median (size, time) lists, and notes on the
    fits that had to be clamped."""
    notes = []
    a_ag, b_ag = fit(ag)
    a_ar, _ = fit(ar)
    # Both intercepts hold c + steps * alpha, with steps p-1 and 2(p-1).
    alpha = (a_ar - a_ag) / (p - 1)
    overhead = 2 * a_ag - a_ar
    if alpha < 1e-7 or overhead < 0:
        # The intercepts differ by less than their noise. Keep the
        # all-reduce's (the gradient buckets' collective) and come as near
        # the all-gather's as c, alpha >= 0 allow. Taking the smaller
        # per-step intercept instead priced every all-reduce 2 a_ag < a_ar
        # when a_ar > 2 a_ag (docs/performance.md, "The calibration's
        # intercepts: run 44").
        steps = min(max(a_ar - a_ag, (p - 1) * 1e-7), max(a_ar, 0.0) / 2)
        alpha = max(steps / (p - 1), 1e-7)
        overhead = max(a_ar - 2 * (p - 1) * alpha, 0.0)
        notes.append(f"the intercepts did not separate the per-collective "
                     f"overhead from alpha (all-gather {a_ag * 1e6:.1f} us, "
                     f"all-reduce {a_ar * 1e6:.1f} us): the all-reduce's is "
                     f"kept, as overhead {overhead * 1e6:.1f} us and alpha "
                     f"{alpha * 1e6:.3f} us")
    beta = max(b_ag * p / (p - 1), 1e-12)
    # gamma from what the all-reduce spends beyond its transfers, at the
    # sizes where bytes dominate (>= 1 MiB): a slope taken from the whole
    # all-reduce fit minus the all-gather one swung from 4 to 200 GB/s
    # between runs.
    gamma = statistics.median(
        (t - overhead - 2 * (p - 1) * alpha - 2 * (p - 1) / p * s * beta)
        / ((p - 1) / p * s)
        for s, t in ar if s >= (1 << 20))
    reduce_gbps = 1e-9 / gamma if gamma > 1e-12 else 100.0
    if gamma <= 1e-12 and from_memory:
        # The all-reduce moves its bytes faster than the all-gather's
        # bandwidth allows: its all-gather phase reads what its own
        # reduce-scatter just wrote, which a lone all-gather does not when
        # its data comes from memory (--flush-mib: 1.7x on this host). The
        # bandwidth is then fitted to the all-reduce, whose price the
        # gradient buckets pay, if that moves it by more than 5%. (Warm, a
        # negative gamma is noise or a reduction hidden behind the copies:
        # the all-gather's bandwidth stays.)
        g100 = 1e-9 / reduce_gbps
        beta_ar = statistics.median(
            (t - overhead - 2 * (p - 1) * alpha - (p - 1) / p * s * g100)
            / (2 * (p - 1) / p * s)
            for s, t in ar if s >= (1 << 20))
        if beta_ar > 1e-12 and abs(beta_ar / beta - 1) > 0.05:
            notes.append(f"the all-reduce moved its bytes {beta / beta_ar:.2f}x "
                         "as fast as the all-gather's bandwidth allows: the "
                         "bandwidth is fitted to the all-reduce, so all-gathers "
                         f"are priced {beta / beta_ar:.2f}x low")
            beta = beta_ar
    if gamma <= 1e-12:
        notes.append("the reduction rate did not fit (the all-reduce is no slower "
                     "than its transfers): written as 100 GB/s")
    params = {
        "version": "1.0",
        "intra": {"class": "shm", "bandwidth_gbps": round(1e-9 / beta, 4),
                  "latency_us": round(alpha * 1e6, 3), "ports": 1},
        "reduce_gbps": round(min(reduce_gbps, 1000.0), 4),
        "collective_overhead_us": round(overhead * 1e6, 3),
    }
    return params, notes


def all_reduce_gbps(params, p):
    """Bytes per second of a large ring all-reduce under these figures, in
    GB/s: 1 / ((2(p-1)/p) beta + ((p-1)/p) gamma). The spread check uses it
    rather than the reduction rate alone: gamma is what the all-reduce
    spends beyond its transfers, a small difference of large times when the
    reduction overlaps the copies, and then it moves no price. On this
    2-core host at 8 ranks it came out 9 to 100 GB/s in three rounds (a
    refusal that stopped scripts/demo.sh); another run gave 2.1-5.6 GB/s
    while the all-reduce's own rate stayed within 1.1-1.3 GB/s."""
    beta = 1.0 / params["intra"]["bandwidth_gbps"]
    gamma = 1.0 / params["reduce_gbps"]
    return round(1.0 / (2 * (p - 1) / p * beta + (p - 1) / p * gamma), 4)


def all_reduce_fixed_us(params, p):
    """A ring all-reduce's cost apart from its bytes (us): the overhead and
    2(p-1) alphas, the all-reduce's intercept figures() keeps."""
    return round(params["collective_overhead_us"]
                 + 2 * (p - 1) * params["intra"]["latency_us"], 3)


def predict_all_reduce(params, p, s):
    """The ring all-reduce's time (seconds) these figures give for s bytes,
    the caches' knee included (lib/schedule's closedFormCost)."""
    alpha = params["intra"]["latency_us"] * 1e-6
    k = (2 * (p - 1) / p * 1e-9 / params["intra"]["bandwidth_gbps"]
         + (p - 1) / p * 1e-9 / params["reduce_gbps"])
    return (params["collective_overhead_us"] * 1e-6 + 2 * (p - 1) * alpha
            + k * effective_bytes(params, s))


def knees_of(params):
    """The caches' knees of link parameters: [(bytes, factor), ...]."""
    cb = params.get("cache_bytes", 0)
    f = params.get("past_cache_factor", 1)
    if not isinstance(cb, list):
        return [(cb, f)] if cb else []
    # As lib/schedule reads them: a lone factor beside a list of one, no
    # factor at all meaning 1 each.
    fs = f if isinstance(f, list) else [f] * len(cb)
    return list(zip(cb, fs))


def effective_bytes(params, s):
    """What s bytes cost in in-cache bytes (Topology::pastCacheScale times
    s): 1 each up to the first knee, then each knee's factor up to the
    next."""
    knees = knees_of(params)
    if not knees or s <= knees[0][0]:
        return s
    cost = knees[0][0]
    for i, (c, f) in enumerate(knees):
        if s <= c:
            break
        hi = min(s, knees[i + 1][0]) if i + 1 < len(knees) else s
        cost += f * (hi - c)
    return cost


def with_knees(params, knees):
    """params with these knees: two numbers for one (what readers before
    lists took), two lists for several."""
    out = {k: v for k, v in params.items()
           if k not in ("cache_bytes", "past_cache_factor")}
    if len(knees) == 1:
        out["cache_bytes"], out["past_cache_factor"] = int(knees[0][0]), knees[0][1]
    elif knees:
        out["cache_bytes"] = [int(c) for c, _ in knees]
        out["past_cache_factor"] = [f for _, f in knees]
    return out


def log_error(params, ar, p):
    """Squared log error of the all-reduce predictions over the sizes."""
    return sum(math.log(predict_all_reduce(params, p, s) / t) ** 2 for s, t in ar)


# Each knee past the first adds two figures to fit from the few sizes past
# it: it is kept only when its factor differs from the one before by this
# much and it cuts the error of the fit with one knee fewer by this factor.
NEXT_KNEE_MIN_STEP = 1.1
NEXT_KNEE_MIN_GAIN = 0.75


def knee_factors(knees, eff):
    """Each knee's factor: the median over the sizes between it and the
    next (or past it) of what their bytes past it cost in in-cache bytes,
    given the factors before it; None when a stretch has no size."""
    factors, cost = [], knees[0]
    for i, c in enumerate(knees):
        hi = knees[i + 1] if i + 1 < len(knees) else math.inf
        pts = [(s, e) for s, e in eff if c < s <= hi]
        if not pts:
            return None
        f = max(1.0, statistics.median((e - cost) / (s - c) for s, e in pts))
        factors.append(round(min(f, 1000.0), 4))
        if hi != math.inf:
            cost += factors[-1] * (hi - c)
    return factors


def knee_figures(ag, ar, p, knees=3, from_memory=False):
    """figures(), and the caches' knees when they predict the all-reduce
    better. For each timed size C >= 1 MiB below the largest: the affine
    figures from the sizes <= C alone, and what each larger all-reduce's
    bytes cost in in-cache bytes under them; with up to `knees` knees from
    C and the timed sizes above it, each knee's factor is the median over
    the sizes between it and the next (knee_factors). The best fit (squared
    log error of the medians over every size) with one knee replaces the
    plain one unless that does as well or its factor is under 1.05; the
    best with n + 1 knees replaces the best with n when its error is at most
    NEXT_KNEE_MIN_GAIN times as large and each factor differs from the one
    before it by NEXT_KNEE_MIN_STEP. Returns (params, notes, summary or
    None): summary = (knees [(bytes, factor)], plain error, error)."""
    params, notes = figures(ag, ar, p, from_memory)
    plain = log_error(params, ar, p)
    cands = [s for s, _ in ar if s >= (1 << 20) and s < ar[-1][0]]
    best_n = {}  # knee count -> (error, params, notes, knees)
    for cb in cands if knees >= 1 else []:
        kp, kn = figures([x for x in ag if x[0] <= cb], [x for x in ar if x[0] <= cb], p,
                         from_memory)
        lat = predict_all_reduce(kp, p, 0)
        k = predict_all_reduce(kp, p, 1.0) - lat
        eff = [(s, (t - lat) / k) for s, t in ar if s > cb]
        for n in range(1, knees + 1):
            for rest in itertools.combinations([c for c in cands if c > cb], n - 1):
                at = [cb] + list(rest)
                fs = knee_factors(at, eff)
                if fs is None or fs[0] < 1.05 or any(
                        max(a, b) / min(a, b) < NEXT_KNEE_MIN_STEP
                        for a, b in zip(fs, fs[1:])):
                    continue
                kps = with_knees(kp, list(zip(at, fs)))
                err = log_error(kps, ar, p)
                if n not in best_n or err < best_n[n][0]:
                    best_n[n] = (err, kps, kn, list(zip(at, fs)))
    best = (plain, params, notes, None)
    if 1 in best_n and best_n[1][0] < plain * (1 - 1e-9):
        best = best_n[1]
        for n in range(2, knees + 1):
            if n in best_n and best_n[n][0] <= best[0] * NEXT_KNEE_MIN_GAIN:
                best = best_n[n]
            else:
                break
    if best[3] is None:
        return params, notes, None
    return best[1], best[2], (best[3], plain, best[0])


def knee_held_out(ag_runs, ar_runs, p, knees, from_memory=False):
    """Each round left out in turn: the figures knee_figures chooses from
    the other rounds' medians, and the plain figures from them, priced
    against the round left out. Returns the squared log errors summed over
    the rounds (with the knees, without). A knee that only bends the fit
    through one size's noise (a 64 MiB median 1.3x faster per byte than its
    neighbours, when this VM's memory changed speed within the sweep: run
    58) predicts no round it was not fitted to better than one bandwidth
    does."""
    with_k = without = 0.0
    for i in range(len(ar_runs)):
        ag = medians([r for j, r in enumerate(ag_runs) if j != i])
        ar = medians([r for j, r in enumerate(ar_runs) if j != i])
        kp = knee_figures(ag, ar, p, knees, from_memory)[0]
        plain = figures(ag, ar, p, from_memory)[0]
        with_k += log_error(kp, ar_runs[i], p)
        without += log_error(plain, ar_runs[i], p)
    return with_k, without


def second_knee(params, ar, p):
    """Where the figures' knees leave the large all-reduces mispriced
    by size: for each timed size C2 >= 4 MiB with sizes on both sides
    above the knee, the median of measured / predicted time of the sizes
    past C2 against that of the sizes from the knee (or 1 MiB) to C2. The
    C2 with the largest ratio, if it is over 1.15: (C2, ratio above, ratio
    below), else None. One factor per byte past the knee prices both sides
    alike; a last-level cache between them makes the larger ones cost more
    per byte (docs/performance.md, run 21). Only the sizes past the
    figures' last knee count: the note then means a level they lack."""
    lo = max([c for c, _ in knees_of(params)] + [1 << 20])
    big = [(s, t / predict_all_reduce(params, p, s)) for s, t in ar if s > lo]
    best = None
    for c2, _ in big:
        if c2 < (4 << 20):
            continue
        below = [r for s, r in big if s <= c2]
        above = [r for s, r in big if s > c2]
        if not below or not above:
            continue
        a, b = statistics.median(above), statistics.median(below)
        if a / b > 1.15 and (best is None or a / b > best[1] / best[2]):
            best = (int(c2), a, b)
    return best


def parse_size(text):
    """Bytes from '256M', '1G', '65536' (None when malformed)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper()
    mult = units.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in units else t
    return int(digits) * mult if digits.isdigit() else None


def main():
    # Progress and the refusal (stderr) in the order they happen.
    sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hccl-test", required=True)
    ap.add_argument("-p", "--ranks", type=int, default=8)
    ap.add_argument("-n", "--iters", type=int, default=5)
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("--small-iters", type=int, default=50, metavar="N",
                    help="calls per size up to 1 MiB in the fit (default 50; "
                         "-n for the larger sizes): they fix the per-"
                         "collective overhead and alpha, and cost "
                         "microseconds each")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--max-size", default="256M",
                    help="largest size to time (K/M/G; default 256M)")
    ap.add_argument("--gap-us", type=int, default=1000,
                    help="idle time before each cold call (default 1000; 0: "
                         "leave cold calls out)")
    ap.add_argument("--issue", choices=("ahead", "host"),
                    help="how the cold calls are held (hccl-test --issue): "
                         "ahead (default): a task on the stream idles, as "
                         "hccl-run holds its starts by default; host: the "
                         "calling thread idles, then launches, as hccl-run "
                         "--issue host. Calibrate the way hccl-run will run")
    ap.add_argument("--wakeup-idle", action=argparse.BooleanOptionalAction,
                    help="write collective_wakeup_idle_us = --gap-us (the "
                         "default with a gap): the model (comm-estimate, the "
                         "overlap scheduler) then charges a start after a "
                         "shorter idle that share of the wake-up (after 100 us "
                         "of a 1000 us gap, a tenth); --no-wakeup-idle: all of "
                         "it after any idle, as before 2026-12-06")
    ap.add_argument("--flush-mib", type=int, default=0, metavar="N",
                    help="time each call of the fit after every rank "
                         "wrote N MiB of its own (hccl-test --flush-mib; "
                         "queued or alone: --memory-calls): "
                         "prices for data that comes from memory, as in a "
                         "training step whose compute streams more than the "
                         "caches hold (hccl-run --buffer-span-mib measures "
                         "so); default 0: calls back to back, their data "
                         "warm. Each call then costs N MiB of writes: use a "
                         "small -n")
    ap.add_argument("--evict-buffers", action="store_true",
                    help="as --flush-mib, but each rank evicts only the "
                         "call's buffers from the caches (hccl-test "
                         "--evict-buffers): the data comes from memory while "
                         "the runtime's own state stays warm, as when a "
                         "step's collectives follow each other; a flush "
                         "makes small calls also pay for that state")
    ap.add_argument("--memory-calls", choices=("alone", "queued"),
                    help="with --flush-mib or --evict-buffers, how the fit's "
                         "calls from memory are timed: queued (default): "
                         "every call queued at once on the stream, each "
                         "behind a task that evicts and a barrier on the "
                         "stream, as a step queues its collectives (hccl-test "
                         "--issue ahead); alone: the ranks meet on the host "
                         "before each call, which parks ranks that share "
                         "cores (at 4 ranks on 2 cores a plan's tiny "
                         "all-reduces cost 56 us, priced 57 queued and 77 "
                         "alone; the model's wake-up prices the starts on an "
                         "idle stream)")
    ap.add_argument("--knees", type=int, choices=range(0, 9), default=3,
                    metavar="N",
                    help="most caches' knees the fit may use, 0..8 (default 3: "
                         "a core's cache, and the last level's fall, which "
                         "takes two; 0: one bandwidth over every size)")
    ap.add_argument("--no-knee", action="store_true",
                    help="fit one bandwidth over every size (--knees 0)")
    ap.add_argument("--max-spread", type=float, default=3.0,
                    help="refuse to calibrate when the all-reduce's fixed cost, "
                         "the bandwidth or the large all-reduce's rate fitted "
                         "on each round alone differ by "
                         "more than this factor (default 3)")
    args = ap.parse_args()
    if args.max_spread < 1:
        sys.exit("calibrate_host: --max-spread must be >= 1")
    if args.ranks < 2:
        sys.exit("calibrate_host: -p must be >= 2")
    if args.rounds < 1:
        sys.exit("calibrate_host: -r must be >= 1")
    if args.iters < 1 or args.small_iters < 1:
        sys.exit("calibrate_host: -n and --small-iters must be >= 1")
    if not 0 <= args.flush_mib <= 65536:
        sys.exit("calibrate_host: --flush-mib must be in 0..65536")
    if args.flush_mib and args.evict_buffers:
        sys.exit("calibrate_host: --flush-mib and --evict-buffers both time "
                 "calls from memory; give one of them")
    if args.memory_calls and not (args.flush_mib or args.evict_buffers):
        sys.exit(f"calibrate_host: --memory-calls {args.memory_calls} times "
                 "calls from memory; it needs --flush-mib or --evict-buffers")
    if args.gap_us < 0:
        sys.exit("calibrate_host: --gap-us must be >= 0")
    if args.issue and not args.gap_us:
        sys.exit(f"calibrate_host: --issue {args.issue} holds cold calls; it "
                 "needs --gap-us > 0")
    if args.wakeup_idle is None:
        args.wakeup_idle = args.gap_us > SHORT_GAP_US
    elif args.wakeup_idle and not args.gap_us > SHORT_GAP_US:
        sys.exit("calibrate_host: --wakeup-idle scales the wake-up measured "
                 f"after --gap-us, checked against the cost after {SHORT_GAP_US} "
                 f"us; it needs --gap-us > {SHORT_GAP_US}")
    issue = args.issue or "ahead"
    max_size = parse_size(args.max_size)
    if max_size is None or max_size < (16 << 20):
        sys.exit(f"calibrate_host: --max-size '{args.max_size}': expected a "
                 "size of at least 16M (the reduction rate is fitted at >= 1M)")
    p = args.ranks
    # 4x the size up to 1 MiB (the latency and bandwidth fits), then twice
    # the size each time: the knees lie between timed sizes, and past 32 MiB
    # the rate fell within 1.5x of size on this host (run 23). Doubling from
    # 4 KiB made the 8-rank rounds' latency fits spread 1.9-8.8 us, and
    # scripts/demo.sh refused to calibrate (2026-12-06 12:09).
    memory = memory_args(args.flush_mib, args.evict_buffers,
                         args.memory_calls != "alone")
    sizes = [4 << 10]
    while sizes[-1] < (1 << 20) and sizes[-1] * 4 <= max_size:
        sizes.append(sizes[-1] * 4)
    while sizes[-1] * 2 <= max_size:
        sizes.append(sizes[-1] * 2)
    ag_runs = run(args.hccl_test, "all_gather", p, sizes, args.iters, args.rounds,
                  memory=memory, small_iters=args.small_iters)
    ar_runs = run(args.hccl_test, "all_reduce", p, sizes, args.iters, args.rounds,
                  memory=memory, small_iters=args.small_iters)
    knees = 0 if args.no_knee else args.knees
    # The knees' leave-one-round-out errors (with, without), and the knees
    # the medians chose that it refused.
    held, dropped = None, None
    if knees == 0:
        params, notes = figures(medians(ag_runs), medians(ar_runs), p,
                                bool(memory))
        knee = None
    else:
        params, notes, knee = knee_figures(medians(ag_runs), medians(ar_runs), p,
                                           knees, bool(memory))
        if knee and args.rounds >= 3:
            held = knee_held_out(ag_runs, ar_runs, p, knees, bool(memory))
        if held and held[0] >= held[1]:
            dropped, knee = knee, None
            params, notes = figures(medians(ag_runs), medians(ar_runs), p, bool(memory))
    for op, runs in (("all_gather", ag_runs), ("all_reduce", ar_runs)):
        ratio, size, lo, hi = worst_spread(runs)
        if not size:
            print(f"calibrate_host: {op} rounds agree at every size")
            continue
        print(f"calibrate_host: {op} rounds differ most at {int(size)} B: "
              f"{lo * 1e6:.1f}-{hi * 1e6:.1f} us (x{ratio:.2f})")
    # Confidence: the same fit on each round alone. A figure whose rounds
    # disagree by more than --max-spread says more about the other jobs on
    # the host than about the host: then nothing is written.
    if args.rounds < 3:
        print("calibrate_host: note: fewer than 3 rounds: the figures' spread "
              "is not checked")
    else:
        per = [figures(g, r, p, bool(memory))[0]
               for g, r in zip(ag_runs, ar_runs)]
        # The reduction rate's range is printed, not checked (see
        # all_reduce_gbps); so is alpha's: at 2 ranks it is the difference
        # of two intercepts about 1 us apart whose noise is several (0.1 ..
        # 1.5 us over one run's rounds, 2026-12-07), so checking it refused
        # every calibration there. The all-reduce's fixed cost (overhead
        # and its 2(p-1) alphas), what a small bucket pays, is checked.
        for key, get, checked in (
                ("latency_us", lambda f: f["intra"]["latency_us"], False),
                ("all_reduce_fixed_us", lambda f: all_reduce_fixed_us(f, p), True),
                ("bandwidth_gbps", lambda f: f["intra"]["bandwidth_gbps"], True),
                ("reduce_gbps", lambda f: f["reduce_gbps"], False),
                ("all_reduce_gbps", lambda f: all_reduce_gbps(f, p), True)):
            vals = [get(f) for f in per]
            lo, hi = min(vals), max(vals)
            print(f"calibrate_host: {key}: {lo:g} .. {hi:g} over {args.rounds} "
                  "rounds fitted alone")
            if checked and (lo <= 0 or hi / lo > args.max_spread):
                print(f"calibrate_host: the host is too noisy to calibrate: "
                      f"{key} came out {lo:g} .. {hi:g} in {args.rounds} rounds "
                      f"fitted alone (more than --max-spread {args.max_spread:g}x "
                      "apart); nothing written. Calibrate on a quiet host, with "
                      "more rounds (-r) or iterations (-n), or allow more spread",
                      file=sys.stderr)
                return 3
        vals = [f["collective_overhead_us"] for f in per]
        print(f"calibrate_host: collective_overhead_us back to back: "
              f"{min(vals):g} .. {max(vals):g} over {args.rounds} rounds "
              "fitted alone")
    if args.gap_us:
        small = sizes[:3]
        cold_runs = run(args.hccl_test, "all_reduce", p, small, args.iters,
                        args.rounds, args.gap_us, issue)
        # What a cold call costs beyond a back-to-back one: from memory the
        # fit's calls were not back to back, so those are timed here.
        base_runs = ar_runs if not memory else run(
            args.hccl_test, "all_reduce", p, small, args.iters, args.rounds)
        warm = medians(base_runs)[:3]
        excess = cold_excess(medians(cold_runs), warm)
        per_round = [cold_excess(c, w[:3]) for c, w in zip(cold_runs, base_runs)]
        print(f"calibrate_host: cold calls (--gap-us {args.gap_us}, --issue "
              f"{issue}) cost "
              f"{excess * 1e6:.1f} us more than back-to-back ones "
              f"({min(per_round) * 1e6:.1f} .. {max(per_round) * 1e6:.1f} over "
              f"{args.rounds} rounds)")
        params["collective_wakeup_us"] = round(excess * 1e6, 3)
        # The cost grows with the idle time (docs/performance.md, "Starts
        # held on the stream") and the model charges this one figure to
        # every start on an idle stream: show what a short idle costs.
        if args.gap_us > SHORT_GAP_US:
            short_runs = run(args.hccl_test, "all_reduce", p, small,
                             args.iters, args.rounds, SHORT_GAP_US, issue)
            short = cold_excess(medians(short_runs), warm)
            # The share by idle is written where the short idle's cost fits
            # it better than all of it does: on 2-4 ranks of the 2-core VM
            # 1-4 us after 100 us against 10-36 after 1000; at 8 ranks a
            # short idle cost as much or more (85 against 19 us, 18:06).
            share = excess * SHORT_GAP_US / args.gap_us
            # The written (rounded) wake-up: a share of 0 is refused.
            if args.wakeup_idle and params["collective_wakeup_us"] > 0:
                if abs(short - share) <= abs(short - excess):
                    params["collective_wakeup_idle_us"] = args.gap_us
                else:
                    print(f"calibrate_host: note: the wake-up's share by idle "
                          f"time is left out: after {SHORT_GAP_US} us of idle "
                          f"a cold call cost {short * 1e6:.1f} us, nearer all of "
                          f"it ({excess * 1e6:.1f}) than its share "
                          f"({share * 1e6:.1f})")
            elif args.wakeup_idle:
                print(f"calibrate_host: note: no wake-up was measured after "
                      f"{args.gap_us} us of idle, so there is no share by idle "
                      "time to write (collective_wakeup_idle_us left out)")
            charged = (excess * SHORT_GAP_US / args.gap_us
                       if "collective_wakeup_idle_us" in params else excess)
            print(f"calibrate_host: note: after {SHORT_GAP_US} us of idle a "
                  f"cold call cost {short * 1e6:.1f} us more (after "
                  f"{args.gap_us}: {excess * 1e6:.1f}); the model charges "
                  f"{charged * 1e6:.1f} us to a start after {SHORT_GAP_US} us "
                  "of idle"
                  + (f" (the share {SHORT_GAP_US} / {args.gap_us} of it)"
                     if "collective_wakeup_idle_us" in params else
                     " (all of it after any idle)"))
    if knee and len(knee[0]) > 1:
        first, rest = knee[0][0], knee[0][1:]
        print(f"calibrate_host: caches' knees: each all-reduce byte past {int(first[0])} B "
              f"costs {first[1]:g}x one below it, "
              + ", ".join(f"past {int(c)} B {f:g}x" for c, f in rest)
              + f" (squared log error of the all-reduce medians {knee[1]:.3g} "
              f"without a knee, {knee[2]:.3g} with them)")
    elif knee:
        print(f"calibrate_host: caches' knee: each all-reduce byte past {int(knee[0][0][0])} B "
              f"costs {knee[0][0][1]:g}x one below it (squared log error of the "
              f"all-reduce medians {knee[1]:.3g} without the knee, {knee[2]:.3g} "
              "with it)")
    if knee and held:
        print(f"calibrate_host: caches' knee kept: with each round left out of the "
              f"fit in turn, it predicts that round better (squared log error "
              f"{held[0]:.3g} against {held[1]:.3g} without)")
    elif dropped:
        at = ", ".join(f"{f:g}x past {int(c)} B" for c, f in dropped[0])
        print(f"calibrate_host: caches' knee: none kept: {at} fits the medians "
              f"better (squared log error {dropped[2]:.3g} against {dropped[1]:.3g}), "
              "but with each round left out of the fit in turn it predicts that "
              f"round no better ({held[0]:.3g} against {held[1]:.3g} without): "
              "the rounds disagree more than it explains")
    elif knees and not knee:
        print("calibrate_host: caches' knee: none (one bandwidth fits every size "
              "as well)")
    k2 = None if not knees else second_knee(params, medians(ar_runs), p)
    if k2:
        print(f"calibrate_host: note: all-reduces past {k2[0]} B took "
              f"{k2[1]:.2f}x their price, those below {k2[2]:.2f}x: the rate "
              "falls again there (another cache level), which the knees "
              "do not price; large buckets will be priced low")
    for n in notes:
        print(f"calibrate_host: note: {n}")
    # How these figures were measured (read by tools that check a file fits
    # their run, e.g. validate_model.py --link-params; priced by nothing).
    params["calibrated"] = {
        "by": "calibrate_host.py", "ranks": p, "issue": issue if args.gap_us else None,
        "gap_us": args.gap_us, "rounds": args.rounds, "iters": args.iters,
        "small_iters": args.small_iters,
        "max_size": max_size, "knees": knees,
        # The knees' check (knee_held_out): squared log errors of the rounds
        # left out, with the knees the medians chose and without; and
        # whether they were kept.
        "knee_held_out": None if not held else {
            "with": round(held[0], 6), "without": round(held[1], 6),
            "kept": knee is not None},
        "flush_mib": args.flush_mib,
        "evict_buffers": args.evict_buffers,
        "memory_calls": (args.memory_calls or "queued") if memory else None,
        # The all-reduce's median time per size (us): what a later call
        # timed the same way is set against to see the host's phase
        # (validate_model.py --phase-probe), not the fit's price there.
        "all_reduce_median_us": {str(int(s)): round(t * 1e6, 3)
                                 for s, t in medians(ar_runs)},
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    with open(args.out, "w") as f:
        json.dump(params, f, indent=1)
        f.write("\n")
    print(f"calibrate_host: p={p}: overhead {params['collective_overhead_us']} us per "
          f"collective, wake-up {params.get('collective_wakeup_us', 0)} us, "
          f"alpha {params['intra']['latency_us']} us, bandwidth {params['intra']['bandwidth_gbps']} GB/s, reduction "
          f"{params['reduce_gbps']} GB/s"
          + "".join(f", x{f} past {int(c)} B" for c, f in knees_of(params))
          + f" -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
