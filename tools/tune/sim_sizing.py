#!/usr/bin/env python3
"""Chooses a bucket sizing by simulating whole schedules.

comm-bucket-sizing prices buckets one at a time (closed forms, or an
algorithm table's simulated times), so what buckets do to each other on
shared links, and the platform's faults, stay out of its choice. This
compiles the module once per candidate pipeline (bucket sizing, overlap
scheduling, selection, lowering: `hccl-opt --hccl-pipeline="CANDIDATE"`),
simulates each whole plan with hccl-sim on the platform the options after
`--` describe, and keeps the one whose simulated iteration is shortest.
Beside it, per candidate, the model's prediction of the same schedule
(comm-estimate on the unlowered pipeline) and the buckets' count.

  tools/tune/sim_sizing.py gpt512.mlir -o best.plan.json \\
      -- --oversubscription 4 --slow-link nic:7:0.25

Candidates (repeat --candidate to give your own; each is --hccl-pipeline's
option string): DDP's Reducer, 25M / 64M / 256M thresholds, and the
closed-form optimum. The module's topology is the platform's (hccl-sim
reads it from the plan). Exit 2 on bad options or a tool that fails.
docs/simulation.md, "The simulator as the pricer".
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CANDIDATES = [
    "policy=ddp",
    "policy=threshold threshold-bytes=25M",
    "policy=threshold threshold-bytes=64M",
    "policy=threshold threshold-bytes=256M",
    "policy=optimal",
]


def fail(msg):
    print(f"sim_sizing: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd, stdin=None):
    r = subprocess.run(cmd, capture_output=True, text=True, input=stdin)
    if r.returncode != 0:
        fail(f"{' '.join(shlex.quote(c) for c in cmd)} failed (exit "
             f"{r.returncode}):\n{r.stderr.strip() or r.stdout.strip()}")
    return r


def field(text, key, what):
    m = re.search(rf"\b{key}[= ]([0-9.eE+-]+)", text)
    if not m:
        fail(f"no {key} in {what}:\n{text.strip()}")
    return float(m.group(1))


def evaluate(tools, module, cand, sim_args, plan_path):
    opt, translate, sim = tools
    # The model's view of this schedule: the timeline before lowering.
    est = run([opt, module, f"--hccl-pipeline={cand} lower=false",
               "--comm-estimate", "-o", os.devnull])
    predicted = field(est.stdout + est.stderr, "iteration_us",
                      f"comm-estimate of '{cand}'")
    lowered = run([opt, module, f"--hccl-pipeline={cand}"])
    buckets = len(set(re.findall(r"comm\.bucket = (\d+)", lowered.stdout)))
    run([translate, "--comm-to-plan", "-o", plan_path], stdin=lowered.stdout)
    out = run([sim, plan_path] + sim_args).stdout
    return {
        "candidate": cand,
        "buckets": buckets,
        "predicted_us": predicted,
        "sim_us": field(out, "iteration_us", f"hccl-sim of '{cand}'"),
        "exposed_us": field(out, "exposed_us", f"hccl-sim of '{cand}'"),
    }


def main():
    argv = sys.argv[1:]
    sim_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, sim_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("module", help="a comm module (hccl-translate's import)")
    ap.add_argument("--candidate", action="append", metavar="OPTIONS",
                    help="an --hccl-pipeline option string (repeatable)")
    ap.add_argument("-o", "--out", help="write the best candidate's plan here")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                    help="folder of hccl-opt, hccl-translate and hccl-sim "
                         "(default: build/bin)")
    args = ap.parse_args(argv)
    if not os.path.isfile(args.module):
        fail(f"{args.module}: no such file")
    tools = tuple(os.path.join(args.bin, t)
                  for t in ("hccl-opt", "hccl-translate", "hccl-sim"))
    for t in tools:
        if not os.access(t, os.X_OK):
            fail(f"{t}: not built (run the README's build command)")
    candidates = args.candidate or DEFAULT_CANDIDATES
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, cand in enumerate(candidates):
            plan = os.path.join(tmp, f"plan{i}.json")
            rows.append(evaluate(tools, args.module, cand, sim_args, plan))
            rows[-1]["plan"] = plan
        best = min(rows, key=lambda r: r["sim_us"])
        if args.out:
            shutil.copyfile(best["plan"], args.out)
    by_model = min(rows, key=lambda r: r["predicted_us"])
    print("| candidate | buckets | model iteration us | simulated us | "
          "simulated exposed us |")
    print("|---|---|---|---|---|")
    for r in rows:
        mark = " (best)" if r is best else ""
        print(f"| {r['candidate']}{mark} | {r['buckets']} | "
              f"{r['predicted_us']:.2f} | {r['sim_us']:.2f} | "
              f"{r['exposed_us']:.2f} |")
    print(f"best: {best['candidate']}")
    print(f"model's pick: {by_model['candidate']} "
          f"({by_model['sim_us'] / best['sim_us']:.3f}x the best in simulation)")


if __name__ == "__main__":
    main()
