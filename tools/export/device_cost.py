#===- device_cost.py - FLOP and byte counts of aten ops, device roofline --===#
"""Prices one aten op on a device given by peak FLOP rate and memory
bandwidth: time = max(FLOPs / (peak x eff), bytes / (bandwidth x eff)).

FLOPs are counted for the matrix ops that dominate training (mm, addmm, bmm,
baddbmm, mv, dot and convolutions, forward or backward); every other op
(norms, softmax, activations, element-wise, reductions, embedding backward)
is priced by the bytes it reads and writes. View ops cost nothing.
"""

from dataclasses import dataclass

import torch
from torch.utils._pytree import tree_flatten

# Ascend 910B class NPU. Huawei announced the first Ascend 910 (2019) at
# 256 TFLOPS dense FP16; for the 910B it publishes no single figure, and the
# values commonly cited for its SKUs are around 300 TFLOPS FP16/BF16 with
# 64 GB of HBM2e at about 1.6 TB/s. 320 TFLOPS and 1600 GB/s are the
# approximate figures our cost model uses (passes/CostModel.h), so the
# exporter and comm-estimate price compute alike; pass measured values for a
# real device. Gradients stay fp32 (mixed precision keeps fp32 master
# weights) while compute runs at the FP16 peak.
DEFAULT_PEAK_TFLOPS = 320.0
DEFAULT_MEMORY_GBPS = 1600.0
# Sustained fraction of peak: large-model training reaches roughly 40-55 %
# model FLOPs utilisation on such devices; 0.5 is the middle of that range.
DEFAULT_EFFICIENCY = 0.5


@dataclass
class Device:
    peak_tflops: float = DEFAULT_PEAK_TFLOPS
    memory_gbps: float = DEFAULT_MEMORY_GBPS
    efficiency: float = DEFAULT_EFFICIENCY

    def time_us(self, flops: float, nbytes: float) -> float:
        compute = flops / (self.peak_tflops * 1e12 * self.efficiency)
        memory = nbytes / (self.memory_gbps * 1e9 * self.efficiency)
        return max(compute, memory) * 1e6


@dataclass
class Cost:
    flops: float = 0.0
    nbytes: float = 0.0
    time_us: float = 0.0

    def add(self, other: "Cost") -> None:
        self.flops += other.flops
        self.nbytes += other.nbytes
        self.time_us += other.time_us

    def empty(self) -> bool:
        return self.flops == 0 and self.nbytes == 0


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _prod(xs) -> int:
    return _numel(xs)


def conv_flops(weight_shape, in_spatial, out_spatial, batch, transposed) -> int:
    """FLOPs of one convolution pass (forward, or one of its two backward
    products): 2 x batch x positions x weight elements, where positions are
    the output positions (the input positions for a transposed convolution).
    """
    positions = _prod(in_spatial if transposed else out_spatial)
    return 2 * batch * positions * _numel(weight_shape)


def matrix_flops(name: str, args, out) -> int:
    """FLOPs of the matrix / convolution aten op `name`, 0 for other ops."""
    if name == "mm":
        m, k = args[0].shape
        return 2 * m * k * args[1].shape[1]
    if name == "addmm":
        m, k = args[1].shape
        return 2 * m * k * args[2].shape[1]
    if name == "bmm":
        b, m, k = args[0].shape
        return 2 * b * m * k * args[1].shape[2]
    if name in ("baddbmm", "addbmm"):
        b, m, k = args[1].shape
        return 2 * b * m * k * args[2].shape[2]
    if name == "mv":
        m, k = args[0].shape
        return 2 * m * k
    if name == "addmv":
        m, k = args[1].shape
        return 2 * m * k
    if name == "dot":
        return 2 * args[0].numel()
    if name in ("convolution", "_convolution", "mkldnn_convolution"):
        x, w = args[0], args[1]
        transposed = bool(args[6]) if name != "mkldnn_convolution" and len(args) > 6 else False
        return conv_flops(w.shape, x.shape[2:], out.shape[2:], x.shape[0], transposed)
    if name == "convolution_backward":
        # (grad_output, input, weight, bias_sizes, stride, padding, dilation,
        #  transposed, output_padding, groups, output_mask)
        grad_out, x, w = args[0], args[1], args[2]
        transposed, mask = bool(args[7]), args[10]
        one = conv_flops(w.shape, x.shape[2:], grad_out.shape[2:], x.shape[0], transposed)
        return one * (int(bool(mask[0])) + int(bool(mask[1])))
    return 0


def _is_view(func) -> bool:
    """True for ops whose results alias an input without writing (view,
    t, expand, detach, ...): metadata only, no device work."""
    returns = func._schema.returns
    if not returns:
        return False
    for r in returns:
        info = r.alias_info
        if info is None or info.is_write:
            return False
    return True


def _tensor_bytes(values) -> int:
    flat, _ = tree_flatten(values)
    return sum(t.numel() * t.element_size() for t in flat if isinstance(t, torch.Tensor))


def op_cost(func, args, kwargs, out, device: Device) -> Cost:
    """The cost of one executed aten op (func an OpOverload)."""
    if _is_view(func):
        return Cost()
    name = func.overloadpacket.__name__
    flops = matrix_flops(name, args, out)
    nbytes = _tensor_bytes((args, kwargs)) + _tensor_bytes(out)
    return Cost(float(flops), float(nbytes), device.time_us(flops, nbytes))
