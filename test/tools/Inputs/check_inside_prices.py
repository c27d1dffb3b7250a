#!/usr/bin/env python3
"""Checks validate_model.py --phase-inside with code of its own: the
probe's baseline, the calibration's price of a ring all-reduce of its size
(overhead + 2(p-1) alpha fixed, 2(p-1)/p of the bytes at the bandwidth and
(p-1)/p reduced; no knee in the fake's calibration); for each row of the
JSON and each run, every iteration's phase from hccl-run's probes around it
(each probe's (time - fixed) / (baseline - fixed), the geometric mean of
the two, to 0.02), its price by hccl-opt
--comm-estimate link-params= with the calibration's bandwidth and
reduction rate divided by it, and the row's error as the median of
(price - time) / time over its iterations.
Usage: check_inside_prices.py HCCL_OPT REPORT.json WORK_DIR"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

hccl_opt, report, work = sys.argv[1:4]
with open(report) as f:
    data = json.load(f)
probe = data["meta"]["phase_probes"][0]
with open(os.path.join(work, "host-calibration-p2.json")) as f:
    calib = json.load(f)
p, size = 2, probe["bytes"]
assert "cache_bytes" not in calib
fixed = calib["collective_overhead_us"] + 2 * (p - 1) * calib["intra"]["latency_us"]
base = fixed + 1e6 * (2 * (p - 1) / p * size / (calib["intra"]["bandwidth_gbps"] * 1e9)
                      + (p - 1) / p * size / (calib["reduce_gbps"] * 1e9))
ok = (probe["baseline"] == "fit" and abs(base - probe["baseline_us"]) < 1e-2
      and abs(fixed - probe["fixed_us"]) < 1e-2)
print(f"baseline: the fit's price of the probe's call, {'same' if ok else 'DIFFERENT'} "
      f"({base:.3f} vs {probe['baseline_us']} us)")
prices = {}


def price(sched, phase):
    if (sched, phase) not in prices:
        scaled = json.loads(json.dumps(calib))
        scaled["intra"]["bandwidth_gbps"] = calib["intra"]["bandwidth_gbps"] / phase
        scaled["reduce_gbps"] = calib["reduce_gbps"] / phase
        path = os.path.join(work, "check-inside.json")
        with open(path, "w") as f:
            json.dump(scaled, f)
        out = subprocess.run([hccl_opt, sched, f"--comm-estimate=link-params={path}",
                              "-o", os.devnull], capture_output=True, text=True,
                             check=True).stdout
        prices[(sched, phase)] = float(re.search(r"iteration_us=([\d.]+)", out).group(1)) / 1e3
    return prices[(sched, phase)]


for r in data["rows"]:
    sched = os.path.join(work, f"{r['graph']}.{r['policy']}.k{r['in_flight']}.mlir")
    errs, same = [], True
    for run in r["inside"]:
        f = [(us - fixed) / (base - fixed) for us in run["probes_us"]]
        phases = [max(0.02, round(math.sqrt(a * b) / 0.02) * 0.02) for a, b in zip(f, f[1:])]
        same &= len(phases) == len(run["iters_ms"]) == len(run["pred_ms"])
        same &= all(abs(a - b) < 1e-9 for a, b in zip(phases, run["phases"]))
        for t, ph, p in zip(run["iters_ms"], phases, run["pred_ms"]):
            mine = price(sched, round(ph, 4))
            same &= abs(mine - p) < 1e-3
            errs.append((mine - t) / t)
    same &= abs(statistics.median(errs) - r["inside_iter_err"]) < 1e-6
    print(f"{r['policy']}: {len(errs)} iterations over {len(r['inside'])} runs: "
          f"{'same' if same else 'DIFFERENT'}")
