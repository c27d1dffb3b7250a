#===- backward_recorder.py - Gradient-ready order and per-layer costs ----===#
"""Runs forward + backward once and records what DDP's reducer observes.

- Gradient-ready order: a post hook on every parameter's AccumulateGrad node
  (the node DDP's reducer hooks), in the order autograd fires them.
- Backward costs: a TorchDispatchMode sees every aten op autograd executes
  and prices it (device_cost.py). The op stream is cut at gradient-ready
  events: the ops run since the previous layer's gradients were ready are
  the backward work of the layer whose gradients become ready next. A layer
  is the module that owns the parameters (consecutive ready events of one
  module form one layer backward), so the compute before the first gradient
  (loss, LM head) belongs to the first layer and parameter-free work
  (attention matmuls, activations, residual adds) to the layer it precedes.
- Parameters and their owners follow DDP's own listing
  (DistributedDataParallel._build_params_for_reducer): modules in
  named_modules() order, their own parameters that require grad, shared
  parameters once, at their first owner.
- Parameters that get no gradient are an error, or, with find_unused, what
  DDP's find_unused_parameters makes of them: its reducer marks them ready
  (zeros) when the first gradient arrives, so they come first in the ready
  order and belong to no layer.
- Sparse gradients (nn.Embedding(sparse=True)) keep the shapes of their
  coalesced indices and values: DDP hands the sparse tensor to the process
  group, whose all-reduce (gloo's) all-gathers indices and values.
"""

import resource
import statistics
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode

from device_cost import Cost, Device, op_cost


@dataclass(eq=False)
class Param:
    name: str  # DDP's "<module>.<param>" name
    module: str
    index: int  # position in DDP's parameter list
    tensor: nn.Parameter
    # For a sparse gradient: shapes of its coalesced indices and values.
    sparse: Optional[Tuple[List[int], List[int]]] = None


@dataclass
class LayerBackward:
    module: str
    params: List[Param] = field(default_factory=list)
    cost: Cost = field(default_factory=Cost)
    # The activation gradient its backward hands on: the gradient of the
    # module's forward input, or of its output where the input is not a
    # float tensor (embedding indices).
    grad_shape: List[int] = field(default_factory=list)
    grad_dtype: torch.dtype = torch.float32


@dataclass
class Recording:
    params: List[Param]  # DDP order
    ready: List[Param]  # gradient-ready order (unused ones first)
    layers: List[LayerBackward]  # autograd order
    total: Cost
    peak_rss_bytes: int
    unused: List[Param] = field(default_factory=list)  # DDP order


def ddp_parameters(model: nn.Module) -> List[Param]:
    out, seen = [], set()
    for mname, module in model.named_modules():
        for pname, p in module.named_parameters(recurse=False):
            if not p.requires_grad or id(p) in seen:
                continue
            seen.add(id(p))
            full = f"{mname}.{pname}" if mname else pname
            out.append(Param(full, mname, len(out), p))
    return out


# Matrix ops whose arithmetic --skip-matmul leaves out (outputs are zeros of
# the right shape). Order, sizes and FLOPs do not depend on values.
def _matmul_shape(name, args):
    if name == "mm":
        return (args[0].shape[0], args[1].shape[1])
    if name == "addmm":
        return (args[1].shape[0], args[2].shape[1])
    if name == "bmm":
        return (args[0].shape[0], args[0].shape[1], args[1].shape[2])
    if name == "baddbmm":
        return (args[1].shape[0], args[1].shape[1], args[2].shape[2])
    return None


class _Mode(TorchDispatchMode):
    def __init__(self, device: Device, skip_matmul: bool):
        super().__init__()
        self.device = device
        self.skip_matmul = skip_matmul
        self.recording = False
        self.pending = Cost()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = None
        if self.skip_matmul and "out" not in kwargs:
            name = func.overloadpacket.__name__
            shape = _matmul_shape(name, args)
            if shape is not None:
                ref = args[0] if name in ("mm", "bmm") else args[1]
                out = torch.zeros(shape, dtype=ref.dtype, device=ref.device)
        if out is None:
            out = func(*args, **kwargs)
        if self.recording:
            self.pending.add(op_cost(func, args, kwargs, out, self.device))
        return out


