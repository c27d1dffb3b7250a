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
    examples/train/compare.py --models cnn --ranks 2 --batch 1 --rounds 3

Needs the README's build (build/bin, build/python). Debian's torchrun 1.13
fails on Python 3.11 with its default output settings (Std.NONE is not
iterable there); the runs pass --redirects 1 --tee 1, which works.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import train_ddp  # noqa: E402

# This CPU for the compiler's compute estimates: per-rank FLOPs and bytes
# rates, roughly one core's (the ranks share the cores; see performance.md);
# --peak-tflops / --memory-gbps change them.
CPU = {"peak_tflops": 0.02, "memory_gbps": 10.0}


# glibc malloc settings under --allocator retain: never mmap a block of its
# own and never trim the heap, so the pages of freed tensors (fresh
# gradients every step under zero_grad(set_to_none=True), activations) are
# reused, not unmapped and faulted in again next step, as a caching
# allocator (the CUDA one, or the jemalloc / tcmalloc torch's CPU launcher
# torch.backends.xeon.run_cpu preloads) keeps them. A tunable rather than a
# preloaded allocator: glibc has it, nothing to install.
RETAIN_TUNABLES = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=18446744073709551615"


def retain_freed_memory(env):
    """Adds RETAIN_TUNABLES to env's GLIBC_TUNABLES (the user's stay)."""
    old = env.get("GLIBC_TUNABLES", "")
    env["GLIBC_TUNABLES"] = f"{old}:{RETAIN_TUNABLES}" if old else RETAIN_TUNABLES


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} failed:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}")
    return r.stdout


def calibrate(build, work, ranks):
    """Link parameters of this host for `ranks` local ranks
    (tools/calibrate/calibrate_host.py), measured now."""
    out = os.path.join(work, f"calib-p{ranks}.json")
    sh([sys.executable, os.path.join(ROOT, "tools", "calibrate", "calibrate_host.py"),
        "--hccl-test", os.path.join(build, "bin", "hccl-test"), "-p", str(ranks), "-o", out])
    return out


def measure_steal(build, work, model, ranks, batch, link_params, rounds, port,
                  zero_grad_in_place=False, steal_bytes=None):
    """Link parameters for `model`'s plan measured on the torch path
    (measure_steal.py): this host's compute steal (its backward alone and
    beside all-reduces of its gradients' size), and the links scaled so
    that the model prices those all-reduces at what they took alone on
    torch tensors (priced_like_torch), merged into `link_params` when
    given."""
    out = os.path.join(work, f"steal-{model}-p{ranks}-b{batch}.json")
    report = os.path.join(work, f"steal-{model}-p{ranks}-b{batch}.report.json")
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    print(sh(["/usr/bin/torchrun", "--redirects", "1", "--tee", "1",
              "--log_dir", os.path.join(work, f"logs-steal-{model}-p{ranks}"),
              "--nproc_per_node", str(ranks), "--master_port", str(port),
              os.path.join(HERE, "measure_steal.py"), "--model", model, "--batch", str(batch),
              "--rounds", str(rounds), "--out", out, "--report", report,
              *(["--zero-grad-in-place"] if zero_grad_in_place else []),
              *(["--bytes", str(steal_bytes)] if steal_bytes else []),
              *(["--link-params", link_params] if link_params else [])], env=env).strip(),
          flush=True)
    with open(report) as f:
        return priced_like_torch(build, work, ranks, out, json.load(f))


def _prices_us(build, ranks, count, links):
    """hccl-plan cost's price of each allreduce algorithm, us, and the
    name of the one it selects."""
    out = sh([os.path.join(build, "bin", "hccl-plan"), "cost", "--collective", "allreduce",
              "--ranks", str(ranks), "--count", str(count), "--topology", f"host-{ranks}",
              "--link-params", links])
    prices, selected = {}, None
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and re.fullmatch(r"[a-z_]+", f[0]) and re.fullmatch(r"[0-9.]+", f[1]):
            prices[f[0]] = float(f[1])
            if line.rstrip().endswith("*"):
                selected = f[0]
    if selected is None:
        sys.exit(f"compare.py: no selected algorithm in hccl-plan cost's output:\n{out}")
    return prices, selected


