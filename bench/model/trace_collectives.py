#!/usr/bin/env python3
"""How long an hccl-run trace's collectives took, by how long their stream had
been idle before them.

For each collective of the traced iteration (matched across ranks by their
order: one stream, the plan's start order) it takes the shortest of the
ranks' own start-to-end times, which leaves out a rank waiting for a late
peer's start (each rank's trace has a clock of its own: times are not
compared across ranks), and the stream's idle time before it (the start
minus the end of the collective before it, the least over the ranks; 0
when it was queued behind that one). In a `--issue ahead` trace a start is
the gate's release, which a busy stream holds back until the collective
before it ended: queued starts show there as short idle times, not as
`queued`. It prints the percentiles of that time per idle-time bin and for
queued collectives, and, given comm-estimate's trace of the same plan
(`hccl-opt --comm-estimate=trace=F`), the same for the excess over each
collective's predicted price. That is what the model's wake-up
(collective_wakeup_us) is meant to be, which it charges whenever the stream
was idle, however long (docs/performance.md, "Starts held on the stream").

  bench/model/trace_collectives.py TRACE.json [--predicted PRED.json]
"""
import argparse
import json
import statistics
import sys

BINS = [0, 50, 100, 200, 400, 1000, 3000]


def load(path, cat):
    try:
        events = json.load(open(path))["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"trace_collectives: {path}: not a Chrome trace ({e})")
    return [e for e in events if e.get("ph") == "X" and e.get("cat") == cat]


def pct(values):
    if len(values) < 2:
        return " ".join(f"{v:.1f}" for v in values) or "-"
    q = statistics.quantiles(values, n=10)
    return f"{q[0]:.1f} / {statistics.median(values):.1f} / {q[8]:.1f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", help="hccl-run --trace output")
    ap.add_argument("--predicted", help="comm-estimate's trace of the same plan")
    args = ap.parse_args(argv)
    coll = load(args.trace, "collective")
    if not coll:
        sys.exit(f"trace_collectives: {args.trace}: no collective events")
    ranks = sorted({e["pid"] for e in coll})
    per_rank = [sorted((e for e in coll if e["pid"] == r), key=lambda e: e["ts"])
                for r in ranks]
    n = len(per_rank[0])
    if not n or any(len(c) != n for c in per_rank):
        sys.exit(f"trace_collectives: {args.trace}: ranks ran "
                 f"{[len(c) for c in per_rank]} collectives")
    price = None
    if args.predicted:
        pred = load(args.predicted, "comm")
        if any("issue_us" not in e.get("args", {}) for e in pred):
            sys.exit(f"trace_collectives: {args.predicted}: not comm-estimate's "
                     "trace (a comm event without args.issue_us)")
        pred.sort(key=lambda e: (e["args"]["issue_us"], e["ts"]))
        if len(pred) != n:
            sys.exit(f"trace_collectives: {args.predicted}: {len(pred)} "
                     f"collectives, the run {n}")
        price = [e["dur"] for e in pred]
    took, idle = [], []
    prev_end = [None] * len(ranks)
    for i in range(n):
        evs = [c[i] for c in per_rank]
        took.append(min(e["dur"] for e in evs))
        gaps = [e["ts"] - p if p is not None else None
                for e, p in zip(evs, prev_end)]
        idle.append(None if None in gaps else max(0.0, min(gaps)))
        prev_end = [e["ts"] + e["dur"] for e in evs]
    print(f"{args.trace}: {n} collectives on {len(ranks)} ranks; us from "
          "start to end, the least over the ranks, p10 / median / p90"
          + ("; excess over the predicted price" if price else ""))
    rows = [("queued", lambda g: g is not None and g == 0)]
    for lo, hi in zip(BINS, BINS[1:] + [float("inf")]):
        rows.append((f"idle {lo}-{hi if hi != float('inf') else ''} us",
                     lambda g, lo=lo, hi=hi: g is not None and g > 0 and lo <= g < hi))
    for name, sel in rows:
        idx = [i for i in range(n) if sel(idle[i])]
        if not idx:
            continue
        line = f"  {name:<18} n={len(idx):<5} took {pct([took[i] for i in idx])}"
        if price:
            line += f"  excess {pct([took[i] - price[i] for i in idx])}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
