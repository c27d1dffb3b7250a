"""Every collective of the hccl backend against gloo's results on the same
inputs (and against a reference computed locally where gloo lacks the
collective or the dtype), on 2, 3 and 4 local ranks; bad arguments raise a
clear exception before anything is sent.

One spawn per world size runs every check (each rank reports, per check,
None or the failure); the tests below read those reports.
"""

import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranks  # noqa: E402

SIZES = [2, 3, 4]

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int32", "int64"]
OPS = ["SUM", "PRODUCT", "MIN", "MAX"]
GLOO_DTYPES = {"float32", "float64", "float16", "int8", "uint8", "int32", "int64"}


# --------------------------------------------------------------------------
# Inputs and references (run inside the ranks)
# --------------------------------------------------------------------------

def _input(rank, dtype, op, n=37):
    """Small integers every dtype holds exactly, so that sums and products
    over 4 ranks are exact everywhere and comparisons can be exact."""
    import torch
    i = torch.arange(n, dtype=torch.int64)
    if op == "PRODUCT":
        v = 1 + (i + rank) % 2
    elif dtype == "uint8":
        v = (i * 7 + rank * 3) % 11
    else:
        v = (i * 7 + rank * 3) % 11 - 5
    return v.to(getattr(torch, dtype))


def _reference(size, make, op):
    import torch
    xs = torch.stack([make(r).to(torch.float64) for r in range(size)])
    r = {"SUM": xs.sum(0), "PRODUCT": xs.prod(0), "MIN": xs.min(0).values,
         "MAX": xs.max(0).values, "AVG": xs.sum(0) / size}[op]
    return r.to(make(0).dtype)


def _same(a, b, what):
    import torch
    assert a.dtype == b.dtype and a.shape == b.shape, \
        f"{what}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"
    assert torch.equal(a, b), f"{what}: differ\n{a}\n{b}"


# --------------------------------------------------------------------------
# Checks: each (rank, size, gloo_group) -> raises on failure
# --------------------------------------------------------------------------

CHECKS = {}


def check(name):
    def reg(fn):
        CHECKS[name] = fn
        return fn
    return reg


def _all_reduce_check(dtype, op):
    def fn(rank, size, gloo):
        import torch.distributed as dist
        rop = getattr(dist.ReduceOp, op)
        t = _input(rank, dtype, op)
        dist.all_reduce(t, op=rop)
        _same(t, _reference(size, lambda r: _input(r, dtype, op), op), "vs reference")
        if dtype in GLOO_DTYPES:
            g = _input(rank, dtype, op)
            dist.all_reduce(g, op=rop, group=gloo)
            _same(t, g, "vs gloo")
    return fn


for _d in DTYPES:
    for _o in OPS:
        CHECKS[f"all_reduce[{_d},{_o}]"] = _all_reduce_check(_d, _o)


@check("all_reduce[float32,AVG]")
def _(rank, size, gloo):
    import torch.distributed as dist
    t = _input(rank, "float32", "SUM")
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    _same(t, _reference(size, lambda r: _input(r, "float32", "SUM"), "AVG"), "vs reference")


@check("all_reduce[bool]")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    mk = lambda r: torch.tensor([r == 0, r >= 0, False, r == size - 1])  # noqa: E731
    for op, want in (("SUM", [True, True, False, True]), ("MAX", [True, True, False, True]),
                     ("MIN", [False, True, False, False]), ("PRODUCT", [False, True, False, False])):
        t = mk(rank)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        _same(t, torch.tensor(want), f"bool {op}")


@check("all_reduce[complex64,SUM]")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    mk = lambda r: torch.complex(torch.arange(5.) + r, -torch.arange(5.) * r)  # noqa: E731
    t = mk(rank)
    dist.all_reduce(t)
    _same(t, sum(mk(r) for r in range(size)), "vs reference")


