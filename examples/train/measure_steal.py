#!/usr/bin/python3
#===- measure_steal.py - How much a collective slows the backward beside it ===#
"""Measures the compute steal of this host (the topology's
`compute_steal_us_per_mb`, docs/passes.md "Communication taking compute's
cores"): the microseconds by which collectives running beside a model's
backward pass delay it, per MB they move. Run under torchrun, one process
per rank, on the hccl backend:

    torchrun --redirects 1 --tee 1 --log_dir logs --nproc_per_node 2 \\
        examples/train/measure_steal.py --model mlp --out steal.json \\
        [--link-params calib.json]

Each round times, in rotating order, the backward alone, the backward with
all-reduces of --bytes in all (in --chunks pieces, as a DDP step's buckets)
issued just before it and waited for after it, those all-reduces alone,
and (with more than one chunk) the same bytes all-reduced as one tensor:
two sizes, so that compare.py can fit the link's per-step latency and its
bandwidth to the torch path rather than a bandwidth alone. The steal is
the difference of the backward's medians (the slowest rank's) over the
bytes. A round where the all-reduces outlast the backward
charges it only part of their steal, so the report says how many did.
Written to --out as link parameters (merged into --link-params' when
given) for hccl-opt, the exporter or compare.py; --report adds the
figures, among them the all-reduces' own time on torch tensors, which
compare.py prices the plan's links with.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import train_ddp  # noqa: E402


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", choices=train_ddp.MODELS, default="mlp")
    p.add_argument("--batch", type=int, help="samples per rank (default: the model's)")
    p.add_argument("--rounds", type=int, default=20, help="timed pairs (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed pairs first (default 3)")
    p.add_argument("--bytes", type=float,
                   help="bytes all-reduced beside each backward (default: the model's "
                        "gradients, fp32)")
    p.add_argument("--chunks", type=int, default=4, help="all-reduces they are split in")
    p.add_argument("--op", choices=["avg", "sum"], default="avg",
                   help="their reduction (default avg: a gradient average, divided on the "
                        "runtime's worker as the plan's hook scales its buckets there)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    p.add_argument("--zero-grad-in-place", action="store_true",
                   help="zero the gradients in place, as train_ddp.py --zero-grad-in-place "
                        "(default: fresh gradients every backward, set_to_none=True, whose "
                        "page faults can dominate a small model's backward)")
    p.add_argument("--link-params", metavar="FILE", help="link parameters to merge into")
    p.add_argument("--out", required=True, help="link parameters to write (rank 0)")
    p.add_argument("--report", help="JSON of the measured figures to write (rank 0)")
    args = p.parse_args(argv)
    if args.rounds < 3 or args.warmup < 0 or args.chunks < 1:
        p.error("--rounds must be >= 3, --warmup >= 0 and --chunks >= 1")
    if args.bytes is not None and not args.bytes >= 4 * args.chunks:
        p.error("--bytes must hold at least one fp32 element per chunk")
    base = {}
    if args.link_params:
        try:
            with open(args.link_params) as f:
                base = json.load(f)
        except (OSError, ValueError) as e:
            p.error(f"--link-params {args.link_params}: {e}")
        if not isinstance(base, dict):
            p.error(f"--link-params {args.link_params}: expected a JSON object")

    import torch
    import torch.distributed as dist
    import hccl_mlir.torch  # noqa: F401  (registers the hccl backend)
    torch.set_num_threads(args.threads)
    dist.init_process_group("hccl")
    rank = dist.get_rank()
    batch = args.batch or train_ddp.DEFAULT_BATCH[args.model]
    torch.manual_seed(0)
    net = train_ddp.FACTORIES[args.model]()
    grad_bytes = 4 * sum(q.numel() for q in net.parameters())
    total = int(args.bytes or grad_bytes) // 4 * 4
    per = total // 4 // args.chunks
    # Views of one tensor, so that the whole arm all-reduces the same bytes
    # in one call without a second copy of them. Zeros: sums stay finite.
    flat = torch.zeros(per * args.chunks)
    chunks = list(flat.split(per))
    moved = 4 * per * args.chunks

    op = dist.ReduceOp.AVG if args.op == "avg" else dist.ReduceOp.SUM

    def comm_alone(tensors):
        dist.barrier()
        t0 = time.perf_counter()
        for w in [dist.all_reduce(c, op=op, async_op=True) for c in tensors]:
            w.wait()
        return time.perf_counter() - t0

    def backward(step, beside):
        x, y = train_ddp.batch(args.model, rank, step, batch)
        net.zero_grad(set_to_none=not args.zero_grad_in_place)
        loss = train_ddp.loss_of(args.model, net, x, y)
        dist.barrier()  # both ranks begin together, as in a DDP step
        works = ([dist.all_reduce(c, op=op, async_op=True) for c in chunks] if beside
                 else [])
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        # Whether the collectives had ended before the backward did.
        done = all(w.is_completed() for w in works)
        for w in works:
            w.wait()
        t2 = time.perf_counter()
        return t1 - t0, t2 - t0, done

    alone, beside, comm, only, whole, late = [], [], [], [], [], 0
    arms = ("alone", "beside", "comm") + (("whole",) if args.chunks > 1 else ())
    for r in range(args.warmup + args.rounds):
        for k in range(len(arms)):  # rotating, so that drift hits every arm alike
            arm = arms[(r + k) % len(arms)]
            if arm in ("comm", "whole"):
                t = comm_alone(chunks if arm == "comm" else [flat])
                if r >= args.warmup:
                    (only if arm == "comm" else whole).append(t)
                continue
            t, t_all, done = backward(r, arm == "beside")
            if r < args.warmup:
                continue
            if arm == "beside":
                beside.append(t)
                comm.append(t_all)
                late += not done
            else:
                alone.append(t)
    # The slowest rank's time per backward: what a step waits for.
    series = [alone, beside, comm, only] + ([whole] if whole else [])
    times = torch.tensor(series, dtype=torch.float64)
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    late_t = torch.tensor([late], dtype=torch.float64)
    dist.all_reduce(late_t, op=dist.ReduceOp.MAX)
    alone, beside, comm, only = (times[i].tolist() for i in range(4))
    a, b = statistics.median(alone), statistics.median(beside)
    c = statistics.median(only)
    w = statistics.median(times[4].tolist()) if whole else None
    steal = max(0.0, (b - a) * 1e6 / (moved / 1e6))
    pairs = sorted((y - x) * 1e6 / (moved / 1e6) for x, y in zip(alone, beside))
    if rank == 0:
        report = dict(base)
        report["compute_steal_us_per_mb"] = round(steal, 4)
        print(f"{args.model} batch {batch}, {dist.get_world_size()} ranks: backward "
              f"{a * 1e3:.2f} ms alone, {b * 1e3:.2f} ms beside {moved / 1e6:.1f} MB of "
              f"all-reduce ({args.op}) in {args.chunks} (all ended {statistics.median(comm) * 1e3:.2f} ms "
              f"after its start; outlasted the backward in {int(late_t.item())} of "
              f"{args.rounds} rounds on some rank)")
        print(f"the all-reduces alone: {c * 1e3:.2f} ms ({moved / c / 1e9:.2f} GB/s); the "
              f"backward's delay beside them is {(b - a) / c:.2f} of that")
        if w is not None:
            print(f"the same bytes as one all-reduce: {w * 1e3:.2f} ms "
                  f"({moved / w / 1e9:.2f} GB/s)")
        print(f"steal: {steal:.3f} us per MB (median difference; per pair: "
              f"{pairs[len(pairs) // 4]:.3f} to {pairs[3 * len(pairs) // 4]:.3f} between "
              f"the quartiles){' (negative: clamped to 0)' if b < a else ''}")
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
        if args.report:
            extra = {"allreduce_whole_ms": w * 1e3} if w is not None else {}
            with open(args.report, "w") as f:
                json.dump({**extra, "model": args.model, "batch": batch,
                           "ranks": dist.get_world_size(), "bytes": moved,
                           "chunks": args.chunks, "op": args.op, "rounds": args.rounds,
                           "backward_alone_ms": a * 1e3, "backward_beside_ms": b * 1e3,
                           "allreduce_alone_ms": c * 1e3, "outlasted_rounds": int(late_t.item()),
                           "compute_steal_us_per_mb": report["compute_steal_us_per_mb"]},
                          f, indent=1)
    dist.barrier()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
