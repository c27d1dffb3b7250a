#!/usr/bin/python3
"""The automatic algorithm choice against a forced one, alternated.

    ab_algo.py -o all_gather -o reduce_scatter -p 3 -p 4 \\
        --old 3=level0:ring --old 4=level0:rhd -b 4K -e 64M -f 4 -r 8

Per round, for each collective and rank count, hccl-test runs the sizes
(its data size: all ranks' bytes, as it prints them) once with HCCL_ALGO
as --old gives it for that rank count ("old") and once without ("new"),
one right after the other and first in turn, so that the host's drift
hits both alike. HCCL_ALGO_TABLE is cleared for both, so that "new" is
the automatic choice. Prints per size the median time of each over the
rounds (with min-max) and new / old. Rows where both ran the same
algorithm show the noise. Exit 2 on bad options, 1 when a run fails or
prints no rows.
"""
import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_rows import rows_of  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--op", action="append", required=True,
                    help="hccl-test collective (repeatable)")
    ap.add_argument("-p", "--ranks", action="append", type=int, required=True,
                    help="local ranks (repeatable)")
    ap.add_argument("--old", action="append", default=[], metavar="P=HCCL_ALGO",
                    help="the forced choice at P ranks (repeatable)")
    ap.add_argument("-b", default="4K")
    ap.add_argument("-e", default="64M")
    ap.add_argument("-f", default="4")
    ap.add_argument("-n", default="20")
    ap.add_argument("-w", default="5")
    ap.add_argument("-r", "--rounds", type=int, default=8)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    a = ap.parse_args()
    old = {}
    for o in a.old:
        p, sep, algo = o.partition("=")
        if not sep or not p.isdigit() or not algo:
            ap.error(f"--old needs P=HCCL_ALGO, found '{o}'")
        old[int(p)] = algo
    if a.rounds < 1:
        ap.error(f"--rounds needs 1 or more, found {a.rounds}")
    missing = [p for p in a.ranks if p not in old]
    if missing:
        ap.error(f"no --old for {missing} ranks")
    test = os.path.join(a.bin, "hccl-test")
    if not os.access(test, os.X_OK):
        ap.error(f"no hccl-test at {test} (build it, or give --bin)")
    times = {}
    for rnd in range(a.rounds):
        for op in a.op:
            for p in a.ranks:
                # Which runs first alternates by round, so that an order
                # effect (suspected: 1.06-1.23x on the second) favours
                # neither.
                for variant in ("old", "new") if rnd % 2 == 0 else ("new", "old"):
                    env = dict(os.environ, HCCL_LOG_LEVEL="warn")
                    env.pop("HCCL_ALGO", None)
                    env.pop("HCCL_ALGO_TABLE", None)
                    if variant == "old":
                        env["HCCL_ALGO"] = old[p]
                    cmd = [test, op, "-b", a.b, "-e", a.e, "-f", a.f, "-p", str(p),
                           "-n", a.n, "-w", a.w, "-c", "0"]
                    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                    if r.returncode != 0:
                        print(f"ab_algo: {' '.join(cmd)} failed (exit "
                              f"{r.returncode}):\n{(r.stdout + r.stderr)[-2000:]}",
                              file=sys.stderr)
                        sys.exit(1)
                    got = rows_of(r.stdout)
                    if not got:
                        print(f"ab_algo: {' '.join(cmd)} printed no rows:\n"
                              f"{r.stdout[-2000:]}", file=sys.stderr)
                        sys.exit(1)
                    for size, (us, _, _) in got.items():
                        times.setdefault((op, p, size, variant), []).append(us)
    print(f"# {a.rounds} rounds; old = HCCL_ALGO {old}, new = the automatic choice")
    print("| collective | ranks | bytes | old us (min-max) | new us (min-max) | new / old |")
    print("|---|---|---|---|---|---|")
    for op in a.op:
        for p in a.ranks:
            for size in sorted({k[2] for k in times if k[0] == op and k[1] == p}):
                o = times.get((op, p, size, "old"), [])
                n = times.get((op, p, size, "new"), [])
                if not o or not n:
                    continue
                mo, mn = statistics.median(o), statistics.median(n)
                print(f"| {op} | {p} | {size} | {mo:.1f} ({min(o):.1f}-{max(o):.1f}) | "
                      f"{mn:.1f} ({min(n):.1f}-{max(n):.1f}) | {mn / mo:.2f} |")


if __name__ == "__main__":
    main()
