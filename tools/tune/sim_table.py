#!/usr/bin/env python3
"""Chooses algorithms by simulation: an algorithm table for
comm-select-algorithm's table= (hccl-opt --hccl-pipeline=algo-table=F).

For each collective and size, every candidate selection would weigh (the
rows `hccl-plan cost` lists for that collective, group and topology) is
simulated with hccl-sim on the platform the extra options describe (a
rail-optimised or oversubscribed fabric, a slow NIC: what the cost model
has no term for), and the fastest in simulation goes into the table. The
model's own pick and both times are kept beside it, and a summary shows
where the two disagree.

  tools/tune/sim_table.py --ranks 512 --topology 910b-8x64 -b 1M -e 1G \\
      -o table.json -- --fabric rail --oversubscription 4

Sizes are bytes of fp32 data as HCCL counts them (-b, -e, factor -f).
Everything after `--` goes to every hccl-sim run. Exit 2 on bad options or
a tool that fails. docs/simulation.md, "The simulator as the pricer".
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLECTIVES = ("allreduce", "allgather", "reducescatter")


def fail(msg):
    # Named after the script run (measure_table.py shares these helpers).
    prog = os.path.splitext(os.path.basename(sys.argv[0]))[0] or "sim_table"
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper()
    mult = units.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in units else t
    if not digits.isdigit() or int(digits) * mult < 4:
        fail(f"'{text}': expected a size of at least 4 bytes (K/M/G suffixes)")
    return int(digits) * mult


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(shlex.quote(c) for c in cmd)} failed (exit "
             f"{r.returncode}):\n{r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


def candidates(plan, common, coll, count):
    """(label, model_us, chosen) of every row `hccl-plan cost` prints."""
    out = run([plan, "cost", "--collective", coll, "--count", str(count), *common])
    rows = []
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+(\s+\*)?\s*$", line)
        if m:
            rows.append((m.group(1), float(m.group(2)), bool(m.group(3))))
    if not rows:
        fail(f"hccl-plan cost listed no algorithm for {coll}:\n{out}")
    return rows


def algo_args(label):
    m = re.match(r"^hierarchical\((\w+),(\w+)\)$", label)
    if m:
        return ["--algo", "hierarchical", "--level0", m.group(1), "--level1", m.group(2)]
    return ["--algo", label]


def simulate(sim, common, extra, coll, count, label):
    out = run([sim, "--collective", coll, "--count", str(count), *algo_args(label),
               *common, *extra])
    for line in out.splitlines():
        tok = line.split()
        if len(tok) >= 8 and tok[0] == "0":
            return float(tok[6])
    fail(f"hccl-sim printed no result for {coll} {label}:\n{out}")


def entry(coll, ranks, nbytes, label, sim_us, model_us, model_label):
    e = {"collective": coll, "ranks": ranks, "bytes": nbytes}
    m = re.match(r"^hierarchical\((\w+),(\w+)\)$", label)
    if m:
        e.update(algorithm="hierarchical", level0=m.group(1), level1=m.group(2))
    else:
        e["algorithm"] = label
    e.update(sim_us=sim_us, model_us=model_us, model_algorithm=model_label)
    return e


def size_bounds(args):
    """-b and -e (args.min_bytes, args.max_bytes) in bytes, checked."""
    lo, hi = parse_size(args.min_bytes), parse_size(args.max_bytes)
    if lo > hi:
        fail(f"-b {args.min_bytes} is above -e {args.max_bytes}")
    return lo, hi


def find_tools(bindir, *names):
    """Paths of the built tools, each checked to be there."""
    paths = [os.path.join(bindir, n) for n in names]
    for tool in paths:
        if not os.access(tool, os.X_OK):
            fail(f"{tool}: not found (build it, or give --bin)")
    return paths


def write_table(path, topology, tool, entries):
    """The table document (docs/plan-format.md), its source this command."""
    table = {"format": "hccl-mlir.algo-table", "version": 1, "topology": topology,
             "source": f"tools/tune/{tool} " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
             "entries": entries}
    with open(path, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")


def main(argv):
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--topology", required=True, help="preset, e.g. 910b-8x64")
    ap.add_argument("--link-params", help="link-parameter JSON for both tools")
    ap.add_argument("--collective", action="append", choices=COLLECTIVES,
                    help="repeatable; default all three")
    ap.add_argument("-b", "--min-bytes", default="1M")
    ap.add_argument("-e", "--max-bytes", default="1G")
    ap.add_argument("-f", "--factor", type=int, default=4)
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = ap.parse_args(argv)
    if args.ranks < 2:
        fail("--ranks must be >= 2")
    if args.factor < 2:
        fail("-f must be >= 2")
    lo, hi = size_bounds(args)
    sim, plan = find_tools(args.bin, "hccl-sim", "hccl-plan")
    common = ["--ranks", str(args.ranks), "--topology", args.topology]
    if args.link_params:
        common += ["--link-params", args.link_params]
    colls = args.collective or list(COLLECTIVES)
    entries = []
    print("| collective | bytes | model's pick | its sim us | simulation's pick | sim us "
          "| model/sim pick |")
    print("|---|---|---|---|---|---|---|")
    for coll in colls:
        nbytes = lo
        while nbytes <= hi:
            count = nbytes // 4
            rows = candidates(plan, common, coll, count)
            times = {label: simulate(sim, common, extra, coll, count, label)
                     for label, _, _ in rows}
            model_label = next((lab for lab, _, chosen in rows if chosen), rows[0][0])
            best = min(rows, key=lambda r: times[r[0]])
            entries.append(entry(coll, args.ranks, count * 4, best[0], times[best[0]],
                                 best[1], model_label))
            print(f"| {coll} | {count * 4} | {model_label} | {times[model_label]:.2f} "
                  f"| {best[0]} | {times[best[0]]:.2f} "
                  f"| {times[model_label] / times[best[0]]:.3f}x |", flush=True)
            nbytes *= args.factor
    write_table(args.out, args.topology, "sim_table.py", entries)
    print(f"sim_table: {len(entries)} entries -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
