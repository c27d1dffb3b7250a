#!/usr/bin/env python3
"""Chooses algorithms by measurement: an algorithm table for the runtime's
HCCL_ALGO_TABLE (and comm-select-algorithm's table=) from hccl-test runs on
this host.

For each collective and size, every candidate `hccl-plan cost` lists for
that collective, group and topology runs in hccl-test (HCCL_ALGO set to it),
in interleaved rounds; the fastest median goes into the table, unless the
model's own pick ran in a round as fast as that one's slowest (then the
model's pick stays: noise must not move a choice). On a host
whose cost the model cannot price (more ranks than cores: every step waits
for a co-located peer to be scheduled) the measured choice can be several
times faster than the model's (docs/performance.md).

  tools/tune/measure_table.py -p 4 -b 4K -e 4M -f 4 --rounds 3 -o host-4.json
  HCCL_ALGO_TABLE=host-4.json hccl-test broadcast -p 4 ...

Sizes are bytes of fp32 data as HCCL counts them. A candidate the runtime
cannot run for a collective (it warns and falls back) is left out. Exit 2
on bad options or a run that fails.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sim_table import (ROOT, candidates, entry, fail, find_tools,  # noqa: E402
                       size_bounds, write_table)

# hccl-test's names and the table's.
COLLECTIVES = {"allreduce": "all_reduce", "broadcast": "broadcast",
               "allgather": "all_gather", "reducescatter": "reduce_scatter"}


def hccl_algo(label):
    """HCCL_ALGO for a candidate `hccl-plan cost` prints."""
    m = re.match(r"^hierarchical\((\w+),(\w+)\)$", label)
    if m:
        return f"level0:{m.group(1)};level1:{m.group(2)}"
    return f"level0:{label};level1:{label}"


def measure(test, coll, ranks, nbytes, label, iters, warmup):
    """hccl-test's time (us) for one size, or None when the runtime said
    the candidate does not apply (it ran its automatic choice instead)."""
    env = dict(os.environ, HCCL_ALGO=hccl_algo(label), HCCL_LOG_LEVEL="warn")
    cmd = [test, COLLECTIVES[coll], "-b", str(nbytes), "-e", str(nbytes),
           "-p", str(ranks), "-n", str(iters), "-w", str(warmup)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = r.stdout + r.stderr
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} (HCCL_ALGO={env['HCCL_ALGO']}) failed (exit "
             f"{r.returncode}):\n{out.strip()[-2000:]}")
    if "does not apply" in out:
        return None
    # -b = -e: one row. hccl-test rounds a size its collective cannot split
    # evenly over the ranks down to one it can (4 MiB over 3 ranks: 4193280
    # B; hccl_test aligns to ranks x 512 B), so the row is the one within
    # that rounding of the asked size.
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if (len(cells) >= 4 and cells[0].isdigit()
                and nbytes - 512 * ranks < int(cells[0]) <= nbytes):
            if cells[3] != "success":
                fail(f"{coll} {label} {nbytes} B: check {cells[3]}")
            return float(cells[1])
    fail(f"hccl-test printed no result for {coll} {label} {nbytes} B:\n{out[-2000:]}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-p", "--ranks", type=int, required=True, help="local ranks")
    ap.add_argument("--collective", action="append", choices=list(COLLECTIVES),
                    help="repeatable; default all four")
    ap.add_argument("-b", "--min-bytes", default="4K")
    ap.add_argument("-e", "--max-bytes", default="4M")
    ap.add_argument("-f", "--factor", type=int, default=4)
    ap.add_argument("-n", "--iters", type=int, default=20)
    ap.add_argument("-w", "--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved rounds; the table takes medians")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = ap.parse_args(argv)
    if args.ranks < 2:
        fail("-p must be >= 2")
    if args.factor < 2 or args.rounds < 1 or args.iters < 1 or args.warmup < 0:
        fail("-f must be >= 2, --rounds and -n >= 1, -w >= 0")
    lo, hi = size_bounds(args)
    test, plan = find_tools(args.bin, "hccl-test", "hccl-plan")
    topology = f"host-{args.ranks}"
    common = ["--ranks", str(args.ranks), "--topology", topology]
    colls = args.collective or list(COLLECTIVES)
    sizes = []
    s = lo
    while s <= hi:
        sizes.append(s)
        s *= args.factor
    rows = {(c, n): candidates(plan, common, c, n // 4) for c in colls for n in sizes}
    times = {}  # (coll, bytes, label) -> [us per round]; None: does not apply
    for _ in range(args.rounds):
        for (c, n), cands in rows.items():
            for label, _, _ in cands:
                key = (c, n, label)
                if key in times and times[key] is None:
                    continue
                t = measure(test, c, args.ranks, n, label, args.iters, args.warmup)
                times[key] = None if t is None else times.get(key, []) + [t]
    entries = []
    print("| collective | bytes | model's pick | its us | measured pick | us | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for (c, n), cands in rows.items():
        med = {lab: statistics.median(times[(c, n, lab)]) for lab, _, _ in cands
               if times[(c, n, lab)]}
        if not med:
            fail(f"no candidate ran for {c} at {n} B")
        model_label, model_us = next(((lab, us) for lab, us, chosen in cands if chosen),
                                     cands[0][:2])
        best = min(med, key=med.get)
        # Noise must not move a choice: another candidate replaces the
        # model's pick only when its slowest round beat the pick's fastest.
        if (model_label in med and best != model_label
                and max(times[(c, n, best)]) >= min(times[(c, n, model_label)])):
            best = model_label
        e = entry(c, args.ranks, n, best, med[best], model_us, model_label)
        del e["sim_us"]  # measured, not simulated: comm-bucket-sizing must not price by it
        entries.append(e)
        mine = med.get(model_label)
        print(f"| {c} | {n} | {model_label} | "
              f"{'n/a' if mine is None else f'{mine:.2f}'} | {best} | {med[best]:.2f} | "
              f"{'n/a' if mine is None else f'{mine / med[best]:.2f}x'} |")
    write_table(args.out, topology, "measure_table.py", entries)
    print(f"wrote {args.out}: {len(entries)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