@check("all_reduce[random float32 vs gloo]")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    gen = torch.Generator().manual_seed(100 + rank)
    t = torch.randn(1000, generator=gen)
    g = t.clone()
    dist.all_reduce(t)
    dist.all_reduce(g, group=gloo)
    if size == 2:  # one addition per element: every algorithm agrees exactly
        _same(t, g, "vs gloo")
    else:
        assert torch.allclose(t, g, rtol=1e-5, atol=1e-6), (t - g).abs().max()


@check("all_reduce[non-contiguous]")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    base = _input(rank, "float32", "SUM", 24).view(4, 6)
    t, g = base.clone().t(), base.clone().t()
    assert not t.is_contiguous()
    dist.all_reduce(t)
    dist.all_reduce(g, group=gloo)
    _same(t, g, "vs gloo")


@check("all_reduce[empty]")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    t = torch.empty(0)
    dist.all_reduce(t)
    assert t.numel() == 0


@check("all_reduce_coalesced")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    mk = lambda: [_input(rank, "float32", "SUM", 12).view(3, 4),  # noqa: E731
                  _input(rank + 1, "float32", "SUM", 5)]
    ts, gs = mk(), mk()
    dist.all_reduce_coalesced(ts, op=dist.ReduceOp.MAX)
    dist.all_reduce_coalesced(gs, op=dist.ReduceOp.MAX, group=gloo)
    for a, b in zip(ts, gs):
        _same(a, b, "vs gloo")


@check("broadcast")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    for root in (0, size - 1):
        for dtype in ("int64", "float32"):
            t = _input(rank, dtype, "SUM", 30).view(5, 6).t()  # non-contiguous
            g = t.clone()
            dist.broadcast(t, src=root)
            dist.broadcast(g, src=root, group=gloo)
            _same(t, g, f"root {root} {dtype} vs gloo")
            _same(t, _input(root, dtype, "SUM", 30).view(5, 6).t(), "vs root's")


@check("reduce")
def _(rank, size, gloo):
    import torch.distributed as dist
    root = size - 1
    for op in ("SUM", "MAX"):
        t = _input(rank, "float32", op)
        g = t.clone()
        dist.reduce(t, dst=root, op=getattr(dist.ReduceOp, op))
        dist.reduce(g, dst=root, op=getattr(dist.ReduceOp, op), group=gloo)
        if rank == root:
            _same(t, g, f"{op} vs gloo")
        else:
            _same(t, _input(rank, "float32", op), "a non-root's tensor is kept")


@check("all_gather")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    x = _input(rank, "float32", "SUM", 6).view(2, 3)
    outs = [torch.full((2, 3), -1.) for _ in range(size)]
    gouts = [torch.full((2, 3), -1.) for _ in range(size)]
    dist.all_gather(outs, x)
    dist.all_gather(gouts, x, group=gloo)
    for r in range(size):
        _same(outs[r], gouts[r], f"[{r}] vs gloo")
        _same(outs[r], _input(r, "float32", "SUM", 6).view(2, 3), f"[{r}] vs rank {r}'s input")


@check("all_gather_into_tensor")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    x = _input(rank, "int32", "SUM", 5)
    out = torch.empty(size * 5, dtype=torch.int32)
    dist.all_gather_into_tensor(out, x)
    _same(out, torch.cat([_input(r, "int32", "SUM", 5) for r in range(size)]), "vs inputs")
    out2 = torch.empty(size * 5, dtype=torch.int32)
    dist._all_gather_base(out2, x)
    _same(out2, out, "_all_gather_base")


@check("reduce_scatter")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    for op, dtype in (("SUM", "float32"), ("MAX", "int32")):
        ins = [_input(rank * size + j, dtype, op, 7) for j in range(size)]
        out = torch.empty(7, dtype=getattr(torch, dtype))
        dist.reduce_scatter(out, ins, op=getattr(dist.ReduceOp, op))
        want = _reference(size, lambda r: _input(r * size + rank, dtype, op, 7), op)
        _same(out, want, f"{op} vs reference (gloo has no reduce_scatter)")


