#===- ddp_buckets.py - The bucket assignment PyTorch DDP computes --------===#
"""PyTorch DDP's gradient buckets for the recorded gradients, computed by
DDP's own function (torch.distributed._compute_bucket_assignment_by_size)
with DDP's defaults: a 1 MiB first bucket, then 25 MiB (bucket_cap_mb).

Two assignments, as torch 1.13's DDP makes them:
- rebuilt: what Reducer::rebuild_buckets computes after the first iteration
  and uses from then on (the steady state): the gradients in the order they
  became ready, the 1 MiB bucket first.
- construction: what DistributedDataParallel.__init__ computes when it
  buckets up front (find_unused_parameters=True, and torch < 1.13 always):
  the parameters in definition order, then the bucket list reversed to
  approximate gradient-ready order (so the 1 MiB bucket is reduced last).
  With the defaults of torch 1.13 (find_unused_parameters=False) the first
  iteration uses one bucket for everything.
Buckets are listed in the order DDP reduces them.
"""

import os
import tempfile
from dataclasses import dataclass
from typing import List

import torch
import torch.distributed as dist
import torch.nn as nn

from backward_recorder import Param, Recording

FIRST_BUCKET_BYTES = dist._DEFAULT_FIRST_BUCKET_BYTES  # 1 MiB
BUCKET_CAP_BYTES = 25 * 1024 * 1024  # DDP's bucket_cap_mb=25


@dataclass
class Bucket:
    params: List[Param]
    limit: int

    @property
    def nbytes(self) -> int:
        return sum(p.tensor.numel() * p.tensor.element_size() for p in self.params)


def _expect_sparse(model: nn.Module, params: List[Param]) -> List[bool]:
    modules = dict(model.named_modules())

    def sparse(m):  # DDP's produces_sparse_gradient
        return isinstance(m, (nn.Embedding, nn.EmbeddingBag)) and m.sparse
    return [sparse(modules[p.module]) for p in params]


def rebuilt_buckets(model: nn.Module, rec: Recording) -> List[Bucket]:
    sparse = _expect_sparse(model, rec.params)
    idx, limits = dist._compute_bucket_assignment_by_size(
        [p.tensor for p in rec.ready], [FIRST_BUCKET_BYTES, BUCKET_CAP_BYTES],
        sparse, [p.index for p in rec.ready])
    return [Bucket([rec.params[i] for i in b], lim) for b, lim in zip(idx, limits)]


def construction_buckets(model: nn.Module, rec: Recording) -> List[Bucket]:
    sparse = _expect_sparse(model, rec.params)
    idx, limits = dist._compute_bucket_assignment_by_size(
        [p.tensor for p in rec.params], [FIRST_BUCKET_BYTES, BUCKET_CAP_BYTES],
        sparse)
    return [Bucket([rec.params[i] for i in b], lim)
            for b, lim in reversed(list(zip(idx, limits)))]


def describe(buckets: List[Bucket], title: str, members: bool = True) -> List[str]:
    sizes = [b.nbytes for b in buckets]
    lines = [f"{title}: {len(buckets)} buckets, {sum(sizes)} bytes"]
    for i, b in enumerate(buckets):
        line = (f"  bucket {i}: {len(b.params)} gradients, {b.nbytes} bytes "
                f"(limit {b.limit})")
        if members:
            line += ": " + " ".join(p.name for p in b.params)
        lines.append(line)
    return lines


def to_json(model_name: str, rec: Recording, rebuilt: List[Bucket],
            construction: List[Bucket]) -> dict:
    def buckets(bs):
        return [{"index": i, "bytes": b.nbytes, "limit": b.limit,
                 "count": len(b.params),
                 "members": [p.name + ".grad" for p in b.params],
                 "param_indices": [p.index for p in b.params]}
                for i, b in enumerate(bs)]
    return {
        "model": model_name,
        "torch_version": torch.__version__,
        "first_bucket_bytes": FIRST_BUCKET_BYTES,
        "bucket_cap_bytes": BUCKET_CAP_BYTES,
        "gradient_count": len(rec.ready),
        "gradient_bytes": sum(p.tensor.numel() * p.tensor.element_size() for p in rec.ready),
        "rebuilt": {
            "description": "Reducer::rebuild_buckets (iteration 2 on): "
                           "gradient-ready order, 1 MiB bucket first",
            "buckets": buckets(rebuilt)},
        "construction": {
            "description": "DistributedDataParallel.__init__ with "
                           "find_unused_parameters=True: definition order, "
                           "bucket list reversed",
            "buckets": buckets(construction)},
    }


def ddp_rebuilt_indices(model: nn.Module, loss_fn, mode_factory) -> List[List[int]]:
    """Wraps the model in a real DistributedDataParallel (gloo, one rank),
    runs two iterations and a forward (which rebuilds the buckets) and
    returns DDP's own rebuilt buckets as lists of parameter indices."""
    with tempfile.TemporaryDirectory() as tmp:
        dist.init_process_group("gloo", init_method="file://" + os.path.join(tmp, "store"),
                                rank=0, world_size=1)
        try:
            ddp = nn.parallel.DistributedDataParallel(model)
            with mode_factory():
                for _ in range(2):
                    loss_fn(ddp).backward()
                    model.zero_grad(set_to_none=True)
                loss_fn(ddp)  # the forward after iteration 1 rebuilt them
            data = ddp._get_ddp_logging_data()
            text = data.get("rebuilt_per_bucket_param_indices")
            if not text:
                raise RuntimeError("DDP reported no rebuilt buckets")
            return [[int(i) for i in b.split()] for b in str(text).split(",")]
        finally:
            dist.destroy_process_group()
