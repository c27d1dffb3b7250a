#!/usr/bin/env python3
"""Fits the `host` topology's alpha-beta-gamma figures to this machine.

Runs the bundled runtime's hccl-test with the ring algorithm (whose cost is
the textbook one) at several sizes (median of -r rounds) and fits

  all_gather:  T = c + (p-1) alpha + (p-1)/p S beta          (S = receive bytes)
  all_reduce:  T = c + 2(p-1) alpha + 2(p-1)/p S beta + (p-1)/p S gamma

with c the fixed cost of one collective (launch, synchronisation). The two
intercepts of the least-squares lines give c and alpha: the all-reduce
takes (p-1) more steps than the all-gather, so alpha = (a_ar - a_ag)/(p-1)
and c = 2 a_ag - a_ar. When noise makes either negative, c is 0 and alpha
the smaller of the two per-step intercepts (what this script did before it
fitted c). beta from the all-gather slope, gamma as the median all-reduce
excess over the transfers at sizes >= 1 MiB,

then writes the link-parameter JSON that topologies accept
(docs/plan-format.md, "Link parameters"), so the compiler prices
collectives on this machine as they really run.

  tools/calibrate/calibrate_host.py --hccl-test build/bin/hccl-test -p 8 -o calib.json
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run_once(hccl_test, op, ranks, sizes, iters):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.csv")
        cmd = [hccl_test, op, "-b", str(sizes[0]), "-e", str(sizes[-1]),
               "-f", "4", "-p", str(ranks), "-n", str(iters), "-w", "2",
               "--algo", "level0:ring", "--csv", path, "-c", "0"]
        res = subprocess.run(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            sys.exit(f"calibrate_host: {' '.join(cmd)} failed: "
                     f"{res.stderr.strip().splitlines()[-1:]}")
        with open(path) as f:
            return [(float(r["data_size_bytes"]), float(r["avg_time_us"]) * 1e-6)
                    for r in csv.DictReader(f)]


def run(hccl_test, op, ranks, sizes, iters, rounds):
    """Median time per size over `rounds` runs: single runs on a shared
    2-core machine vary by tens of percent."""
    runs = [run_once(hccl_test, op, ranks, sizes, iters) for _ in range(rounds)]
    return [(runs[0][i][0], statistics.median(r[i][1] for r in runs))
            for i in range(len(runs[0]))]


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hccl-test", required=True)
    ap.add_argument("-p", "--ranks", type=int, default=8)
    ap.add_argument("-n", "--iters", type=int, default=5)
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    if args.ranks < 2:
        sys.exit("calibrate_host: -p must be >= 2")
    if args.rounds < 1:
        sys.exit("calibrate_host: -r must be >= 1")
    p = args.ranks
    sizes = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]
    ag = run(args.hccl_test, "all_gather", p, sizes, args.iters, args.rounds)
    ar = run(args.hccl_test, "all_reduce", p, sizes, args.iters, args.rounds)
    a_ag, b_ag = fit(ag)
    a_ar, _ = fit(ar)
    # Both intercepts hold c + steps * alpha, with steps p-1 and 2(p-1).
    alpha = (a_ar - a_ag) / (p - 1)
    overhead = 2 * a_ag - a_ar
    if alpha < 1e-7 or overhead < 0:
        alpha = max(min(a_ag / (p - 1), a_ar / (2 * (p - 1))), 1e-7)
        overhead = 0.0
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
    params = {
        "version": "1.0",
        "intra": {"class": "shm", "bandwidth_gbps": round(1e-9 / beta, 4),
                  "latency_us": round(alpha * 1e6, 3), "ports": 1},
        "reduce_gbps": round(min(reduce_gbps, 1000.0), 4),
        "collective_overhead_us": round(overhead * 1e6, 3),
    }
    with open(args.out, "w") as f:
        json.dump(params, f, indent=1)
        f.write("\n")
    print(f"calibrate_host: p={p}: overhead {overhead * 1e6:.1f} us per "
          f"collective, alpha {alpha * 1e6:.1f} us, "
          f"bandwidth {1e-9 / beta:.3f} GB/s, reduction "
          f"{params['reduce_gbps']} GB/s -> {args.out}")


if __name__ == "__main__":
    main()