def fit_links(points):
    """The latency factor a and bandwidth factor k that price each measured
    all-reduce at its time: for each point (A, O, B, measured), A are the
    price's per-step latency terms, O its fixed terms and B its byte terms,
    and the fit solves measured = a * A + O + B / k. Two points of
    different sizes give both factors; one point (or two that leave a or
    1/k not positive, i.e. noise larger than their difference) gives k
    alone with a = 1. Returns (a, k, how)."""
    if len(points) == 2:
        (a1, o1, b1, m1), (a2, o2, b2, m2) = points
        det = a1 * b2 - a2 * b1
        if det != 0:
            a = ((m1 - o1) * b2 - (m2 - o2) * b1) / det
            inv_k = (a1 * (m2 - o2) - a2 * (m1 - o1)) / det
            if a > 0 and inv_k > 0:
                return a, 1 / inv_k, "two sizes"
    big = max(points, key=lambda p: p[2])
    lat_a, o, b, m = big
    if not m > lat_a + o:
        sys.exit(f"compare.py: the measured all-reduce ({m:.1f} us) is not above its "
                 f"latency terms ({lat_a + o:.1f} us): cannot scale the links to it")
    return 1.0, b / (m - lat_a - o), "one size"


def priced_like_torch(build, work, ranks, links, report):
    """`links` refitted to the all-reduces measure_steal.py timed on torch
    tensors: the intra link's per-step latency scaled by a, its bandwidth
    and the reduction rate by k (fit_links), so that the model prices the
    chunks and, when measured, the same bytes as one all-reduce at what
    they took. hccl-test calibrates with HcclMemAlloc buffers, read
    zero-copy; torch tensors take the copying path (docs/performance.md),
    and the plan runs on those. On an oversubscribed host (4 ranks on 2
    cores) each step also waits for a co-located rank to be scheduled: a
    bandwidth factor alone puts that into the byte terms and prices large
    buckets too dear, hence the second size."""
    sizes = [(report["bytes"] // report["chunks"] // 4,
              report["allreduce_alone_ms"] * 1e3 / report["chunks"])]
    if report.get("allreduce_whole_ms") and report["chunks"] > 1:
        sizes.append((report["bytes"] // 4, report["allreduce_whole_ms"] * 1e3))
    plan = os.path.join(work, f"links-p{ranks}.plan.json")
    sh([os.path.join(build, "bin", "hccl-plan"), "generate", "--collective", "allreduce",
        "--algo", "ring", "--ranks", str(ranks), "--count", "1", "--topology", f"host-{ranks}",
        "--link-params", links, "-o", plan])
    with open(plan) as f:
        topo = json.load(f)["topology"]
    with open(links) as f:
        params = json.load(f)
    params["intra"] = dict(topo["intra"])
    params["reduce_gbps"] = topo["reduce_gbps"]
    full = os.path.join(work, f"links-full-p{ranks}.json")
    no_lat = os.path.join(work, f"links-nolat-p{ranks}.json")
    with open(full, "w") as f:
        json.dump(params, f, indent=1)
    with open(no_lat, "w") as f:
        json.dump(dict(params, intra=dict(params["intra"], latency_us=0.0)), f, indent=1)
    # One algorithm for every point: the one selected for the largest.
    algo = _prices_us(build, ranks, sizes[-1][0], full)[1]
    fixed = _prices_us(build, ranks, 1, no_lat)[0][algo]
    points = []
    for count, measured in sizes:
        price = _prices_us(build, ranks, count, full)[0][algo]
        price_no_lat = _prices_us(build, ranks, count, no_lat)[0][algo]
        points.append((price - price_no_lat, fixed, price_no_lat - fixed, measured))
    a, k, how = fit_links(points)
    params["intra"] = dict(params["intra"], latency_us=params["intra"]["latency_us"] * a,
                           bandwidth_gbps=params["intra"]["bandwidth_gbps"] * k)
    params["reduce_gbps"] = params["reduce_gbps"] * k
    scaled = os.path.join(work, f"links-torch-p{ranks}.json")
    with open(scaled, "w") as f:
        json.dump(params, f, indent=1)
    fits = []
    for c, m in sizes:
        prices, sel = _prices_us(build, ranks, c, scaled)
        fits.append(f"{4 * c / 1e6:.1f} MB measured {m / 1e3:.2f} ms, priced "
                    f"{prices[algo] / 1e3:.2f}" + (f" (the model now selects {sel} there: "
                                                  f"{prices[sel] / 1e3:.2f})" if sel != algo
                                                  else ""))
    print(f"links fitted to torch tensors ({how}, {algo}): latency x{a:.3f}, bandwidths "
          f"x{k:.3f}; {', '.join(fits)} ({scaled})", flush=True)
    return scaled


def predict(build, mlir, pipeline):
    """comm-estimate's timeline of the plan (the pipeline before lowering,
    as bench/model/validate_model.py predicts): {field: us}."""
    scheduled = sh([os.path.join(build, "bin", "hccl-opt"),
                    f"--hccl-pipeline=lower=false {pipeline}"], input=mlir)
    out = sh([os.path.join(build, "bin", "hccl-opt"), "--comm-estimate", "-o", "/dev/null"],
             input=scheduled)
    line = next(l for l in out.splitlines() if l.startswith("timeline "))
    return {k: float(v) for k, v in (f.split("=") for f in line.split()[2:])}


def compile_plan(build, work, model, ranks, batch, link_params=None, cpu=None,
                 measure=0, pipeline=""):
    """Exports, compiles and writes the plan. measure > 0: the layers'
    backward times are measured (median of `measure` runs, one thread) and
    stretched by ranks / cores, the share of a core each rank gets when
    more ranks than cores train at once."""
    cpu = cpu or CPU
    graph = os.path.join(work, f"{model}-p{ranks}-b{batch}.graph.json")
    plan = os.path.join(work, f"{model}-p{ranks}-b{batch}.plan.json")
    inputs = train_ddp.input_spec(model, batch)
    sh(["/usr/bin/python3", os.path.join(ROOT, "tools", "export", "export_graph.py"),
        os.path.join(HERE, "train_ddp.py") + ":" + model,
        *[a for i in inputs for a in ("--input", i)],
        "--peak-tflops", str(cpu["peak_tflops"]), "--memory-gbps", str(cpu["memory_gbps"]),
        "--efficiency", "1", "--threads", "1",
        *(["--measure-compute", str(measure)] if measure else []),
        "--ranks", str(ranks), "--topology", f"host-{ranks}", "--brief", "-o", graph,
        *(["--link-params", link_params] if link_params else [])])
    if measure:
        share = max(1.0, ranks / (os.cpu_count() or 1))
        with open(graph) as f:
            g = json.load(f)
        for op in g["ops"]:
            if op["op"] == "compute":
                op["time_us"] = round(op["time_us"] * share, 4)
        with open(graph, "w") as f:
            json.dump(g, f)
        print(f"compute: {model} on {ranks} ranks: measured backward x{share:g} "
              f"(ranks per core) = "
              f"{sum(o['time_us'] for o in g['ops'] if o['op'] == 'compute') / 1e3:.1f} ms",
              flush=True)
    mlir = sh([os.path.join(build, "bin", "hccl-translate"), "--import-graph", graph])
    lowered = sh([os.path.join(build, "bin", "hccl-opt"),
                  f"--hccl-pipeline={pipeline}" if pipeline else "--hccl-pipeline"],
                 input=mlir)
    sh([os.path.join(build, "bin", "hccl-translate"), "--comm-to-plan", "-o", plan], input=lowered)
    pred = predict(build, mlir, pipeline)
    print(f"plan: predicted backward + exposed communication {pred['iteration_us'] / 1e3:.1f} ms "
          f"(compute {pred['compute_us'] / 1e3:.1f}, exposed {pred['exposed_comm_us'] / 1e3:.1f}"
          + (f", of it steal {pred['steal_us'] / 1e3:.1f}" if "steal_us" in pred else "")
          + " ms)", flush=True)
    return plan, graph


def train(build, work, model, ranks, batch, mode, steps, port, rnd, plan=None, graph=None,
          bucket_view=False, zero_grad_in_place=False):
    tag = f"{model}-p{ranks}-b{batch}-{mode.replace('/', '-')}-r{rnd}"
    out = os.path.join(work, f"{tag}.json")
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    cmd = ["/usr/bin/torchrun", "--redirects", "1", "--tee", "1",
           "--log_dir", os.path.join(work, f"logs-{tag}"),
           "--nproc_per_node", str(ranks), "--master_port", str(port),
           os.path.join(HERE, "train_ddp.py"), "--model", model,
           "--backend", "gloo" if mode == "gloo" else "hccl",
           "--batch", str(batch), "--steps", str(steps), "--out", out]
    if plan:
        cmd += ["--plan", plan, "--graph", graph]
    if bucket_view:
        cmd.append("--bucket-view")
    if zero_grad_in_place:
        cmd.append("--zero-grad-in-place")
    if mode == KEPT:
        cmd.append("--keep-ddp-buckets")
    sh(cmd, env=env)
    with open(out) as f:
        return json.load(f)


# The plan with DDP's own buckets kept (apply_plan(keep_ddp_buckets=True)).
KEPT = train_ddp.KEPT_MODE


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", nargs="+", choices=train_ddp.MODELS, default=["cnn", "gpt"])
    p.add_argument("--ranks", nargs="+", type=int, default=[2, 4, 8])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int,
                   help="samples per rank (default: the model's, cnn 8, gpt 4, lm 1); small "
                        "batches are where communication matters")
    p.add_argument("--rounds", type=int, default=1,
                   help="runs of each mode, interleaved (gloo, hccl, plan, gloo, ...); rows "
                        "give medians, and the range of the per-round ratio to gloo")
    p.add_argument("--calibrate", action="store_true",
                   help="price the plan with this host's links measured first "
                        "(calibrate_host.py: latency, bandwidth, reduction, per-call overhead, wake-up) "
                        "instead of the host-N preset's figures; stops, naming the "
                        "figure, when the host is too noisy to calibrate")
    p.add_argument("--link-params", metavar="FILE",
                   help="price the plan with these calibrated links (calibrate_host.py's "
                        "output for the same rank count, e.g. made with more rounds where "
                        "--calibrate's defaults refuse a noisy host); one rank count only")
    p.add_argument("--peak-tflops", type=float, default=CPU["peak_tflops"],
                   help="per-rank compute rate the plan is priced with (default 0.02)")
    p.add_argument("--memory-gbps", type=float, default=CPU["memory_gbps"],
                   help="per-rank memory rate the plan is priced with (default 10)")
    p.add_argument("--measure-compute", type=int, default=0, metavar="N",
                   help="price the plan's compute with the backward measured here "
                        "(median of N runs per layer, x ranks/cores) instead of "
                        "--peak-tflops / --memory-gbps")
    p.add_argument("--steal-bytes", type=float, metavar="B",
                   help="with --measure-steal: all-reduce B bytes beside each backward "
                        "(measure_steal.py --bytes; default the model's gradients). "
                        "Fewer, where the gradients' all-reduces outlast the backward "
                        "(4 ranks on 2 cores) and so show only part of their steal")
    p.add_argument("--measure-steal", type=int, default=0, metavar="N",
                   help="price the plan with this host's compute steal for the model "
                        "(measure_steal.py, N rounds: the backward alone and beside "
                        "all-reduces), and its links scaled to the all-reduces' time on torch "
                        "tensors, merged into the link parameters")
    p.add_argument("--pipeline", default="", metavar="OPTS",
                   help="options of hccl-opt's --hccl-pipeline for the plan, e.g. "
                        "'policy=ddp' (default: the pipeline's defaults)")
    p.add_argument("--bucket-view", action="store_true",
                   help="train with DDP(gradient_as_bucket_view=True) in every mode")
    p.add_argument("--zero-grad-in-place", action="store_true",
                   help="train with zero_grad(set_to_none=False) in every mode "
                        "(train_ddp.py --zero-grad-in-place)")
    p.add_argument("--keep-ddp-buckets", action="store_true",
                   help="also run the plan with DDP's own buckets kept (mode " + KEPT +
                        "): plan buckets across them are packed and copied back")
    p.add_argument("--allocator", choices=["glibc", "retain"], default="glibc",
                   help="'retain': every process (the exporter's compute measurement and "
                        "every mode's ranks alike) runs with glibc malloc keeping freed "
                        "memory (GLIBC_TUNABLES " + RETAIN_TUNABLES + "), as a caching "
                        "allocator would (where page faults are dear, docs/performance.md, "
                        "'Freed memory kept'); default 'glibc': glibc's own settings")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--work", help="folder for graphs, plans, logs, reports (default: a temporary one)")
    p.add_argument("--port", type=int, default=29700)
    args = p.parse_args(argv)
    if args.rounds < 1 or args.steps < 1 or (args.batch is not None and args.batch < 1):
        p.error("--rounds, --steps and --batch must be >= 1")
    if args.measure_compute < 0:
        p.error("--measure-compute must be >= 0")
    if args.measure_steal != 0 and args.measure_steal < 3:
        p.error("--measure-steal needs at least 3 rounds (0: not measured)")
    if args.steal_bytes is not None and not args.measure_steal:
        p.error("--steal-bytes needs --measure-steal")
    if args.steal_bytes is not None and args.steal_bytes < 16:
        p.error(f"--steal-bytes must be >= 16 (one fp32 element per chunk), "
                f"found {args.steal_bytes:g}")
    if not (args.peak_tflops > 0 and args.memory_gbps > 0):
        p.error("--peak-tflops and --memory-gbps must be > 0")
    if args.link_params and (args.calibrate or len(args.ranks) != 1):
        p.error("--link-params takes one --ranks value and excludes --calibrate")
    if args.link_params and not os.path.isfile(args.link_params):
        p.error(f"--link-params {args.link_params}: no such file")
    if args.allocator == "retain":
        retain_freed_memory(os.environ)
        print(f"allocator: GLIBC_TUNABLES={os.environ['GLIBC_TUNABLES']}")
    work = args.work or tempfile.mkdtemp(prefix="hccl-train-")
    os.makedirs(work, exist_ok=True)
    print(f"work folder: {work}")
    print("| model | batch | ranks | mode | step (ms, median) | compute only (ms) | exposed comm (ms) "
          "| steps/s | vs gloo (range over rounds) | buckets (algorithms) | loss (first, last) "
          "| max loss diff vs gloo |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    modes = ["gloo", "hccl", "hccl+plan"] + ([KEPT] if args.keep_ddp_buckets else [])
    for model in args.models:
        batch = args.batch or train_ddp.DEFAULT_BATCH[model]
        for ranks in args.ranks:
            links = (calibrate(args.build, work, ranks) if args.calibrate
                     else args.link_params)
            if args.measure_steal:
                links = measure_steal(args.build, work, model, ranks, batch, links,
                                      args.measure_steal, args.port - 1,
                                      args.zero_grad_in_place, args.steal_bytes)
            plan, graph = compile_plan(args.build, work, model, ranks, batch, links,
                                       {"peak_tflops": args.peak_tflops,
                                        "memory_gbps": args.memory_gbps},
                                       args.measure_compute, args.pipeline)
            runs = {m: [] for m in modes}
            for rnd in range(args.rounds):
                for k, mode in enumerate(modes):
                    runs[mode].append(train(
                        args.build, work, model, ranks, batch, mode, args.steps,
                        args.port + len(modes) * rnd + k, rnd,
                        *((plan, graph) if mode.startswith("hccl+plan") else ()),
                        bucket_view=args.bucket_view,
                        zero_grad_in_place=args.zero_grad_in_place))
            gloo = runs["gloo"]
            for mode, rs in runs.items():
                ratios = [r["steps_per_s"] / g["steps_per_s"] for r, g in zip(rs, gloo)]
                diff = max(abs(a - b) for r, g in zip(rs, gloo)
                           for a, b in zip(r["losses"], g["losses"]))
                step = median([r["step_ms"] for r in rs])
                base = median([r["compute_only_ms"] for r in rs])
                exposed = median([r["exposed_comm_ms"] for r in rs])
                spread = (f" ({min(ratios):.2f}-{max(ratios):.2f})" if len(rs) > 1 else "")
                r0 = rs[0]
                bk = (f"{r0['buckets']} ({', '.join(r0['algorithms'])})" if r0["buckets"]
                      else "DDP's")
                row = (f"| {model} | {batch} | {ranks} | {mode} | {step:.1f} | {base:.1f} "
                       f"| {exposed:.1f} | {1e3 / step:.2f} | {median(ratios):.2f}x{spread} | {bk} "
                       f"| {r0['losses'][0]:.3f}, {r0['losses'][-1]:.3f} | {diff:.1e} |")
                print(row, flush=True)
                rows.append(dict(model=model, batch=batch, ranks=ranks, mode=mode,
                                 allocator=args.allocator,
                                 step_ms=step, compute_only_ms=base, exposed_comm_ms=exposed,
                                 vs_gloo=median(ratios), vs_gloo_rounds=ratios,
                                 loss_diff_vs_gloo=diff, runs=rs))
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