@check("reduce_scatter_tensor")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    inp = _input(rank, "float64", "SUM", 4 * size)
    out = torch.empty(4, dtype=torch.float64)
    dist.reduce_scatter_tensor(out, inp)
    want = _reference(size, lambda r: _input(r, "float64", "SUM", 4 * size), "SUM")
    _same(out, want[4 * rank:4 * rank + 4], "vs reference")
    out2 = torch.empty(4, dtype=torch.float64)
    dist._reduce_scatter_base(out2, inp)
    _same(out2, out, "_reduce_scatter_base")


@check("all_to_all_single")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    x = _input(rank, "float32", "SUM", 3 * size)
    out, gout = torch.empty(3 * size), torch.empty(3 * size)
    dist.all_to_all_single(out, x)
    dist.all_to_all_single(gout, x, group=gloo)
    _same(out, gout, "even split vs gloo")
    # Uneven: rank r sends (r + j) % 3 + 1 rows of 2 to rank j.
    ins = [(rank + j) % 3 + 1 for j in range(size)]
    outs = [(j + rank) % 3 + 1 for j in range(size)]
    x = (torch.arange(2 * sum(ins), dtype=torch.float32) + 100 * rank).view(-1, 2)
    out, gout = torch.empty(sum(outs), 2), torch.empty(sum(outs), 2)
    dist.all_to_all_single(out, x, outs, ins)
    dist.all_to_all_single(gout, x, outs, ins, group=gloo)
    _same(out, gout, "uneven split vs gloo")


@check("all_to_all")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    ins = [torch.full((rank + j + 1,), float(10 * rank + j)) for j in range(size)]
    outs = [torch.empty(j + rank + 1) for j in range(size)]
    dist.all_to_all(outs, ins)
    for j in range(size):
        _same(outs[j], torch.full((j + rank + 1,), float(10 * j + rank)), f"from rank {j}")


@check("gather_scatter")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    x = _input(rank, "float32", "SUM", 4)
    root = 0
    outs = [torch.empty(4) for _ in range(size)] if rank == root else None
    gouts = [torch.empty(4) for _ in range(size)] if rank == root else None
    dist.gather(x, outs, dst=root)
    dist.gather(x, gouts, dst=root, group=gloo)
    if rank == root:
        for a, b in zip(outs, gouts):
            _same(a, b, "gather vs gloo")
    root = size - 1
    ins = [torch.full((3,), float(j * 7)) for j in range(size)] if rank == root else None
    out, gout = torch.empty(3), torch.empty(3)
    dist.scatter(out, ins, src=root)
    dist.scatter(gout, ins, src=root, group=gloo)
    _same(out, gout, "scatter vs gloo")
    _same(out, torch.full((3,), float(rank * 7)), "scatter vs root's block")


@check("barrier")
def _(rank, size, gloo):
    import torch.distributed as dist
    store = dist.distributed_c10d._get_default_store()
    time.sleep(0.15 * rank)  # rank 0 would read first without the barrier
    store.add("barrier_check", 1)
    dist.barrier()
    assert store.add("barrier_check", 0) == size


@check("send_recv")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    for n in (5, 300_000):  # a FIFO message and one above the 1 MiB FIFO
        send = torch.full((n,), float(rank))
        got = torch.empty(n)
        if rank % 2 == 0:
            dist.send(send, nxt)
            dist.recv(got, prv)
        else:
            dist.recv(got, prv)
            dist.send(send, nxt)
        _same(got, torch.full((n,), float(prv)), f"{n} elements from rank {prv}")
    # Asynchronous, in the same matching order.
    send, got = torch.arange(8.) * rank, torch.empty(8)
    works = ([dist.isend(send, nxt), dist.irecv(got, prv)] if rank % 2 == 0 else
             [dist.irecv(got, prv), dist.isend(send, nxt)])
    for w in works:
        w.wait()
    _same(got, torch.arange(8.) * prv, "isend/irecv")


