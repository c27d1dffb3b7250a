"""The statistics of validate_model.py's report: ranks, Spearman's rho and
its ceiling under ties, relative errors and spreads, separated pairs, the
distinct plans of a set of rows, the optimal verdict and the figures'
formats. Pure functions of numbers and row dicts (no tools, no files), so
that the report's arithmetic reads, and is unit-tested, apart from the
bench that measures it."""
import math
import statistics

# Issue 15's targets: the plain report's (validate_model.py) and the
# reports at the host's phase (phase_probe.py) judge by the same.
TARGET_MEDIAN_ERR, TARGET_WORST_ERR, TARGET_RHO = 0.10, 0.25, 0.9


# ---------------------------------------------------------------- statistics

def ranks_of(values):
    """1-based ranks, ties given the average of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    """Spearman's rank correlation (Pearson's on average ranks); None when
    fewer than 2 points or either side is constant (undefined)."""
    if len(xs) != len(ys):
        raise ValueError("spearman: lengths differ")
    if len(xs) < 2:
        return None
    rx, ry = ranks_of(xs), ranks_of(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def rho_ceiling(preds):
    """The highest Spearman correlation a measurement without ties can reach
    against these predictions: where the model predicts exact ties
    (policies whose finish is set by the same compute, every collective
    hidden) no order of distinct measured values is "right" within the
    tie, and rho stays below 1 even when every separated pair is measured
    in order. Reached by any measurement ordered as the predictions (the
    order within a tie does not change it)."""
    order = sorted(range(len(preds)), key=lambda i: (preds[i], i))
    strict = [0] * len(preds)
    for rank, i in enumerate(order):
        strict[i] = rank
    return spearman(preds, strict)


def rel_error(pred, meas):
    """Signed (pred - meas) / meas."""
    if meas <= 0:
        return None
    return (pred - meas) / meas


def spread(values):
    """(max - min) / median: the run-to-run spread of the rounds."""
    m = statistics.median(values)
    return (max(values) - min(values)) / m if m > 0 else 0.0


def error_summary(errors):
    """(median, worst) of |error| over the defined ones."""
    a = [abs(e) for e in errors if e is not None]
    if not a:
        return None, None
    return statistics.median(a), max(a)


def separated_pairs(rows):
    """Pairs of configurations the model separates by more than the noise
    (the predicted iterations differ by more than the larger of the two
    measured round ranges) and how many of them were measured in the
    predicted order: (agreeing, separated). Rank correlation over policies
    the host cannot tell apart is noise; these pairs are what it can."""
    agree = sep = 0
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            a, b = rows[i], rows[j]
            dp = a["pred_iter_ms"] - b["pred_iter_ms"]
            if abs(dp) <= max(a["meas_range_ms"], b["meas_range_ms"]):
                continue
            sep += 1
            if (a["meas_iter_ms"] - b["meas_iter_ms"]) * dp > 0:
                agree += 1
    return agree, sep


def distinct_plans(rows):
    """The rows of distinct plans: the first row of each (graph, plan digest),
    in order. Policies that compile to the same plan file (t25M, t64M and
    t256M on a graph smaller than 25 MB: one bucket each) run the same
    program; measured once, they are one point. Counting them as several
    would rank the host's noise between runs of one program (rows without a
    digest, from reports before 2026-12-06, are each distinct)."""
    seen, out = set(), []
    for r in rows:
        d = r.get("plan_digest")
        if d is not None:
            if (r["graph"], d) in seen:
                continue
            seen.add((r["graph"], d))
        out.append(r)
    return out


def distinct(configs):
    """The configs that are run: those whose plan is no earlier one's."""
    return [c for c in configs if not c.get("twin")]


def config_name(c):
    return f"{c['policy']} k={c['in_flight'] or 'inf'}"


def optimal_verdict(rows):
    """For one graph and in-flight setting: is optimal measured no slower
    than the best other policy beyond the noise? The noise is the larger of
    the two configurations' round ranges (max - min, ms). Returns
    (verdict, optimal ms, best other name, its ms, noise ms) or None."""
    opt = [r for r in rows if r["policy"] == "optimal"]
    others = [r for r in rows if r["policy"] != "optimal"]
    if not opt or not others:
        return None
    o = opt[0]
    best = min(others, key=lambda r: r["meas_iter_ms"])
    noise = max(o["meas_range_ms"], best["meas_range_ms"])
    ok = o["meas_iter_ms"] <= best["meas_iter_ms"] + noise
    return ("ok" if ok else "SLOWER", o["meas_iter_ms"], best["policy"],
            best["meas_iter_ms"], noise)


def pct(x):
    return "-" if x is None else f"{100 * x:+.1f}"


def fmt_rho(x):
    return "n/a" if x is None else f"{x:.3f}"
