#!/usr/bin/python3
#===- plot_hccl_test.py - hccl-test CSV files -> bandwidth-vs-size PNG ----===#
"""Plots bus bandwidth (or algorithm bandwidth, or time) against message size
from one or more `hccl-test --csv` files: one line per label (by default
the file name), and per collective / rank count / dtype when the files hold
several. Files given the same label are repeated runs: each size plots the
median of their values. Sizes on a log axis. Rows whose check failed are
left out (and counted on stderr).

Exit status: 0 success, 1 unreadable or malformed CSV, 2 bad command line.
"""

import argparse
import csv
import os
import statistics
import sys
import tempfile

PROG = "plot_hccl_test.py"
REQUIRED = ("op", "datatype", "ranks", "data_size_bytes", "avg_time_us",
            "alg_bandwidth_gbps", "bus_bandwidth_gbps", "check_result")
METRICS = {
    "busbw": ("bus_bandwidth_gbps", "bus bandwidth (GB/s)"),
    "algbw": ("alg_bandwidth_gbps", "algorithm bandwidth (GB/s)"),
    "time": ("avg_time_us", "average time (us)"),
}


class InputError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{PROG}: error: {message}", file=sys.stderr)
        sys.exit(2)


def size_label(n: float) -> str:
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{int(n // scale)}{unit}"
    return f"{int(n)}"


def read_csv(path: str, column: str):
    """{(op, ranks, dtype): [(size, value), ...]} and the number of rows
    left out because their check failed."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise InputError(f"{path}: cannot open: {e.strerror}")
    series, failed = {}, 0
    with f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None:
            raise InputError(f"{path}: empty file (expected an hccl-test --csv header)")
        missing = [c for c in REQUIRED if c not in reader.fieldnames]
        if missing:
            raise InputError(f"{path}:1: missing column '{missing[0]}' "
                             "(not an hccl-test --csv file?)")
        for row in reader:
            line = reader.line_num
            if None in row or any(row[c] is None for c in REQUIRED):
                raise InputError(f"{path}:{line}: expected {len(reader.fieldnames)} columns")
            if row["check_result"] == "failed":
                failed += 1
                continue
            values = {}
            for c in ("ranks", "data_size_bytes", column):
                try:
                    values[c] = float(row[c])
                except ValueError:
                    raise InputError(f"{path}:{line}: column '{c}': not a number "
                                     f"'{row[c]}'")
                if not values[c] >= 0:
                    raise InputError(f"{path}:{line}: column '{c}': expected a "
                                     f"number >= 0, found '{row[c]}'")
            if values["data_size_bytes"] <= 0:
                raise InputError(f"{path}:{line}: column 'data_size_bytes': "
                                 "expected a positive size")
            key = (row["op"], int(values["ranks"]), row["datatype"])
            series.setdefault(key, []).append((values["data_size_bytes"], values[column]))
    if not series:
        raise InputError(f"{path}: no rows to plot")
    return series, failed


def main(argv) -> int:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("csv", nargs="+", help="hccl-test --csv files")
    p.add_argument("--out", required=True, metavar="FILE", help="PNG to write")
    p.add_argument("--label", action="append", metavar="TEXT",
                   help="legend label of each file, in order (default: file "
                        "name); files with the same label plot their median")
    p.add_argument("--metric", choices=sorted(METRICS), default="busbw",
                   help="y axis (default busbw)")
    p.add_argument("--title", help="plot title")
    p.add_argument("--table", action="store_true",
                   help="also print the plotted points (label, size, value)")
    args = p.parse_intermixed_args(argv)  # FILE --label L FILE --label L ...
    if args.label and len(args.label) != len(args.csv):
        p.error(f"--label given {len(args.label)} times for {len(args.csv)} files")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir):
        p.error(f"--out: no such directory: {out_dir}")

    column, axis = METRICS[args.metric]
    try:
        data = [read_csv(path, column) for path in args.csv]
    except InputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    # label -> (op, ranks, dtype) -> size -> values of the files so labelled
    merged = {}
    for i, (path, (series, failed)) in enumerate(zip(args.csv, data)):
        label = args.label[i] if args.label else os.path.splitext(os.path.basename(path))[0]
        if failed:
            print(f"{PROG}: {path}: left out {failed} rows whose check failed",
                  file=sys.stderr)
        for key, points in series.items():
            for size, value in points:
                merged.setdefault(label, {}).setdefault(key, {}).setdefault(size, []).append(value)

    fig, ax = plt.subplots(figsize=(8, 5))
    sizes, lines = set(), 0
    for label, series in merged.items():
        for (op, ranks, dtype), by_size in sorted(series.items()):
            xs = sorted(by_size)
            sizes.update(xs)
            name = label if len(series) == 1 else f"{label} {op} p={ranks} {dtype}"
            ys = [statistics.median(by_size[x]) for x in xs]
            ax.plot(xs, ys, marker="o", label=name)
            lines += 1
            if args.table:
                for x, y in zip(xs, ys):
                    print(f"{name} {size_label(x)} {y:g}")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(sizes)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v)))
    ax.set_xlabel("message size (bytes per rank)")
    ax.set_ylabel(axis)
    ops = sorted({op for _, (series, _) in zip(args.csv, data) for op, _, _ in series})
    ax.set_title(args.title or f"hccl-test {', '.join(ops)}: {axis} vs size")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    fig.tight_layout()

    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".png", dir=out_dir)
    os.close(fd)
    try:
        fig.savefig(tmp, format="png", dpi=100)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600
        os.replace(tmp, args.out)
    except OSError as e:
        os.unlink(tmp)
        print(f"{PROG}: error: {args.out}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {lines} series from {len(args.csv)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
