"""DistributedDataParallel training steps on the hccl backend give the
parameters gloo gives (bit-identical on 2 ranks, where every all-reduce
algorithm adds the same two numbers; within fp32 rounding on 3 and 4),
with several buckets, with find_unused_parameters, and with ranks that
start from different weights (DDP's broadcast from rank 0).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranks  # noqa: E402


def _model(seed, unused=False):
    import torch
    torch.manual_seed(seed)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(
                torch.nn.Linear(16, 64), torch.nn.ReLU(),
                torch.nn.Linear(64, 64), torch.nn.ReLU(),
                torch.nn.Linear(64, 4))
            if unused:
                self.unused = torch.nn.Linear(4, 4)  # never in the forward

        def forward(self, x):
            return self.body(x)

    return Net()


def _train(rank, size, steps, find_unused):
    import copy
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    gloo = dist.new_group(backend="gloo")
    base = _model(seed=rank, unused=find_unused)  # different on every rank: DDP broadcasts rank 0's
    opts = dict(bucket_cap_mb=0.01, find_unused_parameters=find_unused)  # ~4 buckets
    runs = {}
    for name, group in (("hccl", None), ("gloo", gloo)):
        model = copy.deepcopy(base)
        ddp = DDP(model, process_group=group, **opts)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
        gen = torch.Generator().manual_seed(1000 + rank)
        losses = []
        for _ in range(steps):
            x = torch.randn(8, 16, generator=gen)
            y = torch.randn(8, 4, generator=gen)
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(ddp(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs[name] = ([p.detach().clone() for p in model.parameters()], losses)
    (ph, lh), (pg, lg) = runs["hccl"], runs["gloo"]
    return {
        "max_diff": max((a - b).abs().max().item() for a, b in zip(ph, pg)),
        "equal": all(torch.equal(a, b) for a, b in zip(ph, pg)),
        "losses": (lh, lg),
        "params": [p.sum().item() for p in ph],
    }


@pytest.mark.parametrize("size", [2, 3, 4])
@pytest.mark.parametrize("find_unused", [False, True])
def test_ddp_matches_gloo(size, find_unused):
    out = ranks.run(_train, size, 6, find_unused, timeout=300)
    for r, o in enumerate(out):
        if size == 2:
            assert o["equal"], f"rank {r}: hccl and gloo differ by {o['max_diff']}"
        else:
            assert o["max_diff"] < 1e-5, f"rank {r}: hccl and gloo differ by {o['max_diff']}"
        lh, lg = o["losses"]
        assert all(abs(a - b) <= 1e-5 * max(1.0, abs(b)) for a, b in zip(lh, lg)), o["losses"]
    # Every rank holds the same model (DDP started all from rank 0's weights
    # and kept them equal).
    for r in range(1, size):
        assert out[r]["params"] == out[0]["params"], f"rank {r} differs from rank 0"
