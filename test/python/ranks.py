"""Runs a function on N local ranks (spawned processes) with the world group
on the hccl backend, a FileStore rendezvous in a temporary directory, and
collects each rank's return value. A rank that raises reports the exception
text; ranks that do not finish within the deadline are killed and reported
as hung, so a test never hangs.
"""

import multiprocessing as mp
import os
import queue
import tempfile
import time
import traceback

# Fail fast instead of HCCL's 120 s / 1836 s defaults, and keep the two cores
# for the ranks.
RANK_ENV = {
    "HCCL_CONNECT_TIMEOUT_MS": "30000",
    "HCCL_EXEC_TIMEOUT": "60",
    "OMP_NUM_THREADS": "1",
}


def _child(fn, rank, size, store_path, backend, args, results, leave_together, env):
    for k, v in RANK_ENV.items():
        os.environ.setdefault(k, v)
    os.environ.update(env)
    try:
        import torch
        import torch.distributed as dist
        import hccl_mlir.torch  # noqa: F401 (registers "hccl")
        torch.set_num_threads(1)
        dist.init_process_group(backend, init_method="file://" + store_path,
                                rank=rank, world_size=size)
        out = fn(rank, size, *args)
        if leave_together:
            # A rank destroying its communicator while a peer still needs it
            # is an error the peer would report.
            dist.barrier()
            dist.destroy_process_group()
        results.put((rank, "ok", out))
    except BaseException as e:  # reported to the parent, which fails the test
        results.put((rank, "error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))


def run(fn, size, *args, backend="hccl", timeout=180, allow_missing=(),
        leave_together=True, env=None):
    """Returns [value of fn(rank, size, *args) for each rank]. Raises
    AssertionError naming the ranks that failed or hung. Ranks listed in
    `allow_missing` may die without reporting; with leave_together=False the
    ranks skip the final barrier and destroy (fault tests). `env` is set in
    every rank before torch is imported."""
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    with tempfile.TemporaryDirectory(prefix="hccl-torch-") as tmp:
        store = os.path.join(tmp, "store")
        procs = [ctx.Process(target=_child,
                             args=(fn, r, size, store, backend, args, results,
                                   leave_together, dict(env or {})))
                 for r in range(size)]
        for p in procs:
            p.start()
        got = {}
        deadline = time.monotonic() + timeout
        expected = size - len(allow_missing)
        while len(got) < expected and time.monotonic() < deadline:
            try:
                rank, status, value = results.get(timeout=0.5)
                got[rank] = (status, value)
            except queue.Empty:
                if all(not p.is_alive() for p in procs) and results.empty():
                    break
        for p in procs:
            p.join(timeout=max(1.0, deadline - time.monotonic()))
        hung = [r for r, p in enumerate(procs) if p.is_alive()]
        for r in hung:
            procs[r].kill()
            procs[r].join()
    problems = []
    for r in range(size):
        if r in got and got[r][0] == "error":
            problems.append(f"rank {r}: {got[r][1]}")
        elif r not in got and r not in allow_missing:
            problems.append(f"rank {r}: " + ("hung (killed after the deadline)"
                                             if r in hung else
                                             f"died (exit code {procs[r].exitcode})"))
    assert not problems, "\n".join(problems)
    return [got[r][1] if r in got else None for r in range(size)]
