"""Registration of the c10d backend "hccl" (torch 1.13's extended API).

torch calls the creator once per group with the group's store (prefixed per
group), its rank and size, and the global ranks of a subgroup. The world
group exchanges the runtime's root info through that store; a subgroup of an
hccl world becomes a sub-communicator of the world's communicator
(HcclCreateSubCommConfig: only members call, as only members create a torch
subgroup), with an id every member derives from torch's group name. torch's `timeout`
bounds each call of the group (unless HCCL_EXEC_TIMEOUT is shorter).
"""

import hashlib
import math
import os

import torch.distributed as dist

from . import _C

HcclError = _C.HcclError
Plan = _C.Plan
ProcessGroupHCCL = _C.ProcessGroupHCCL

BACKEND = "hccl"


def _sub_comm_id(group_name: str) -> int:
    digest = hashlib.sha256(("torch-group:" + group_name).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _exec_timeout_s(timeout) -> int:
    """torch's group timeout as the runtime's limit on each call of the
    group, in whole seconds (rounded up): the shorter of it and
    HCCL_EXEC_TIMEOUT (0 there means no limit); -1 leaves the variable's."""
    if timeout is None:
        return -1
    s = min(max(1, math.ceil(timeout.total_seconds())), 2**31 - 1)
    try:
        env = int(os.environ.get("HCCL_EXEC_TIMEOUT", ""))
    except ValueError:  # unset, or a value the runtime reports itself
        return s
    return -1 if 0 < env <= s else s


def _create(opts, pg_options=None):
    ranks = list(opts.global_ranks_in_group)
    limit = _exec_timeout_s(opts.timeout)
    if ranks:
        world = dist.distributed_c10d._get_default_group()
        if isinstance(world, ProcessGroupHCCL):
            return ProcessGroupHCCL(world, ranks, _sub_comm_id(opts.group_id),
                                    opts.group_rank, limit)
    # The world, or a subgroup of a world of another backend.
    return ProcessGroupHCCL(opts.store, opts.group_rank, opts.group_size, limit)


if BACKEND.upper() not in dist.Backend._plugins:
    dist.Backend.register_backend(BACKEND, _create, extended_api=True)
