#!/usr/bin/env python3
"""Checks a validate_model.py report against itself, with code of its own:

  check_validate_model.py STDOUT CSV POLICY... --in-flight K...

- the table has exactly one row per graph, policy and in-flight setting,
  and the CSV as many;
- each printed err equals (pred - meas) / meas of the printed columns, each
  cerr (pred - pred cmp + meas cmp - meas) / meas and each exp err
  (pred exp - meas exp) / meas it, to the printing precision;
- the CSV's measured iteration is the median of its rounds, its spread
  (max - min) / median;
- each printed rho equals Spearman's correlation recomputed from the CSV
  (ranks by counting, ties averaged), per graph and in-flight setting, over
  one row per distinct plan digest (the first), and so do the separated
  pairs (predicted apart by more than the larger round range) measured in
  the predicted order; the printed plans are those digests of the rows;
- each optimal verdict follows from the CSV (optimal <= best other + the
  larger round range).
Prints what it checked; exits 1 naming the first mismatch."""
import csv
import math
import sys


def fail(msg):
    print(f"check_validate_model: MISMATCH: {msg}")
    sys.exit(1)


def avg_ranks(v):
    # rank = 1 + number smaller + (number equal - 1) / 2
    return [1 + sum(1 for y in v if y < x) + (sum(1 for y in v if y == x) - 1) / 2
            for x in v]


def rho(a, b):
    ra, rb = avg_ranks(a), avg_ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return None if den == 0 else num / den


