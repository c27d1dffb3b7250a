#===- custom_model.py - Any model: MODULE:FACTORY or FILE.py:FACTORY ----===#
"""Builds a user's model for the exporter.

`target` is `package.module:factory` (imported as Python imports it, e.g.
`torchvision.models:resnet18`) or `path/to/file.py:factory`; `factory()`
returns the nn.Module. Its inputs come from --input specs, one per forward
argument:

    DTYPE[d0,d1,...]         random normal values (floating dtypes)
    DTYPE[d0,d1,...]:HIGH    random integers in [0, HIGH) (integer dtypes:
                             token ids, labels)

The loss is the mean of the squares of every floating tensor the forward
returns (nested in tuples, lists or dicts), which gives every parameter that
reaches an output a gradient, as a real loss would.
"""

import importlib
import importlib.util
import os
import re
from typing import List, Optional, Tuple

import torch
import torch.nn as nn

DTYPES = {
    "float32": torch.float32, "fp32": torch.float32, "float": torch.float32,
    "float16": torch.float16, "fp16": torch.float16, "half": torch.float16,
    "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
    "float64": torch.float64, "fp64": torch.float64, "double": torch.float64,
    "int64": torch.int64, "long": torch.int64, "int32": torch.int32,
    "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8,
    "bool": torch.bool,
}

_SPEC = re.compile(r"^([a-z0-9]+)\[([0-9, ]*)\](?::([0-9]+))?$")


def is_target(name: str) -> bool:
    """Whether `name` names a factory rather than a built-in model."""
    return ":" in name


def parse_input(spec: str) -> Tuple[torch.dtype, List[int], Optional[int]]:
    """(dtype, shape, high) of one --input; ValueError naming the problem."""
    m = _SPEC.match(spec.strip())
    if not m:
        raise ValueError(f"--input '{spec}': expected DTYPE[d0,d1,...] or "
                         "DTYPE[d0,...]:HIGH, e.g. float32[8,3,32,32] or int64[8,128]:1000")
    name, dims, high = m.group(1), m.group(2), m.group(3)
    if name not in DTYPES:
        raise ValueError(f"--input '{spec}': unknown dtype '{name}' "
                         f"(known: {', '.join(sorted(DTYPES))})")
    dtype = DTYPES[name]
    shape = [int(d) for d in dims.replace(" ", "").split(",") if d] if dims.strip() else []
    if any(d <= 0 for d in shape):
        raise ValueError(f"--input '{spec}': sizes must be positive")
    if high is not None:
        if dtype.is_floating_point:
            raise ValueError(f"--input '{spec}': ':HIGH' is for integer dtypes")
        if int(high) <= 0:
            raise ValueError(f"--input '{spec}': HIGH must be positive")
        high = int(high)
    elif not dtype.is_floating_point and dtype != torch.bool:
        raise ValueError(f"--input '{spec}': an integer input needs ':HIGH' "
                         "(values are drawn from [0, HIGH))")
    return dtype, shape, high


def load_factory(target: str):
    """The callable `target` names; ValueError naming what is missing."""
    where, _, attr = target.rpartition(":")
    if not where or not attr:
        raise ValueError(f"model '{target}': expected MODULE:FACTORY or FILE.py:FACTORY")
    if where.endswith(".py") or os.sep in where:
        if not os.path.isfile(where):
            raise ValueError(f"model '{target}': no such file: {where}")
        spec = importlib.util.spec_from_file_location(
            os.path.splitext(os.path.basename(where))[0], where)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as e:
            raise ValueError(f"model '{target}': cannot import '{where}': {e}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"model '{target}': '{where}' has no callable '{attr}'")
    return fn


def _float_outputs(out) -> List[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out] if out.is_floating_point() else []
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _float_outputs(o)]
    return []


def build(target: str, inputs: List[str], generator: torch.Generator):
    """(module, loss_fn, description) for a factory and its input specs."""
    from models import ModelCase
    specs = [parse_input(s) for s in inputs]
    if not specs:
        raise ValueError(f"model '{target}': give its forward inputs with --input")
    net = load_factory(target)()
    if not isinstance(net, nn.Module):
        raise ValueError(f"model '{target}': the factory returned "
                         f"{type(net).__name__}, not a torch.nn.Module")
    args = []
    for dtype, shape, high in specs:
        if dtype.is_floating_point:
            args.append(torch.randn(shape, generator=generator).to(dtype))
        elif dtype == torch.bool:
            args.append(torch.randint(0, 2, shape, generator=generator).bool())
        else:
            args.append(torch.randint(0, high, shape, generator=generator).to(dtype))

    def loss(m):
        outs = _float_outputs(m(*args))
        if not outs:
            raise RuntimeError(f"model '{target}': the forward returned no "
                               "floating tensor to build a loss from")
        return sum(o.float().pow(2).mean() for o in outs)
    desc = f"{target}({', '.join(inputs)})"
    return ModelCase(net, loss, desc)
