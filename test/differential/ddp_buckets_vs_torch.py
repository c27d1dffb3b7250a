#!/usr/bin/python3
#===- ddp_buckets_vs_torch.py - policy=ddp against torch's own Reducer ----===#
"""comm-bucket-sizing policy=ddp against PyTorch itself.

For every graph, the buckets hccl-opt writes (comm.bucket on each
all-reduce, read back from its output) must be the partition torch 1.13's
`dist._compute_bucket_assignment_by_size` makes for the same gradients
(their shapes and dtypes, in block order = gradient-ready order, passed as
`tensor_indices` as Reducer::rebuild_buckets does) with the same limits:

- the bundled example graphs (models exported from PyTorch), at DDP's
  defaults (policy defaults: 1 MiB first, 25 MiB) and at other limits;
- on the examples, also the buckets recorded in examples/*.ddp-buckets.json
  (torch's assignment on the recorded ready order, member names), which
  checks that the imported block order is the order DDP rebuilds with;
- random graphs mixing fp32 / bf16 / fp16 / fp64 gradients (one open bucket
  per dtype, interleaved buckets), sizes that hit a limit exactly, random
  limits.

Exit 0 when all agree, 1 on the first difference (printed), 77 when torch
is not importable (ctest reports the test skipped).

Usage: ddp_buckets_vs_torch.py HCCL_OPT HCCL_TRANSLATE EXAMPLES_DIR
"""

import json
import os
import random
import re
import subprocess
import sys
import tempfile

try:
    import torch
    import torch.distributed as dist
except ImportError as e:  # the test needs torch 1.13 (/usr/bin/python3)
    print(f"SKIP: torch is not importable ({e})")
    sys.exit(77)

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
          "f64": torch.float64}
OP = re.compile(r"comm\.all_reduce\b.*\{(?P<attrs>[^{}]*)\} : tensor<(?P<type>[^>]*)>")
EXAMPLES = ["resnet50", "bert-large", "gpt2-xl", "gpt-small", "gpt-small-host"]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}:\n{r.stderr}")
    return r.stdout


def read_buckets(mlir_text):
    """(shape, dtype, bucket, name) of every all-reduce, in block order."""
    ops = []
    for line in mlir_text.splitlines():
        m = OP.search(line)
        if not m:
            continue
        attrs = m.group("attrs")
        b = re.search(r"comm\.bucket = (\d+)", attrs)
        n = re.search(r'comm\.name = "([^"]*)"', attrs)
        *dims, elt = m.group("type").split("x")
        ops.append(([int(d) for d in dims], elt, int(b.group(1)) if b else None,
                    n.group(1) if n else None))
    return ops


def ours(ops):
    groups = {}
    for i, (_, _, b, _) in enumerate(ops):
        if b is None:
            sys.exit(f"FAIL: all-reduce #{i} has no comm.bucket")
        groups.setdefault(b, []).append(i)
    return sorted(groups.values())


def torchs(ops, first, cap):
    tensors = [torch.empty(shape, dtype=DTYPES[elt], device="meta")
               for shape, elt, _, _ in ops]
    n = len(tensors)
    idx, _ = dist._compute_bucket_assignment_by_size(
        tensors, [first, cap], [False] * n, list(range(n)))
    return sorted(sorted(b) for b in idx)


def compare(what, got, want):
    if got != want:
        diff = [b for b in got if b not in want][:3]
        sys.exit(f"FAIL: {what}: {len(got)} buckets, torch {len(want)}; "
                 f"first of ours not in torch's: {diff}")
    print(f"ok {what}: {len(got)} buckets")


def sizing(opt, mlir_path, options):
    return read_buckets(run([opt, mlir_path, f"--comm-bucket-sizing={options}"]))


def examples(opt, translate, examples_dir, tmp):
    for g in EXAMPLES:
        graph = os.path.join(examples_dir, g + ".graph.json")
        mlir = os.path.join(tmp, g + ".mlir")
        run([translate, "--import-graph", graph, "-o", mlir])
        ops = sizing(opt, mlir, "policy=ddp")
        compare(f"{g} ddp defaults", ours(ops),
                torchs(ops, dist._DEFAULT_FIRST_BUCKET_BYTES, 25 << 20))
        for first, cap in [(64 << 10, 4 << 20), (0, 100 << 20), (25 << 20, 1 << 20)]:
            opts = f"policy=ddp threshold-bytes={cap} first-bucket-bytes={first}"
            ops = sizing(opt, mlir, opts)
            compare(f"{g} {opts}", ours(ops), torchs(ops, first or cap, cap))
        recorded = os.path.join(examples_dir, g + ".ddp-buckets.json")
        if os.path.exists(recorded):
            ops = sizing(opt, mlir, "policy=ddp")
            names = {}
            for i, (_, _, _, name) in enumerate(ops):
                names[name.removesuffix(".allreduce") + ".grad"] = i
            rec = json.load(open(recorded))["rebuilt"]["buckets"]
            want = sorted(sorted(names[m] for m in b["members"]) for b in rec)
            compare(f"{g} against {os.path.basename(recorded)}", ours(ops), want)


def synthetic(opt, tmp, rng, count):
    for case in range(count):
        n = rng.randint(1, 150)
        first = rng.choice([0, 1 << 10, 4 << 10, 1 << 20])
        cap = rng.choice([4 << 10, 16 << 10, 64 << 10, 1 << 20])
        grads = []
        for _ in range(n):
            elt = rng.choice(["f32", "f32", "bf16", "f16", "f64"])
            size = {"f32": 4, "bf16": 2, "f16": 2, "f64": 8}[elt]
            # Some gradients are exactly a limit (or its half) in bytes, so
            # that buckets reach the limit exactly: >= against >.
            if rng.random() < 0.2:
                elems = max(1, rng.choice([cap, cap // 2, first or cap]) // size)
            else:
                elems = rng.randint(1, 3 * cap // size)
            grads.append((elems, elt))
        args = ", ".join(f"%a{i}: tensor<{e}x{t}>" for i, (e, t) in enumerate(grads))
        body = "\n".join(f"  %r{i} = comm.all_reduce sum %a{i} on @dp : tensor<{e}x{t}>"
                         for i, (e, t) in enumerate(grads))
        text = ('module attributes {comm.topology = #comm.topology<"910b-8">} {\n'
                "comm.group @dp ranks = [0, 1, 2, 3, 4, 5, 6, 7]\n"
                f"func.func @f({args}) {{\n{body}\n  return\n}}\n}}\n")
        path = os.path.join(tmp, f"random{case}.mlir")
        with open(path, "w") as f:
            f.write(text)
        opts = f"policy=ddp threshold-bytes={cap} first-bucket-bytes={first}"
        ops = sizing(opt, path, opts)
        compare(f"random #{case} ({n} gradients, {opts})", ours(ops),
                torchs(ops, first or cap, cap))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    opt, translate, examples_dir = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        examples(opt, translate, examples_dir, tmp)
        synthetic(opt, tmp, random.Random(15), 60)
    print("PASS: policy=ddp made torch's buckets on every graph")


if __name__ == "__main__":
    main()
