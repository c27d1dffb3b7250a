#!/usr/bin/python3
#===- train_ddp.py - DDP training on gloo, hccl, or hccl + compiled plan ===#
"""Trains a small real model with DistributedDataParallel on synthetic data,
one way per run, and reports step time, exposed communication and the loss
curve. Run under torchrun (one process per rank):

    torchrun --nproc_per_node 4 examples/train/train_ddp.py --model cnn --backend gloo
    torchrun --nproc_per_node 4 examples/train/train_ddp.py --model cnn --backend hccl
    torchrun --nproc_per_node 4 examples/train/train_ddp.py --model cnn --backend hccl \\
        --plan cnn-p4.plan.json --graph cnn-p4.graph.json

Models (also the factories the exporter takes, `examples/train/train_ddp.py:cnn`):
  cnn  torchvision ResNet-18 (11.2 M parameters, 10 classes) with GroupNorm,
       batch 8 x 3x32x32 by default (BatchNorm over 8 samples of 1x1 maps in layer4 is
       so sensitive that fp32 rounding differences between backends grow
       100x per step; GroupNorm keeps gloo and hccl losses together)
  gpt  GPT-2-like decoder (tools/export/models.py): 4 layers, hidden 128,
       4 heads, vocab 2048, no dropout; batch 4 x seq 32 by default (1.2 M
       parameters)
  lm   the same decoder shaped like a language model's fine-tuning: a
       32000-token vocabulary (LLaMA's) at hidden 256, 2 layers; batch 1 x
       seq 32 by default (9.8 M parameters, 84% of them the tied
       embedding): many gradient bytes per FLOP, where communication
       matters
  mlp  a transformer's feed-forward stack without attention: 3 residual
       blocks (LayerNorm, 1024 -> 4096 -> 1024, GELU) and a 10-class head;
       batch 8 x 1024 features by default (25.2 M parameters, 101 MB of
       fp32 gradients for about 0.15 GFLOP a sample, forward and
       backward): the most gradient bytes per FLOP of the four, as large
       models' fine-tuning at small micro-batches has
--batch sets the samples per rank: a small batch is the regime where
communication matters (little compute per byte of gradient).

Timing: every step is timed on every rank from the start of the forward to
the end of the optimizer step; the step time is the median over the
measured steps of the slowest rank's time. Exposed communication is that
minus the median step of a copy of the model trained beside it with a DDP
comm hook that communicates nothing (compute-only). The two alternate in
blocks of --block steps, so that a change in the machine's load hits both.
rank 0 writes a JSON report (--out) and prints a summary; the losses are
rank 0's, of the real model.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "export"))

# The decoders' shapes (tools/export/models.py's TransformerConfig).
DECODERS = {
    "gpt": dict(layers=4, hidden=128, heads=4, seq=32, vocab=2048),
    "lm": dict(layers=2, hidden=256, heads=4, seq=32, vocab=32000),
}
MODELS = ["cnn", *DECODERS, "mlp"]
# Per-rank batch sizes unless --batch says otherwise.
DEFAULT_BATCH = {"cnn": 8, "gpt": 4, "lm": 1, "mlp": 8}
# The plan with DDP's own buckets kept (--keep-ddp-buckets).
KEPT_MODE = "hccl+plan/ddp-buckets"
# The mlp's width, its blocks' inner width, blocks and classes.
MLP = dict(width=1024, inner=4096, blocks=3, classes=10)


def input_spec(model, batch_size):
    """The exporter's --input for one rank's batch."""
    if model == "cnn":
        return [f"float32[{batch_size},3,32,32]"]
    if model == "mlp":
        return [f"float32[{batch_size},{MLP['width']}]"]
    d = DECODERS[model]
    return [f"int64[{batch_size},{d['seq']}]:{d['vocab']}"]


def cnn():
    import torch.nn as nn
    import torchvision
    return torchvision.models.resnet18(
        num_classes=10, norm_layer=lambda c: nn.GroupNorm(min(32, c // 2), c))


def _decoder(name):
    import models
    d = DECODERS[name]
    # `batch` only sizes the exporter's own example inputs; training takes
    # its batches from batch() below.
    cfg = models.TransformerConfig(positions=d["seq"], dropout=0.0,
                                   batch=DEFAULT_BATCH[name], **d)
    return models.GPT(cfg)


def gpt():
    return _decoder("gpt")


def lm():
    import torch.nn as nn
    net = _decoder("lm")
    # GPT-2's initialisation (normal, std 0.02): with the default N(0, 1)
    # embedding the tied head's logits start in the hundreds (loss ~170
    # against ln(32000) = 10.4).
    for m in net.modules():
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
            if getattr(m, "bias", None) is not None:
                nn.init.zeros_(m.bias)
    return net


def mlp():
    """A transformer's feed-forward stack without attention: residual blocks
    of LayerNorm, width -> inner -> width with GELU, then a classifier."""
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(MLP["width"])
            self.up = nn.Linear(MLP["width"], MLP["inner"])
            self.act = nn.GELU()
            self.down = nn.Linear(MLP["inner"], MLP["width"])

        def forward(self, x):
            return x + self.down(self.act(self.up(self.norm(x))))

    return nn.Sequential(*[Block() for _ in range(MLP["blocks"])],
                         nn.LayerNorm(MLP["width"]), nn.Linear(MLP["width"], MLP["classes"]))


FACTORIES = {"cnn": cnn, "gpt": gpt, "lm": lm, "mlp": mlp}


def batch(model, rank, step, size):
    """Synthetic data, the same for a (rank, step) in every run."""
    import torch
    g = torch.Generator().manual_seed(1_000_003 * rank + step)
    if model == "cnn":
        return (torch.randn(size, 3, 32, 32, generator=g),
                torch.randint(0, 10, (size,), generator=g))
    if model == "mlp":
        return (torch.randn(size, MLP["width"], generator=g),
                torch.randint(0, MLP["classes"], (size,), generator=g))
    d = DECODERS[model]
    ids = torch.randint(0, d["vocab"], (size, d["seq"] + 1), generator=g)
    return ids[:, :-1], ids[:, 1:]


def loss_of(model, net, x, y):
    import torch.nn.functional as F
    out = net(x)
    if model in DECODERS:
        return F.cross_entropy(out.reshape(-1, DECODERS[model]["vocab"]), y.reshape(-1))
    return F.cross_entropy(out, y)


def _no_comm_hook(_state, bucket):
    import torch
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def run_steps(args, ddp, opt, rank, steps, first_step):
    import torch
    import torch.distributed as dist
    times, losses = [], []
    for s in range(steps):
        x, y = batch(args.model, rank, first_step + s, args.batch)
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=not args.zero_grad_in_place)
        loss = loss_of(args.model, ddp, x, y)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    # The slowest rank's time per step: what the job waits for.
    t = torch.tensor(times, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.tolist(), losses


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", choices=MODELS, default="cnn")
    p.add_argument("--backend", choices=["gloo", "hccl"], default="hccl")
    p.add_argument("--plan", help="plan JSON (hccl-translate --comm-to-plan): hccl + plan")
    p.add_argument("--graph", help="the exported graph the plan was compiled from")
    p.add_argument("--steps", type=int, default=200, help="measured steps (default 200)")
    p.add_argument("--warmup", type=int, default=5, help="unmeasured steps first (default 5)")
    p.add_argument("--block", type=int, default=10,
                   help="steps per block; real and compute-only blocks alternate")
    p.add_argument("--batch", type=int,
                   help="samples per rank and step (default: cnn 8, gpt 4, lm 1); a plan "
                        "must be compiled from a graph exported with the same batch")
    p.add_argument("--lr", type=float, default=0.002, help="SGD learning rate (momentum 0.9)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    p.add_argument("--bucket-view", action="store_true",
                   help="DDP(gradient_as_bucket_view=True) in every mode: the gradients are "
                        "views of DDP's buckets (no copy into the buckets and back)")
    p.add_argument("--zero-grad-in-place", action="store_true",
                   help="zero_grad(set_to_none=False) in every mode: with --bucket-view the "
                        "gradients then stay DDP's bucket views, so DDP copies nothing into "
                        "its buckets; by default (set_to_none=True) DDP copies each fresh "
                        "gradient in, dividing by the world size on the way unless a comm "
                        "hook (the plan's) is installed, which then scales in a pass of its own")
    p.add_argument("--keep-ddp-buckets", action="store_true",
                   help="with --plan: keep DDP's own buckets (apply_plan's "
                        "keep_ddp_buckets; plan buckets across them are packed)")
    p.add_argument("--out", help="JSON report to write (rank 0)")
    args = p.parse_args(argv)
    if args.batch is None:
        args.batch = DEFAULT_BATCH[args.model]
    if args.batch < 1:
        p.error(f"--batch must be >= 1, found {args.batch}")
    if args.plan and args.backend != "hccl":
        p.error("--plan needs --backend hccl")
    if args.plan and not args.graph:
        p.error("--plan needs --graph")
    if args.keep_ddp_buckets and not args.plan:
        p.error("--keep-ddp-buckets needs --plan (without one DDP keeps its buckets anyway)")

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    if args.backend == "hccl":
        import hccl_mlir.torch as hccl_torch
    torch.set_num_threads(args.threads)
    dist.init_process_group(args.backend)
    rank, size = dist.get_rank(), dist.get_world_size()
    make = FACTORIES[args.model]

    # Compute-only baseline: DDP whose hook sends nothing.
    torch.manual_seed(0)
    base = DDP(make(), gradient_as_bucket_view=args.bucket_view)
    base.register_comm_hook(None, _no_comm_hook)
    base_opt = torch.optim.SGD(base.parameters(), lr=args.lr, momentum=0.9)

    torch.manual_seed(0)
    ddp = DDP(make(), gradient_as_bucket_view=args.bucket_view)
    mode = args.backend
    hook = None
    if args.plan:
        hook = hccl_torch.apply_plan(ddp, args.plan, args.graph,
                                     keep_ddp_buckets=args.keep_ddp_buckets)
        mode = KEPT_MODE if args.keep_ddp_buckets else "hccl+plan"
    opt = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.9)
    run_steps(args, base, base_opt, rank, args.warmup, 10**6)
    run_steps(args, ddp, opt, rank, args.warmup, 10**7)  # warm-up (DDP rebuilds buckets)
    times, losses, compute = [], [], []
    for first in range(0, args.steps, args.block):
        n = min(args.block, args.steps - first)
        t, l = run_steps(args, ddp, opt, rank, n, first)
        times += t
        losses += l
        compute += run_steps(args, base, base_opt, rank, n, 10**6 + first)[0]

    step = statistics.median(times)
    base_step = statistics.median(compute)
    report = {
        "model": args.model, "mode": mode, "ranks": size, "steps": args.steps,
        "batch": args.batch, "bucket_view": args.bucket_view,
        "zero_grad_in_place": args.zero_grad_in_place,
        "glibc_tunables": os.environ.get("GLIBC_TUNABLES"),
        "step_ms": step * 1e3, "compute_only_ms": base_step * 1e3,
        "exposed_comm_ms": max(0.0, step - base_step) * 1e3,
        "steps_per_s": 1.0 / step,
        "params": sum(q.numel() for q in ddp.parameters()),
        "buckets": len(hook.buckets) if hook else None,
        "algorithms": sorted(set(hook.algorithms)) if hook else None,
        # Plan buckets reduced in DDP's own buffer (docs/torch.md, "In place").
        "in_place_buckets": sum(b is not None for b in hook.in_place) if hook else None,
        "losses": losses,
    }
    if rank == 0:
        print(f"{args.model} {mode} on {size} ranks: step {report['step_ms']:.1f} ms "
              f"(median of {args.steps}), compute-only {report['compute_only_ms']:.1f} ms, "
              f"exposed communication {report['exposed_comm_ms']:.1f} ms, "
              f"{report['steps_per_s']:.2f} steps/s")
        every = max(1, args.steps // 10)
        print("loss: " + " ".join(f"{s}:{losses[s]:.4f}" for s in range(0, args.steps, every))
              + f" {args.steps - 1}:{losses[-1]:.4f}")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(report, f, indent=1)
    dist.barrier()
    # Leave without tearing down: torch 1.13's ~ProcessGroupGloo, run from
    # ~Reducer with the GIL held, can join a thread that waits for the GIL
    # (seen here: rank 1 of a gloo run never exited).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