@check("async_futures")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    ts = [torch.full((1000,), float(rank + k)) for k in range(4)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    futs = [w.get_future().then(lambda f: f.value()[0] * 2) for w in works]
    total = sum(range(size))
    for k, f in enumerate(futs):
        _same(f.wait(), torch.full((1000,), 2. * (total + size * k)), f"future {k}")
    for k, w in enumerate(works):
        assert w.is_completed() and w.is_success()
        _same(ts[k], torch.full((1000,), float(total + size * k)), f"tensor {k}")
        _same(w.result()[0], ts[k], f"result {k}")


@check("subgroups")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    from hccl_mlir.torch import ProcessGroupHCCL
    members = [0, 1]
    sub = dist.new_group(members)
    gsub = dist.new_group(members, backend="gloo")
    other = [1, size - 1] if size > 2 else [0, 1]
    sub2 = dist.new_group(other)
    if rank in members:
        assert isinstance(sub, ProcessGroupHCCL) and sub.size() == 2
        t = _input(rank, "float32", "SUM")
        g = t.clone()
        dist.all_reduce(t, group=sub)
        dist.all_reduce(g, group=gsub)
        _same(t, g, "subgroup all_reduce vs gloo")
        dist.broadcast(t, src=1, group=sub)  # global rank 1
        _same(t, g, "subgroup broadcast")
    else:
        assert sub == dist.GroupMember.NON_GROUP_MEMBER
    if rank in other:
        outs = [torch.empty(3) for _ in other]
        dist.all_gather(outs, torch.full((3,), float(rank)), group=sub2)
        for o, r in zip(outs, other):
            _same(o, torch.full((3,), float(r)), f"second subgroup, from {r}")
    # The world still works after its children did.
    t = torch.ones(3)
    dist.all_reduce(t)
    _same(t, torch.full((3,), float(size)), "world after subgroups")


def _sparse_input(rank, size):
    """Rank r's nonzeros: rows r and r + 1 (shared with the neighbours), row
    7 (shared by all), rank 1 none; a dense trailing dimension of 2."""
    import torch
    if rank == 1:
        return torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.int64),
                                       torch.empty(0, 2), (size + 8, 3, 2))
    idx = torch.tensor([[rank, rank + 1, 7], [0, 2, rank % 3]])
    val = torch.arange(6.).reshape(3, 2) + rank
    return torch.sparse_coo_tensor(idx, val, (size + 8, 3, 2))


@check("sparse_all_reduce")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    t, g = _sparse_input(rank, size), _sparse_input(rank, size)
    dist.all_reduce(t)
    dist.all_reduce(g, group=gloo)
    assert t.is_sparse, f"result is {t.layout}"
    ref = sum(_sparse_input(r, size).to_dense() for r in range(size))
    _same(t.to_dense(), ref, "vs reference")
    _same(t.to_dense(), g.to_dense(), "vs gloo")
    _raises(ValueError, "sparse all_reduce supports ReduceOp.SUM only",
            lambda: dist.all_reduce(_sparse_input(rank, size), op=dist.ReduceOp.MAX))


def _raises(exc, fragment, fn):
    try:
        fn()
    except exc as e:
        assert fragment in str(e), f"message {str(e)!r} lacks {fragment!r}"
        return
    except Exception as e:
        raise AssertionError(f"expected {exc.__name__}, got {type(e).__name__}: {e}")
    raise AssertionError(f"expected {exc.__name__} ({fragment!r}), nothing raised")


