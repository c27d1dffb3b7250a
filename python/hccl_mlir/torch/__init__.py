"""torch.distributed on the bundled runtime.

    import hccl_mlir.torch            # registers the backend "hccl"
    dist.init_process_group("hccl", ...)

Importing registers the backend with torch.distributed.Backend; errors of the
runtime raise HcclError (a RuntimeError) naming the HCCL code and message.
See docs/torch.md.
"""

from .backend import HcclError, Plan, ProcessGroupHCCL  # noqa: F401 (registers)

__all__ = ["HcclError", "Plan", "ProcessGroupHCCL"]
