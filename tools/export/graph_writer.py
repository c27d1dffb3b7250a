#===- graph_writer.py - Recording -> exported-graph JSON (version 1) -----===#
"""Turns a backward recording into the graph format of docs/graph-format.md:
one compute op per layer backward in autograd order, each followed by one
data-parallel all_reduce (sum) per gradient it made ready, in ready order,
as DDP issues them. Every compute op reads the activation gradient the
previous one produced, so the list is a dependency chain. Unused parameters
(find_unused) are graph inputs reduced right after the first compute op;
sparse gradients are all-gathers of their indices and values.
"""

import json
import os
import tempfile
from typing import List

import torch

from backward_recorder import Recording

DTYPES = {
    torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16",
    torch.float64: "fp64", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.uint8: "uint8",
}


def dtype_name(dtype: torch.dtype) -> str:
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype} has no graph-format name")
    return DTYPES[dtype]


def _reduce(p, ranks: int, tensors: list, ops: list) -> None:
    """What DDP sends for one gradient: a sum all-reduce, or for a sparse
    gradient the all-gathers of its indices and values (gloo's sparse
    all-reduce; the shapes are this rank's, assumed on every rank)."""
    grad, dtype = p.name + ".grad", dtype_name(p.tensor.dtype)
    if p.sparse is None:
        tensors.append({"name": grad + ".avg", "shape": list(p.tensor.shape), "dtype": dtype})
        ops.append({"op": "all_reduce", "name": p.name + ".allreduce",
                    "group": "dp", "reduction": "sum",
                    "inputs": [grad], "outputs": [grad + ".avg"]})
        return
    for part, shape, dim, pdtype in (("indices", p.sparse[0], 1, "int64"),
                                     ("values", p.sparse[1], 0, dtype)):
        out = list(shape)
        out[dim] *= ranks
        tensors.append({"name": f"{grad}.{part}.all", "shape": out, "dtype": pdtype})
        ops.append({"op": "all_gather", "name": f"{p.name}.{part}.allgather",
                    "group": "dp", "dim": dim, "inputs": [f"{grad}.{part}"],
                    "outputs": [f"{grad}.{part}.all"]})


def _grad_tensors(p) -> list:
    grad, dtype = p.name + ".grad", dtype_name(p.tensor.dtype)
    if p.sparse is None:
        return [{"name": grad, "shape": list(p.tensor.shape), "dtype": dtype}]
    return [{"name": grad + ".indices", "shape": p.sparse[0], "dtype": "int64"},
            {"name": grad + ".values", "shape": p.sparse[1], "dtype": dtype}]


def build_graph(name: str, rec: Recording, ranks: int, topology: str) -> dict:
    tensors, ops = [], []
    tensors.append({"name": "loss.grad", "shape": [], "dtype": "fp32"})
    # Unused parameters (find_unused): zero gradients, graph inputs, reduced
    # right after the first backward as DDP marks them ready then.
    for p in rec.unused:
        tensors.extend(_grad_tensors(p))
    previous = "loss.grad"
    op_names = set()
    for k, layer in enumerate(rec.layers):
        base = layer.module or "model"
        op_name, n = f"{base}.backward", 1
        while op_name in op_names:  # a module whose gradients come in two runs
            op_name, n = f"{base}.backward.{n}", n + 1
        op_names.add(op_name)
        outputs = []
        for p in layer.params:
            for t in _grad_tensors(p):
                tensors.append(t)
                outputs.append(t["name"])
        activation = None
        if k + 1 < len(rec.layers):  # the last backward hands nothing on
            suffix = op_name[len(base):].replace(".backward", ".input", 1)
            activation = base + suffix + ".grad"
            tensors.append({"name": activation, "shape": layer.grad_shape,
                            "dtype": dtype_name(layer.grad_dtype)})
            outputs.append(activation)
        ops.append({"op": "compute", "name": op_name,
                    "time_us": round(layer.cost.time_us, 4),
                    "flops": int(layer.cost.flops), "bytes": int(layer.cost.nbytes),
                    "inputs": [previous], "outputs": outputs})
        for p in (rec.unused if k == 0 else []) + layer.params:
            _reduce(p, ranks, tensors, ops)
        if activation:
            previous = activation
    return {
        "format": "hccl-mlir.graph",
        "version": 1,
        "name": name,
        "topology": topology,
        "groups": [{"name": "dp", "ranks": list(range(ranks))}],
        "tensors": tensors,
        "ops": ops,
    }


def dumps(graph: dict) -> str:
    """Compact JSON with one tensor / op per line: small, diffable, and
    greppable in the order of execution."""
    def one(v):
        return json.dumps(v, separators=(", ", ": "))
    head = {k: v for k, v in graph.items() if k not in ("tensors", "ops")}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {one(v)},")
    for key in ("tensors", "ops"):
        items: List[str] = [f"    {one(v)}" for v in graph[key]]
        lines.append(f"  {json.dumps(key)}: [")
        lines.append(",\n".join(items))
        lines.append("  ]" + ("," if key == "tensors" else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_atomically(path: str, text: str) -> None:
    """Writes `text` to `path` through a temporary file in the same folder,
    so a failure never leaves a partial file behind."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