@check("bad_arguments")
def _(rank, size, gloo):
    import torch
    import torch.distributed as dist
    t = torch.ones(4)
    _raises(ValueError, "ReduceOp.BAND is not supported",
            lambda: dist.all_reduce(t, op=dist.ReduceOp.BAND))
    _raises(ValueError, "AVG needs a floating",
            lambda: dist.all_reduce(torch.ones(4, dtype=torch.int32), op=dist.ReduceOp.AVG))
    _raises(ValueError, "undefined for complex",
            lambda: dist.reduce(torch.ones(2, dtype=torch.complex64), 0, op=dist.ReduceOp.MAX))
    _raises(TypeError, "is not supported",
            lambda: dist.broadcast(torch.ones(2, dtype=torch.complex32), 0))
    _raises(ValueError, "must be dense",
            lambda: dist.broadcast(torch.eye(3).to_sparse(), 0))
    _raises(ValueError, f"expected {size} tensors",
            lambda: dist.all_gather([torch.empty(4)] * (size + 1), t))
    _raises(TypeError, "has dtype",
            lambda: dist.all_gather_into_tensor(torch.empty(4 * size, dtype=torch.int64), t))
    _raises(ValueError, "elements, expected",
            lambda: dist.all_gather([torch.empty(5)] * size, t))
    _raises(ValueError, f"root {size} outside the group",
            lambda: dist.broadcast(t, src=size))
    _raises(ValueError, "split sizes add up to",
            lambda: dist.all_to_all_single(torch.empty(4), t, [1] * size, [5] + [0] * (size - 1)))
    _raises(ValueError, "itself",
            lambda: dist.send(t, rank))
    _raises(ValueError, "elements, expected",
            lambda: dist.reduce_scatter_tensor(torch.empty(3), torch.empty(3 * size + 1)))
    # Nothing above reached the runtime: the group still works.
    dist.all_reduce(t)
    _same(t, torch.full((4,), float(size)), "group usable after bad calls")


# --------------------------------------------------------------------------
# The ranks and the tests
# --------------------------------------------------------------------------

def _run_all(rank, size):
    import torch.distributed as dist
    gloo = dist.new_group(backend="gloo")
    out = {}
    for name, fn in CHECKS.items():
        try:
            fn(rank, size, gloo)
            out[name] = None
        except BaseException as e:  # reported per check
            out[name] = f"{type(e).__name__}: {e}"
    return out


_reports = {}


def _report(size):
    if size not in _reports:
        _reports[size] = ranks.run(_run_all, size, timeout=300)
    return _reports[size]


@pytest.mark.parametrize("name", list(CHECKS))
@pytest.mark.parametrize("size", SIZES)
def test_collective(size, name):
    failures = [f"rank {r}: {rep[name]}" for r, rep in enumerate(_report(size))
                if rep[name] is not None]
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------------
# Point-to-point in any issue order (its own spawn: before the backend held
# point-to-point calls back until a wait, the first case hung every rank)
# --------------------------------------------------------------------------

def _p2p_any_order(rank, size):
    import time
    import torch
    import torch.distributed as dist
    # Receives posted before sends on every rank, as torch's
    # batch_isend_irecv does with a recv-first list (the suite's
    # test_batch_isend_irecv_gloo_tags); two messages each way per pair.
    ops, got = [], {}
    for peer in range(size):
        if peer == rank:
            continue
        got[peer] = [torch.full((5,), -1.), torch.full((70_000,), -1.)]
        for t in got[peer]:
            ops.append(dist.P2POp(dist.irecv, t, peer, tag=peer))
        for n in (5, 70_000):
            ops.append(dist.P2POp(dist.isend, torch.full((n,), float(rank)), peer, tag=rank))
    works = dist.batch_isend_irecv(ops)
    for w in reversed(works):
        w.wait()
    for peer, ts in got.items():
        for t in ts:
            _same(t, torch.full(t.shape, float(peer)), f"from rank {peer}")
    # Sent and never waited for: a later collective (or polling) issues it.
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    send, recv = torch.arange(6.) + rank, torch.empty(6)
    sw, rw = dist.isend(send, nxt), dist.irecv(recv, prv)
    deadline = time.monotonic() + 60
    while not rw.is_completed():
        assert time.monotonic() < deadline, "irecv never completed"
        time.sleep(0.01)
    _same(recv, torch.arange(6.) + prv, "polled irecv")
    t = torch.ones(3)
    dist.all_reduce(t)
    assert sw.is_completed() and sw.is_success()
    _same(t, torch.full((3,), float(size)), "all_reduce after p2p")


@pytest.mark.parametrize("size", [2, 4])
def test_p2p_any_issue_order(size):
    ranks.run(_p2p_any_order, size, timeout=120, env={"HCCL_EXEC_TIMEOUT": "20"})
