"""Faults through the hccl backend: a killed rank makes the others raise
HcclError within seconds (no hang), naming the HCCL error and the dead rank;
mismatched calls raise instead of corrupting data; the broken group keeps
failing at once.
"""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranks  # noqa: E402

# Survivors must notice a dead peer well within this (the runtime sees a
# dead process through its pidfd in milliseconds; docs/runtime.md, Faults).
DEADLINE_S = 10.0


def _killed(rank, size, victim, async_op):
    import torch
    import torch.distributed as dist
    from hccl_mlir.torch import HcclError
    t = torch.ones(1 << 16)
    dist.all_reduce(t)  # everybody is connected and working
    dist.barrier()
    if rank == victim:
        os.kill(os.getpid(), signal.SIGKILL)
    start = time.monotonic()
    try:
        for _ in range(1000):  # the victim may die during any of them
            if async_op:
                dist.all_reduce(t, async_op=True).get_future().wait()
            else:
                dist.all_reduce(t)
    except Exception as e:
        first = (time.monotonic() - start, type(e).__name__,
                 isinstance(e, HcclError), isinstance(e, RuntimeError), str(e))
    else:
        return ("no error", 1000)
    # The group is broken: the next call fails at once, with the same news.
    start = time.monotonic()
    try:
        dist.all_reduce(t)
        again = None
    except HcclError as e:
        again = (time.monotonic() - start, str(e))
    return first, again


def _check_killed(async_op):
    size, victim = 3, 2
    out = ranks.run(_killed, size, victim, async_op, allow_missing=(victim,),
                    leave_together=False, timeout=120)
    for r in range(size):
        if r == victim:
            continue
        assert out[r][0] != "no error", f"rank {r} saw no error after the kill"
        (elapsed, name, is_hccl, is_runtime, msg), again = out[r]
        print(f"rank {r}: raised {name} after {elapsed * 1000:.0f} ms: {msg}")
        assert is_hccl and is_runtime, f"rank {r}: {name}: {msg}"
        assert elapsed < DEADLINE_S, f"rank {r} took {elapsed:.1f} s"
        assert "HCCL_E_REMOTE" in msg, msg
        assert "HcclAllReduce" in msg, msg
        assert f"rank {victim}" in msg, f"the dead rank is not named: {msg}"
        assert again is not None, f"rank {r}: the broken group accepted a call"
        assert again[0] < 1.0, f"rank {r}: the broken group took {again[0]:.1f} s"


def test_killed_rank_sync():
    _check_killed(async_op=False)


def test_killed_rank_async_future():
    _check_killed(async_op=True)


def _mismatch(rank, size):
    import torch
    import torch.distributed as dist
    from hccl_mlir.torch import HcclError
    errors = []
    for n in ((4 if rank == 0 else 8), 4):  # mismatched, then a matching one
        try:
            dist.all_reduce(torch.ones(n))
            errors.append(None)
        except HcclError as e:
            errors.append(str(e))
    return errors


def test_mismatched_calls_raise():
    out = ranks.run(_mismatch, 2, leave_together=False, timeout=120)
    msgs = [m for errs in out for m in errs if m]
    assert any("mismatched calls" in m for m in msgs), msgs
    # Whoever completed the bad call still finds the group broken next time.
    for r, (first, second) in enumerate(out):
        assert second is not None, f"rank {r}: the call after a mismatch succeeded"
        assert "HCCL_E_" in second, second


def _group_timeout(rank, size):
    import datetime
    import torch.distributed as dist
    from hccl_mlir.torch import HcclError
    sub = dist.new_group([0, 1], timeout=datetime.timedelta(seconds=2))
    store = dist.distributed_c10d._get_default_store()
    if rank != 0:  # stays in the group until rank 0 has timed out
        store.wait(["timed out"])
        return None
    try:
        dist.barrier(group=sub)  # rank 1 never joins
        return "barrier passed"
    except HcclError as e:
        return str(e)
    finally:
        store.set("timed out", "1")


def test_group_timeout_bounds_each_call():
    # torch's timeout (2 s here) is the group's per-call limit when
    # HCCL_EXEC_TIMEOUT is longer; the runtime names the limit it applied.
    out = ranks.run(_group_timeout, 2, leave_together=False, timeout=120,
                    env={"HCCL_EXEC_TIMEOUT": "60"})
    assert out[0] is not None and "HCCL_E_TIMEOUT" in out[0], out[0]
    assert "HCCL_EXEC_TIMEOUT=2 s" in out[0], out[0]
