#!/usr/bin/env python3
"""Checks validate_model.py --phase-probe's prices with code of its own:
for each row of the JSON, the calibration in the work folder with its
link bandwidth and reduction rate divided by the row's phase, and the
row's scheduled module priced with it by hccl-opt --comm-estimate
link-params=; the iteration must be the row's `at phase` price, and its
compute the plain prediction's (only the bytes' cost changes).
Usage: check_phase_prices.py HCCL_OPT REPORT.json WORK_DIR"""
import json
import os
import re
import subprocess
import sys

hccl_opt, report, work = sys.argv[1:4]
with open(report) as f:
    rows = json.load(f)["rows"]
with open(os.path.join(work, "host-calibration-p2.json")) as f:
    calib = json.load(f)
for r in rows:
    scaled = json.loads(json.dumps(calib))
    scaled["intra"]["bandwidth_gbps"] = calib["intra"]["bandwidth_gbps"] / r["phase"]
    scaled["reduce_gbps"] = calib["reduce_gbps"] / r["phase"]
    path = os.path.join(work, f"check-{r['policy']}.json")
    with open(path, "w") as f:
        json.dump(scaled, f)
    sched = os.path.join(work, f"{r['graph']}.{r['policy']}.k{r['in_flight']}.mlir")
    out = subprocess.run([hccl_opt, sched, f"--comm-estimate=link-params={path}",
                          "-o", os.devnull], capture_output=True, text=True, check=True).stdout
    m = re.search(r"compute_us=([\d.]+) .*iteration_us=([\d.]+)", out)
    compute, it = float(m.group(1)) / 1e3, float(m.group(2)) / 1e3
    ok = abs(it - r["phase_pred_iter_ms"]) < 1e-3 and abs(compute - r["pred_compute_ms"]) < 1e-3
    print(f"{r['policy']}: phase x{r['phase']:.2f}: {'same' if ok else 'DIFFERENT'} "
          f"({it:.3f} vs {r['phase_pred_iter_ms']:.3f} ms)")
