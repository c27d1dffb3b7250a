#!/usr/bin/python3
#===- compare.py - gloo vs hccl vs hccl + plan, DDP training, local ranks -===#
"""For each model and rank count: exports the model's training graph
(tools/export/export_graph.py on train_ddp.py's factory), compiles it
(hccl-translate --import-graph | hccl-opt --hccl-pipeline |
hccl-translate --comm-to-plan) for the host-N topology, then trains it with
torchrun three ways (gloo with DDP's defaults, hccl with DDP's defaults,
hccl with the compiled plan) and prints one table row per run, plus whether
the losses agree with gloo's.

    examples/train/compare.py --models cnn gpt --ranks 2 4 8 --steps 200

Needs the README's build (build/bin, build/python). Debian's torchrun 1.13
fails on Python 3.11 with its default output settings (Std.NONE is not
iterable there); the runs pass --redirects 1 --tee 1, which works.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import train_ddp  # noqa: E402

# This CPU for the compiler's compute estimates: per-rank FLOPs and bytes
# rates, roughly one core's (the ranks share the cores; see performance.md).
CPU = ["--peak-tflops", "0.02", "--memory-gbps", "10", "--efficiency", "1"]


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} failed:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}")
    return r.stdout


def compile_plan(build, work, model, ranks):
    graph = os.path.join(work, f"{model}-p{ranks}.graph.json")
    plan = os.path.join(work, f"{model}-p{ranks}.plan.json")
    inputs = train_ddp.CNN_INPUT if model == "cnn" else train_ddp.GPT_INPUT
    sh(["/usr/bin/python3", os.path.join(ROOT, "tools", "export", "export_graph.py"),
        os.path.join(HERE, "train_ddp.py") + ":" + model,
        *[a for i in inputs for a in ("--input", i)], *CPU, "--threads", "1",
        "--ranks", str(ranks), "--topology", f"host-{ranks}", "--brief", "-o", graph])
    mlir = sh([os.path.join(build, "bin", "hccl-translate"), "--import-graph", graph])
    lowered = sh([os.path.join(build, "bin", "hccl-opt"), "--hccl-pipeline"], input=mlir)
    sh([os.path.join(build, "bin", "hccl-translate"), "--comm-to-plan", "-o", plan], input=lowered)
    return plan, graph


def train(build, work, model, ranks, mode, steps, port, plan=None, graph=None):
    out = os.path.join(work, f"{model}-p{ranks}-{mode}.json")
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    cmd = ["/usr/bin/torchrun", "--redirects", "1", "--tee", "1",
           "--log_dir", os.path.join(work, f"logs-{model}-p{ranks}-{mode}"),
           "--nproc_per_node", str(ranks), "--master_port", str(port),
           os.path.join(HERE, "train_ddp.py"), "--model", model,
           "--backend", "gloo" if mode == "gloo" else "hccl",
           "--steps", str(steps), "--out", out]
    if plan:
        cmd += ["--plan", plan, "--graph", graph]
    sh(cmd, env=env)
    with open(out) as f:
        return json.load(f)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", nargs="+", choices=["cnn", "gpt"], default=["cnn", "gpt"])
    p.add_argument("--ranks", nargs="+", type=int, default=[2, 4, 8])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--work", help="folder for graphs, plans, logs, reports (default: a temporary one)")
    p.add_argument("--port", type=int, default=29700)
    args = p.parse_args(argv)
    work = args.work or tempfile.mkdtemp(prefix="hccl-train-")
    os.makedirs(work, exist_ok=True)
    print(f"work folder: {work}")
    print("| model | ranks | mode | step (ms, median) | compute only (ms) | exposed comm (ms) "
          "| steps/s | vs gloo | buckets (algorithms) | loss (first, last) | max loss diff vs gloo |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for model in args.models:
        for ranks in args.ranks:
            plan, graph = compile_plan(args.build, work, model, ranks)
            runs = {}
            for k, mode in enumerate(["gloo", "hccl", "hccl+plan"]):
                runs[mode] = train(args.build, work, model, ranks, mode, args.steps,
                                   args.port + k, *((plan, graph) if mode == "hccl+plan" else ()))
            gloo = runs["gloo"]
            for mode, r in runs.items():
                diff = max(abs(a - b) for a, b in zip(r["losses"], gloo["losses"]))
                speed = r["steps_per_s"] / gloo["steps_per_s"]
                bk = (f"{r['buckets']} ({', '.join(r['algorithms'])})" if r["buckets"]
                      else "DDP's")
                row = (f"| {model} | {ranks} | {mode} | {r['step_ms']:.1f} | {r['compute_only_ms']:.1f} "
                       f"| {r['exposed_comm_ms']:.1f} | {r['steps_per_s']:.2f} | {speed:.2f}x | {bk} "
                       f"| {r['losses'][0]:.3f}, {r['losses'][-1]:.3f} | {diff:.1e} |")
                print(row, flush=True)
                rows.append(dict(r, vs_gloo=speed, loss_diff_vs_gloo=diff))
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