def main():
    args = sys.argv[1:]
    k_at = args.index("--in-flight")
    out, csv_path, policies = args[0], args[1], args[2:k_at]
    in_flight = ["inf" if k == "0" else k for k in args[k_at + 1:]]
    lines = open(out).read().splitlines()
    # table rows: "graph policy k bkts | ...", 5 fields; summary rows:
    # "graph k | rho | plans | pairs | errors | verdict", 6 fields
    table = [l.split() for l in lines if not l.startswith("graph")
             and len(l.split("|")) == 5 and len(l.split("|")[0].split()) == 4]
    rows = []
    for t in table:
        # graph policy k bkts | pred meas err cerr | pexp mexp experr | pcmp mcmp | spread
        rows.append({"graph": t[0], "policy": t[1], "k": t[2],
                     "pred": float(t[5]), "meas": float(t[6]), "err": t[7],
                     "cerr": t[8], "pexp": float(t[10]), "mexp": float(t[11]),
                     "experr": t[12], "pcmp": float(t[14]), "mcmp": float(t[15])})
    graphs = sorted(set(r["graph"] for r in rows))
    want = sorted((g, p, k) for g in graphs for p in policies for k in in_flight)
    got = sorted((r["graph"], r["policy"], r["k"]) for r in rows)
    if got != want:
        extra = [x for x in got if got.count(x) > want.count(x)]
        missing = [x for x in want if want.count(x) > got.count(x)]
        fail(f"table rows: extra or repeated {sorted(set(extra))}, "
             f"missing {sorted(set(missing))}")
    for r in rows:
        # printed to 3 decimals (ms) and errors to 1 decimal (%): allow the
        # rounding of both
        e = 100 * (r["pred"] - r["meas"]) / r["meas"]
        tol = 0.05 + 100 * 0.0005 * (1 / r["meas"] + r["pred"] / r["meas"] ** 2) + 1e-9
        if abs(float(r["err"]) - e) > tol:
            fail(f"{r['policy']} k={r['k']}: err {r['err']}%, columns give {e:.3f}%")
        c = 100 * (r["pred"] - r["pcmp"] + r["mcmp"] - r["meas"]) / r["meas"]
        tol = 0.05 + 100 * 0.0015 / r["meas"] * (1 + abs(c) / 100) + 1e-9
        if abs(float(r["cerr"]) - c) > tol:
            fail(f"{r['policy']} k={r['k']}: cerr {r['cerr']}%, columns give {c:.3f}%")
        x = 100 * (r["pexp"] - r["mexp"]) / r["meas"]
        tol = 0.05 + 100 * 0.001 / r["meas"] * (1 + abs(r["pexp"] - r["mexp"]) / r["meas"]) + 1e-9
        if abs(float(r["experr"]) - x) > tol:
            fail(f"{r['policy']} k={r['k']}: exp err {r['experr']}%, columns give {x:.3f}%")
    with open(csv_path) as f:
        crow = list(csv.DictReader(f))
    if len(crow) != len(rows):
        fail(f"CSV has {len(crow)} rows, the table {len(rows)}")
    for c in crow:
        rounds = sorted(float(x) for x in c["round_iter_ms"].split())
        n = len(rounds)
        med = rounds[n // 2] if n % 2 else (rounds[n // 2 - 1] + rounds[n // 2]) / 2
        # rounds are written to 3 decimals
        if abs(med - float(c["meas_iter_ms"])) > 0.001:
            fail(f"CSV {c['policy']}: meas {c['meas_iter_ms']} is not the median of {rounds}")
        sp = (rounds[-1] - rounds[0]) / med
        if abs(sp - float(c["meas_spread"])) > 0.002 / med + 1e-9:
            fail(f"CSV {c['policy']}: spread {c['meas_spread']}, rounds give {sp}")
    groups = {}
    for c in crow:
        k = "inf" if c["in_flight"] == "0" else c["in_flight"]
        groups.setdefault((c["graph"], k), []).append(c)
    printed = {}
    for l in lines:
        p = l.split("|")
        if len(p) == 6 and len(p[0].split()) == 2 and p[0].split()[0] != "graph":
            g, k = p[0].split()
            printed[(g, k)] = (p[1].strip(), p[5].strip(), p[3].strip(), p[2].strip())
    if set(printed) != set(groups):
        fail(f"summary groups {sorted(printed)}, CSV groups {sorted(groups)}")
    for key, every in groups.items():
        grp, digests = [], set()
        for c in every:
            if c["plan_digest"] not in digests:
                digests.add(c["plan_digest"])
                grp.append(c)
        r = rho([float(c["pred_iter_ms"]) for c in grp], [float(c["meas_iter_ms"]) for c in grp])
        shown, verdict, pairs, plans = printed[key]
        if plans != f"{len(grp)}/{len(every)}":
            fail(f"{key}: plans printed {plans}, the CSV's digests give {len(grp)}/{len(every)}")
        agree = sep = 0
        for i, a in enumerate(grp):
            for b in grp[i + 1:]:
                dp = float(a["pred_iter_ms"]) - float(b["pred_iter_ms"])
                noise = max(float(a["meas_range_ms"]), float(b["meas_range_ms"]))
                if abs(dp) > noise:
                    sep += 1
                    agree += (float(a["meas_iter_ms"]) - float(b["meas_iter_ms"])) * dp > 0
        if pairs != f"{agree}/{sep}":
            fail(f"{key}: pairs printed {pairs}, recomputed {agree}/{sep}")
        if (r is None) != (shown == "n/a") or (r is not None and abs(float(shown) - r) > 0.0005):
            fail(f"{key}: rho printed {shown}, recomputed {r}")
        opt = [c for c in every if c["policy"] == "optimal"]
        oth = [c for c in every if c["policy"] != "optimal"]
        if opt and oth:
            o = opt[0]
            b = min(oth, key=lambda c: float(c["meas_iter_ms"]))
            noise = max(float(o["meas_range_ms"]), float(b["meas_range_ms"]))
            ok = float(o["meas_iter_ms"]) <= float(b["meas_iter_ms"]) + noise
            if not verdict.startswith("ok" if ok else "SLOWER"):
                fail(f"{key}: verdict '{verdict}', the CSV says {'ok' if ok else 'SLOWER'}")
        print(f"check_validate_model: {key[0]} k={key[1]}: {len(every)} policies, "
              f"{len(grp)} plans, rho {shown} recomputed")
    print(f"check_validate_model: {len(rows)} rows checked")


if __name__ == "__main__":
    main()
