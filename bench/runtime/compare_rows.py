#!/usr/bin/python3
"""Side-by-side table of two benchmarks that print hccl-test's rows.

    compare_rows.py NAME_A NAME_B A_ROUND1.txt [A_ROUND2.txt ...] -- B_ROUND1.txt ...

Each file is the stdout of one run (hccl-test, mpi-coll-bench or
gloo_allreduce_bench.py). Per data size it prints the median time and bus
bandwidth of each side over the rounds and the ratios: busbw A/B (> 1: A
moves more data per second) and time A/B (< 1: A is faster).
"""
import statistics
import sys


def rows_of(text):
    """hccl-test's rows in `text`: {data size: (time us, busbw, check)}."""
    out = {}
    for line in text.splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) < 5 or not cols[0].isdigit():
            continue
        out[int(cols[0])] = (float(cols[1]), float(cols[4]), cols[3])
    return out


def rows(path):
    with open(path) as f:
        return rows_of(f.read())


def merged(paths):
    by_size = {}
    for p in paths:
        for size, (us, busbw, check) in rows(p).items():
            by_size.setdefault(size, []).append((us, busbw, check))
    return {s: (statistics.median(v[0] for v in vals),
                statistics.median(v[1] for v in vals),
                len(vals), sorted({v[2] for v in vals}))
            for s, vals in by_size.items()}


def human(n):
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def main(argv):
    if len(argv) < 4 or "--" not in argv:
        sys.exit(__doc__)
    name_a, name_b = argv[0], argv[1]
    sep = argv.index("--")
    a, b = merged(argv[2:sep]), merged(argv[sep + 1:])
    sizes = sorted(set(a) & set(b))
    if not sizes:
        sys.exit("compare_rows: no data size appears in both outputs")
    w = max(len(name_a), len(name_b), 9)
    print(f"{'size':>6} | {name_a + ' us':>{w + 3}} | {name_b + ' us':>{w + 3}}"
          f" | {'time ratio':>10} | {name_a + ' busbw':>{w + 6}} | "
          f"{name_b + ' busbw':>{w + 6}} | {'busbw ratio':>11}")
    for s in sizes:
        ta, ba, na, ca = a[s]
        tb, bb, nb, cb = b[s]
        tr = ta / tb if tb > 0 else float("inf")
        br = ba / bb if bb > 0 else float("inf")
        flag = "" if "failed" not in ca + cb else "  (check failed)"
        print(f"{human(s):>6} | {ta:>{w + 3}.2f} | {tb:>{w + 3}.2f} | "
              f"{tr:>10.2f} | {ba:>{w + 6}.3f} | {bb:>{w + 6}.3f} | "
              f"{br:>11.2f}{flag}")
    print(f"(medians over {min(v[2] for v in a.values())} round(s); busbw in "
          f"GB/s; time ratio = {name_a}/{name_b}, < 1 means {name_a} is "
          f"faster; busbw ratio > 1 means {name_a} is faster)")


if __name__ == "__main__":
    main(sys.argv[1:])
