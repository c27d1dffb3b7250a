"""hccl-mlir from Python.

hccl_mlir.torch: the torch.distributed backend "hccl" on the bundled runtime
(libhccl), and DDP driven by the compiler's plan. See docs/torch.md.
"""