def record_backward(model: nn.Module, loss_fn, device: Device,
                    skip_matmul: bool = False, find_unused: bool = False) -> Recording:
    """Runs loss_fn(model) and its backward once; returns the recording. The
    gradients are dropped as soon as they are recorded (they are not needed
    afterwards), which keeps peak memory near parameters + activations."""
    params = ddp_parameters(model)
    owned: Dict[str, List[Param]] = {}
    for p in params:
        owned.setdefault(p.module, []).append(p)

    # Each owning module's first forward call: the shape of the activation
    # gradient its backward hands on.
    activations: Dict[str, tuple] = {}
    handles = []
    modules = dict(model.named_modules())
    for mname in owned:
        def fwd_hook(mod, args, out, mname=mname):
            if mname in activations:
                return
            t = next((a for a in args if isinstance(a, torch.Tensor)), None)
            if t is None or not t.is_floating_point():
                t = out if isinstance(out, torch.Tensor) else None
            if t is not None and t.is_floating_point():
                activations[mname] = (list(t.shape), t.dtype)
        handles.append(modules[mname].register_forward_hook(fwd_hook))

    mode = _Mode(device, skip_matmul)
    ready: List[Param] = []
    layers: List[LayerBackward] = []

    def on_ready(p: Param):
        cost, mode.pending = mode.pending, Cost()
        if layers and layers[-1].module == p.module:
            layers[-1].cost.add(cost)
        else:
            layers.append(LayerBackward(p.module, cost=cost))
        layers[-1].params.append(p)
        ready.append(p)
        grad = p.tensor.grad
        if grad is not None and grad.is_sparse:
            g = grad.coalesce()
            p.sparse = (list(g._indices().shape), list(g._values().shape))
        p.tensor.grad = None  # recorded; free it

    accumulators = []  # keep the nodes (and their hooks) alive
    for p in params:
        acc = p.tensor.expand_as(p.tensor).grad_fn.next_functions[0][0]
        acc.register_hook(lambda _gi, _go, p=p: on_ready(p))
        accumulators.append(acc)

    model.train()
    model.zero_grad(set_to_none=True)
    with mode:
        loss = loss_fn(model)
        for h in handles:
            h.remove()
        mode.recording = True
        loss.backward()
        mode.recording = False
    del loss

    if layers and not mode.pending.empty():
        layers[-1].cost.add(mode.pending)  # work after the last gradient
    for layer in layers:
        if layer.module in activations:
            layer.grad_shape, layer.grad_dtype = activations[layer.module]
    total = Cost()
    for layer in layers:
        total.add(layer.cost)
    seen = {id(p) for p in ready}
    missing = [p for p in params if id(p) not in seen]
    if missing and not find_unused:
        raise RuntimeError("parameters without a gradient (unused in the "
                           f"loss): {', '.join(p.name for p in missing[:5])}; "
                           "DDP needs find_unused_parameters=True for them "
                           "(--find-unused-parameters)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return Recording(params, missing + ready, layers, total, rss, missing)


def measure_backward(model: nn.Module, loss_fn, rec: Recording, rounds: int) -> List[float]:
    """The layers' backward times on this host, in microseconds: runs
    loss_fn and its backward once to warm up, then `rounds` more times,
    timestamps every gradient-ready event (the AccumulateGrad hooks DDP
    uses) and returns per layer of `rec` the median time from the previous
    layer's last gradient (the backward's start, for the first layer) to
    its own last one; the work after the last gradient goes to the last
    layer. The forward pass is not timed (the graph has no forward op)."""
    order = [p for layer in rec.layers for p in layer.params]
    ends, at = [], 0
    for layer in rec.layers:
        at += len(layer.params)
        ends.append(at - 1)
    stamps: List[float] = []
    fired: List[int] = []

    def on_ready(p: Param):
        stamps.append(time.perf_counter())
        fired.append(id(p))
        p.tensor.grad = None

    accumulators, handles = [], []
    for p in order:
        acc = p.tensor.expand_as(p.tensor).grad_fn.next_functions[0][0]
        handles.append(acc.register_hook(lambda _gi, _go, p=p: on_ready(p)))
        accumulators.append(acc)
    per_layer: List[List[float]] = [[] for _ in rec.layers]
    model.train()
    try:
        for r in range(rounds + 1):
            model.zero_grad(set_to_none=True)
            loss = loss_fn(model)
            stamps.clear()
            fired.clear()
            start = time.perf_counter()
            loss.backward()
            end = time.perf_counter()
            del loss
            if fired != [id(p) for p in order]:
                raise RuntimeError("measuring the backward: the gradients came in "
                                   "another order than when it was recorded")
            if r == 0:
                continue  # warm-up
            prev = start
            for k, e in enumerate(ends):
                t = (end if k + 1 == len(ends) else stamps[e]) - prev
                per_layer[k].append(t * 1e6)
                prev = stamps[e]
    finally:
        for h in handles:
            h.remove()
        model.zero_grad(set_to_none=True)
    return [statistics.median(ts) for ts in per_layer]
