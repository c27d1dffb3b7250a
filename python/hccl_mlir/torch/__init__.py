"""torch.distributed on the bundled runtime.

    import hccl_mlir.torch            # registers the backend "hccl"
    dist.init_process_group("hccl", ...)

    hccl_mlir.torch.apply_plan(ddp_model, "m.plan.json", "m.graph.json")

Importing registers the backend with torch.distributed.Backend; errors of the
runtime raise HcclError (a RuntimeError) naming the HCCL code and message.
apply_plan makes DDP reduce its gradients in the compiler's buckets with the
compiler's algorithms (plan_hook.py). See docs/torch.md.
"""

from .backend import HcclError, Plan, ProcessGroupHCCL  # noqa: F401 (registers)
from .plan_hook import PlanError, PlanHook, apply_plan, plan_buckets

__all__ = ["HcclError", "Plan", "ProcessGroupHCCL", "PlanError", "PlanHook",
           "apply_plan", "plan_buckets"]
