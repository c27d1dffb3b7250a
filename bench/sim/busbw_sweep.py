#!/usr/bin/env python3
"""Bus bandwidth against size, per algorithm and scale, simulated: the
plots of docs/simulation.md ("Bus bandwidth by size and scale").

For each rank count (8, 64, 512, 4096: 910B servers of 8, `910b-8xN`) and
algorithm, runs hccl-sim for each collective and size (nccl-tests' message
size: the whole buffer, so an all-gather or reduce-scatter of size S moves
S / p per rank; sizes below 4 bytes per rank are left out), writes one
hccl-test style CSV per (ranks, algorithm) (op, ranks, size, sim time,
algbw, busbw) with the model's time beside it in a second CSV, and plots
the simulated bus bandwidth against size per scale with
tools/plot/plot_hccl_test.py (one line per algorithm).

  bench/sim/busbw_sweep.py --out DIR [--ranks 8 64 512] [--collective allreduce ...]
      [-b 1K] [-e 4G] [-f 4] [--big-ranks 4096 --big-sizes 1M 64M 4G]

Flat algorithms over 4096 ranks take hours to simulate (docs/simulation.md,
"Limits"); at --big-ranks only rhd and hierarchical(mesh, rhd) run, at
--big-sizes.
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALGOS = {
    "ring": ["--algo", "ring"],
    "mesh": ["--algo", "mesh"],
    "rhd": ["--algo", "rhd"],
    "hierarchical(ring,ring)": ["--algo", "hierarchical", "--level0", "ring", "--level1", "ring"],
    "hierarchical(mesh,rhd)": ["--algo", "hierarchical", "--level0", "mesh", "--level1", "rhd"],
}
CSV_HEAD = ("op,datatype,reduce_op,ranks,data_size_bytes,count,avg_time_us,"
            "alg_bandwidth_gbps,bus_bandwidth_gbps,check_result\n")


def size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.upper()
    mult = units.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in units else t
    if not digits.isdigit() or int(digits) * mult < 4:
        raise argparse.ArgumentTypeError(f"'{text}': expected a size >= 4 (K/M/G)")
    return int(digits) * mult


def topology(ranks):
    return "910b-8" if ranks == 8 else f"910b-8x{ranks // 8}"


def algorithms(ranks, big):
    if ranks <= 8:
        return ["ring", "mesh", "rhd"]
    if big:
        return ["rhd", "hierarchical(mesh,rhd)"]
    return ["ring", "rhd", "hierarchical(ring,ring)", "hierarchical(mesh,rhd)"]


def count_for(coll, ranks, nbytes):
    """Elements per rank for nccl-tests' message size `nbytes` (fp32): the
    whole buffer, which all-gather and reduce-scatter split over the
    ranks; 0 when the size is below one element per rank."""
    per = nbytes // 4
    return per // ranks if coll in ("allgather", "reducescatter") else per


def simulate(sim, coll, algo, ranks, nbytes):
    cmd = [sim, "--collective", coll, *ALGOS[algo], "--ranks", str(ranks),
           "--count", str(count_for(coll, ranks, nbytes)), "--topology", topology(ranks)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        # A run that fails (out of memory at 4096 ranks: killed without a
        # message) is reported and left out; the sweep goes on.
        why = r.stderr.strip().splitlines()[-1:] or [f"exit {r.returncode}, no message"]
        print(f"busbw_sweep: {' '.join(cmd)} failed: {why[0]}", file=sys.stderr, flush=True)
        return None
    for line in r.stdout.splitlines():
        tok = line.split()
        if len(tok) >= 11 and tok[0] == "0":
            model = float(tok[7]) if tok[7] != "n/a" else float("nan")
            return (float(tok[5]), float(tok[6]), model, float(tok[9]), float(tok[10]))
    sys.exit(f"busbw_sweep: no result from {' '.join(cmd)}:\n{r.stdout}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, nargs="+", default=[8, 64, 512])
    ap.add_argument("--big-ranks", type=int, nargs="*", default=[4096])
    ap.add_argument("--big-sizes", type=size, nargs="+", default=[1 << 20, 64 << 20, 4 << 30])
    ap.add_argument("--collective", nargs="+", default=["allreduce", "allgather", "reducescatter"])
    ap.add_argument("-b", type=size, default=1 << 10)
    ap.add_argument("-e", type=size, default=4 << 30)
    ap.add_argument("-f", type=int, default=4)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    args = ap.parse_args(argv)
    for r in args.ranks + args.big_ranks:
        if r < 8 or r % 8:
            ap.error(f"ranks {r}: expected a multiple of 8 (910B servers)")
    if args.f < 2 or args.b > args.e:
        ap.error("-f must be >= 2 and -b <= -e")
    os.makedirs(args.out, exist_ok=True)
    sim = os.path.join(args.bin, "hccl-sim")
    sizes = []
    s = args.b
    while s <= args.e:
        sizes.append(s)
        s *= args.f
    print("| collective | ranks | algorithm | bytes | sim us | model us | sim busbw GB/s |")
    print("|---|---|---|---|---|---|---|")
    for ranks in args.ranks + args.big_ranks:
        big = ranks in args.big_ranks
        files, labels = [], []
        for algo in algorithms(ranks, big):
            base = os.path.join(args.out, f"p{ranks}-{algo.replace('(', '-').replace(',', '-').rstrip(')')}")
            with open(base + ".sim.csv", "w") as simf, open(base + ".model.csv", "w") as modf:
                simf.write(CSV_HEAD)
                modf.write(CSV_HEAD)
                for coll in args.collective:
                    for nbytes in (args.big_sizes if big else sizes):
                        count = count_for(coll, ranks, nbytes)
                        if count == 0:
                            continue
                        res = simulate(sim, coll, algo, ranks, nbytes)
                        if res is None:
                            print(f"| {coll} | {ranks} | {algo} | {nbytes} | failed | | |",
                                  flush=True)
                            continue
                        bsize, sim_us, model_us, algbw, busbw = res
                        simf.write(f"{coll},fp32,sum,{ranks},{int(bsize)},{count},"
                                   f"{sim_us},{algbw},{busbw},NULL\n")
                        if model_us == model_us:  # not n/a
                            factor = sim_us / model_us
                            modf.write(f"{coll},fp32,sum,{ranks},{int(bsize)},{count},"
                                       f"{model_us},{algbw * factor},{busbw * factor},NULL\n")
                        print(f"| {coll} | {ranks} | {algo} | {int(bsize)} | {sim_us:.2f} "
                              f"| {model_us:.2f} | {busbw:.3f} |", flush=True)
            files.append(base + ".sim.csv")
            labels.append(algo)
        for coll in args.collective:
            # One collective per plot: files filtered to its rows.
            sel, sel_labels = [], []
            for f, lab in zip(files, labels):
                path = f.replace(".sim.csv", f".{coll}.csv")
                with open(f) as src, open(path, "w") as dst:
                    lines = src.readlines()
                    rows = [l for l in lines[1:] if l.startswith(coll + ",")]
                    dst.write(lines[0])
                    dst.writelines(rows)
                if rows:  # an algorithm whose every run failed has no line
                    sel.append(path)
                    sel_labels.append(lab)
            if not sel:
                continue
            png = os.path.join(args.out, f"sim-busbw-{coll}-p{ranks}.png")
            cmd = ["/usr/bin/python3", os.path.join(ROOT, "tools", "plot", "plot_hccl_test.py"),
                   *[a for f, lab in zip(sel, sel_labels) for a in (f, "--label", lab)],
                   "--out", png, "--title",
                   f"{coll}, {ranks} ranks ({topology(ranks)}), simulated"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                # A collective none of whose runs finished has nothing to plot.
                print(f"busbw_sweep: no plot for {coll} on {ranks} ranks: "
                      f"{r.stderr.strip()}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
