"""DDP driven by the compiler's plan.

    plan = "model.plan.json"      # hccl-translate --comm-to-plan
    graph = "model.graph.json"    # tools/export/export_graph.py
    apply_plan(ddp_model, plan, graph)

The plan's schedule (plan.items) starts one fused all-reduce program per
bucket, in order; the graph lists the gradients in the order the compiler
saw them (DDP's gradient-ready order, names `<parameter>.grad`). The
compiler's buckets are consecutive runs of that order per dtype (fusion joins
a stream in order), so each `start`, in turn, takes the next gradients of its
program's dtype until their elements make the program's count; anything else
is an error naming the start and the gradients.

At run time a post hook on each parameter's AccumulateGrad node (the node
DDP's reducer hooks) marks its gradient ready; when a bucket's last gradient
is ready, and every earlier bucket has been launched (all ranks launch in
plan order), the bucket is queued on the group's worker, which scales its
gradients by 1/world size as DDP does and runs HcclRunPlanCollective with
the program the compiler chose: in DDP's own bucket buffer where the bucket
lies in one, else packed into a buffer of ours. apply_plan rebuilds DDP with
one bucket per dtype, so that every plan bucket lies in one once DDP has
laid it out in ready order. The DDP comm hook installed here returns, for
each of DDP's own buckets, a future that assembles DDP's buffer from the
plan buckets holding its parameters. Under find_unused_parameters the
parameters the forward's graph does not reach are found as DDP finds them
and get zero gradients with the first gradient, as DDP marks them ready
then (and as the exporter records them); any other gradient that never
arrives is taken from DDP's bucket when DDP hands it over.

Without a plan (plan=None) DDP keeps its own bucketing and hook.
"""

import collections
import json
import os
import threading

import torch

from .backend import Plan, ProcessGroupHCCL


class PlanError(ValueError):
    """The plan, the graph and the model do not fit together."""


_DTYPE_ALIASES = {
    "f32": "fp32", "float32": "fp32", "float": "fp32", "f16": "fp16",
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "f64": "fp64",
    "float64": "fp64", "double": "fp64", "i8": "int8", "i16": "int16",
    "i32": "int32", "i64": "int64", "u8": "uint8",
}
_TORCH_DTYPES = {
    torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16",
    torch.float64: "fp64", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.uint8: "uint8",
}


def _dtype(name):
    return _DTYPE_ALIASES.get(name, name)


def _document(x, what):
    """A JSON document from a path, a JSON string or an already parsed dict."""
    if isinstance(x, dict):
        return x, json.dumps(x)
    if isinstance(x, (str, os.PathLike)) and os.path.exists(x):
        with open(x) as f:
            text = f.read()
    elif isinstance(x, str) and x.lstrip().startswith("{"):
        text = x
    else:
        raise PlanError(f"{what}: no such file: {x}")
    try:
        return json.loads(text), text
    except json.JSONDecodeError as e:
        raise PlanError(f"{what}: not JSON: {e}") from None


def plan_buckets(plan, graph):
    """[(program id, [gradient names])] in the plan's start order."""
    plan, _ = _document(plan, "plan")
    graph, _ = _document(graph, "graph")
    tensors = {t["name"]: t for t in graph.get("tensors", [])}
    queues = collections.defaultdict(collections.deque)
    for k, op in enumerate(graph.get("ops", [])):
        if op.get("op") == "compute":
            continue
        if op.get("op") != "all_reduce" or op.get("reduction", "sum") != "sum":
            raise PlanError(f"graph ops[{k}] ({op.get('name')}): only sum all_reduce "
                            f"of gradients can drive DDP, found {op.get('op')}")
        for name in op["inputs"]:
            t = tensors[name]
            numel = 1
            for d in t["shape"]:
                numel *= d
            queues[_dtype(t["dtype"])].append((name, numel))
    programs = {p["id"]: p for p in plan.get("programs", [])}
    items = plan.get("plan", {}).get("items")
    if not items:
        raise PlanError("plan: no schedule (plan.items); export it with "
                        "hccl-translate --comm-to-plan from a lowered graph")
    buckets = []
    for i, item in enumerate(items):
        if item.get("kind") != "start":
            continue
        pid = item["program"]
        prog = programs[pid]
        coll = prog["collective"].replace("_", "")
        if coll != "allreduce" or prog.get("reduce_op", "sum") != "sum":
            raise PlanError(f"plan.items[{i}]: program '{pid}' is a "
                            f"{prog['collective']} {prog.get('reduce_op', '')}; "
                            "DDP reduces gradients with sum all-reduces")
        dtype, count = _dtype(prog["dtype"]), prog["count"]
        q, names, got = queues[dtype], [], 0
        while got < count and q:
            name, n = q.popleft()
            names.append(name)
            got += n
        if got != count:
            raise PlanError(
                f"plan.items[{i}]: program '{pid}' reduces {count} {dtype} elements, "
                f"but the graph's next {dtype} gradients ({', '.join(names) or 'none'}) "
                f"hold {got}: the plan was not compiled from this graph")
        buckets.append((pid, names))
    left = [n for q in queues.values() for n, _ in q]
    if left:
        raise PlanError(f"plan: {len(left)} gradients of the graph are in no "
                        f"bucket of the plan (first: {left[0]})")
    return buckets


class _Iteration:
    """What one backward pass has seen and launched."""

    def __init__(self, nbuckets, nparams):
        self.grads = [None] * nparams
        self.pending = None  # per bucket: gradients still missing
        self.next = 0  # the next bucket to launch
        self.ready = [False] * nbuckets
        self.futures = [torch.futures.Future() for _ in range(nbuckets)]
        self.results = [None] * nbuckets
        self.synthetic = [False] * nbuckets  # a member's gradient is our zeros
        self.in_place = [False] * nbuckets  # reduced in DDP's bucket buffer
        self.unused = []  # parameters the forward did not reach


class PlanHook:
    """The installed hook; `apply_plan` returns it (for `buckets` and
    `algorithms`, and to keep it alive with the model)."""

    def __init__(self, ddp, plan_text, buckets, program_info):
        self.ddp = ddp
        self.pg = ddp.process_group
        self.plan = Plan.from_string(plan_text)
        self.size = self.pg.size()
        named = dict(ddp.module.named_parameters())
        self.params, self.bucket_of, self.offset = [], {}, {}
        self.buckets = []  # (program id, [param index])
        for b, (pid, names) in enumerate(buckets):
            members, off = [], 0
            for name in names:
                pname = name[:-5] if name.endswith(".grad") else name
                p = named.get(pname)
                if p is None:
                    raise PlanError(f"graph gradient '{name}': the model has no "
                                    f"parameter '{pname}'")
                if _TORCH_DTYPES.get(p.dtype) != _dtype(program_info[pid]["dtype"]):
                    raise PlanError(f"parameter '{pname}' is {p.dtype}, its bucket's "
                                    f"program '{pid}' reduces {program_info[pid]['dtype']}")
                idx = len(self.params)
                self.params.append(p)
                self.bucket_of[idx] = b
                self.offset[idx] = (off, p.numel())
                off += p.numel()
                members.append(idx)
            self.buckets.append((pid, members))
        index = {p.data_ptr(): i for i, p in enumerate(self.params)}
        for name, p in named.items():
            if p.requires_grad and p.data_ptr() not in index:
                raise PlanError(f"parameter '{name}' has no gradient in the plan's "
                                "buckets (the plan was compiled from another model)")
        self.index = index
        self.algorithms = [program_info[pid].get("algorithm") for pid, _ in self.buckets]
        self.flat = [None] * len(self.buckets)
        # Per plan bucket, (DDP bucket buffer, offset) when its gradients lie
        # there contiguously in its order: it is then reduced in place (no
        # pack into our buffer, no copy back into DDP's). Learnt from DDP's
        # buckets only once DDP has rebuilt them (it does so once, before
        # the second iteration's forward); until then, and for buckets
        # that do not line up, the gradients are packed.
        self.in_place = [None] * len(self.buckets)
        self.in_place_launches = 0
        self.lock = threading.Lock()
        self.it = None
        # Set to a list to record ("ready", parameter index) and ("launch",
        # bucket) events in order (tests check launch times with it).
        self.trace = None
        # A new iteration starts at the forward. Not at DDP's last bucket:
        # DDP's reducer hook on an AccumulateGrad node runs before ours, so
        # ours can still fire for that bucket's last gradient after it.
        ddp.module.register_forward_pre_hook(lambda *_: self._reset())
        if ddp.find_unused_parameters:
            ddp.module.register_forward_hook(self._find_unused)
        self.accumulators = []
        for i, p in enumerate(self.params):
            acc = p.expand_as(p).grad_fn.next_functions[0][0]
            acc.register_hook(self._ready_hook(i))
            self.accumulators.append(acc)  # keeps the node (and our hook) alive

    # ---- readiness and launches (autograd thread) ----

    def _reset(self):
        with self.lock:
            self.it = None

    def _find_unused(self, _module, _inputs, outputs):
        # DDP's search_unused_parameters: parameters the outputs' autograd
        # graph does not reach get no gradient; DDP marks them ready (zeros)
        # when the first gradient arrives, and so do we.
        stack, seen, reached = [], set(), set()

        def collect(o):
            if isinstance(o, torch.Tensor):
                if o.grad_fn is not None:
                    stack.append(o.grad_fn)
                elif o.requires_grad:
                    reached.add(o.data_ptr())
            elif isinstance(o, dict):
                for v in o.values():
                    collect(v)
            elif isinstance(o, (list, tuple)):
                for v in o:
                    collect(v)
        collect(outputs)
        while stack:
            fn = stack.pop()
            if fn in seen:
                continue
            seen.add(fn)
            var = getattr(fn, "variable", None)
            if var is not None:
                reached.add(var.data_ptr())
            stack.extend(n for n, _ in fn.next_functions if n is not None)
        unused = [i for i, p in enumerate(self.params) if p.data_ptr() not in reached]
        with self.lock:
            self._iteration().unused = unused

    def _iteration(self):
        if self.it is None:
            it = _Iteration(len(self.buckets), len(self.params))
            it.pending = [len(m) for _, m in self.buckets]
            self.it = it
        return self.it

    def _ready_hook(self, i):
        def hook(*_):
            if not self.ddp.require_backward_grad_sync:
                return  # under no_sync(): DDP does not reduce either
            with self.lock:
                it = self._iteration()
                for j in it.unused:  # ready with the first gradient, as in DDP
                    self._mark(it, j, torch.zeros_like(self.params[j]), synthetic=True)
                it.unused = []
                self._mark(it, i, self.params[i].grad)
        return hook

    def _mark(self, it, i, grad, synthetic=False):
        if it.grads[i] is not None:
            return
        it.grads[i] = grad
        if self.trace is not None:
            self.trace.append(("ready", i))
        b = self.bucket_of[i]
        it.synthetic[b] = it.synthetic[b] or synthetic
        it.pending[b] -= 1
        if it.pending[b] == 0:
            it.ready[b] = True
            while it.next < len(self.buckets) and it.ready[it.next]:
                self._launch(it, it.next)
                it.next += 1

    def _launch(self, it, b):
        pid, members = self.buckets[b]
        if self.trace is not None:
            self.trace.append(("launch", b))
        # The gradients are scaled by 1/world size (as DDP's reducer scales
        # before reducing) into the bucket's buffer, which is reused: DDP
        # has copied the previous iteration's results out before its
        # backward returned. The packing runs in C++ on the group's worker,
        # so the autograd thread only queues the bucket.
        n = sum(self.offset[i][1] for i in members)
        if self.in_place[b] is not None and not it.synthetic[b]:
            # DDP's reducer hook, which runs before ours on each gradient's
            # accumulator, has copied the gradients into its buffer: scale
            # and reduce them there (the same multiply as the pack).
            buf, off = self.in_place[b]
            flat = buf.narrow(0, off, n)
            parts = [flat]
            it.in_place[b] = True
            self.in_place_launches += 1
        else:
            flat = self.flat[b]
            if flat is None:
                flat = self.flat[b] = torch.empty(n, dtype=self.params[members[0]].dtype)
            parts = [it.grads[i] for i in members]
        it.results[b] = flat
        fut = it.futures[b]
        work = self.pg._run_plan_packed(self.plan, pid, parts, flat, 1.0 / self.size)

        def done(f):
            try:
                f.value()
            except Exception as e:  # the runtime's HcclError
                fut.set_exception(e)
                return
            fut.set_result(flat)
        work.get_future().add_done_callback(done)

    # ---- DDP's comm hook ----

    def comm_hook(self, _state, bucket):
        with self.lock:
            it = self._iteration()
            parts = []
            for p, g in zip(bucket.parameters(), bucket.gradients()):
                i = self.index.get(p.data_ptr())
                if i is None:
                    raise PlanError("DDP bucket holds a parameter the plan does not know")
                if it.grads[i] is None:
                    # Not yet seen by our hook (DDP calls this from its own
                    # hook on the bucket's last gradient, before ours runs),
                    # or unused: g is DDP's buffer, holding what DDP reduces.
                    self._mark(it, i, g)
                parts.append(i)
            buffer = bucket.buffer()
            self._check_in_place(it, parts, buffer)
            self._learn_layout(bucket, parts, buffer)
            if bucket.is_last() and it.next != len(self.buckets):
                raise PlanError(f"DDP's last bucket came with plan bucket "
                                f"{it.next} of {len(self.buckets)} not launched")
        needed = sorted({self.bucket_of[i] for i in parts})

        def assemble(_):
            if len(needed) == 1 and parts == self.buckets[needed[0]][1]:
                return it.results[needed[0]]  # the same bucket: no copy
            # Into DDP's own buffer (allocated once), not a new tensor: a
            # fresh 25 MB every step is 6400 pages written for the first
            # time, which cost more than the copy on a VM.
            pos = 0
            for i in parts:
                off, n = self.offset[i]
                src = it.results[self.bucket_of[i]].narrow(0, off, n)
                dst = buffer.narrow(0, pos, n)
                if src.data_ptr() != dst.data_ptr():  # reduced in place: there already
                    dst.copy_(src)
                pos += n
            return buffer
        return torch.futures.collect_all([it.futures[b] for b in needed]).then(assemble)

    def _learn_layout(self, bucket, parts, buffer):
        if not getattr(self.ddp, "_has_rebuilt_buckets", False):
            return  # DDP's buffers are not final yet
        base, size = buffer.data_ptr(), buffer.element_size()
        where = {i: (g.data_ptr() - base) // size
                 for i, g in zip(parts, bucket.gradients())}
        for b, (_, members) in enumerate(self.buckets):
            if self.in_place[b] is not None or not all(i in where for i in members):
                continue
            pos = where[members[0]]
            for i in members:
                if where[i] != pos:
                    break
                pos += self.offset[i][1]
            else:
                if buffer.dtype == self.params[members[0]].dtype:
                    self.in_place[b] = (buffer, where[members[0]])
                    self.flat[b] = None

    def _check_in_place(self, it, parts, buffer):
        # A bucket reduced in a buffer DDP no longer uses would leave DDP's
        # gradients unreduced: fail loudly (DDP rebuilds its buckets once,
        # before the buffers are learnt, so this does not happen).
        for b in {self.bucket_of[i] for i in parts}:
            if it.in_place[b] and self.in_place[b][0].data_ptr() != buffer.data_ptr():
                raise PlanError(f"plan bucket {b} was reduced in a DDP bucket buffer "
                                "DDP no longer uses (DDP rebuilt its buckets again)")


def _one_ddp_bucket_per_dtype(ddp):
    """Rebuilds DDP's reducer without a bucket size cap, as DDP's own
    __setstate__ rebuilds it: DDP then keeps each dtype's gradients in one
    buffer, in their ready order once it has rebuilt its buckets after the
    first backward. Every plan bucket, a run of consecutive gradients in
    that order, then lies contiguously in DDP's buffer and is reduced there.
    Under DDP's default 25 MiB buckets, a plan bucket spanning two of them
    is packed into a buffer of ours and its result copied back, a pass the
    in-place path does not make: 18-33 ms a step for the `mlp` model's one
    101 MB bucket on the 2-core host (docs/performance.md, "One DDP
    bucket"). DDP's buckets only decide when DDP collects the results;
    the plan's launches do not depend on them."""
    import sys
    import torch.distributed as dist
    installed = ddp._get_ddp_logging_data().get("comm_hook")
    if installed:
        raise PlanError(f"apply_plan: the DDP model already has a comm hook "
                        f"({installed}); the plan installs its own (DDP takes one)")
    first = dist._DEFAULT_FIRST_BUCKET_BYTES
    ddp.bucket_bytes_cap = sys.maxsize
    dist._DEFAULT_FIRST_BUCKET_BYTES = sys.maxsize
    try:
        params, sparse = ddp._build_params_for_reducer()
        names = ddp._build_debug_param_to_name_mapping(params)
        ddp._ddp_init_helper(params, sparse, names, ddp.static_graph)
    finally:
        dist._DEFAULT_FIRST_BUCKET_BYTES = first
    ddp._has_rebuilt_buckets = False
    if ddp.static_graph:  # as DDP's constructor sets it on a new reducer
        ddp.reducer._set_static_graph()
        ddp.logger._set_static_graph()


def apply_plan(ddp_model, plan, graph=None, keep_ddp_buckets=False):
    """Drives `ddp_model`'s gradient reduction by the compiler's plan (a path,
    JSON text or dict from hccl-translate --comm-to-plan) for the exported
    `graph` of the same model (tools/export/export_graph.py). Returns the
    PlanHook, or None when `plan` is None (DDP's own bucketing stays).

    DDP is rebuilt to hold each dtype's gradients in one bucket, so that
    every plan bucket is reduced in DDP's buffer
    (_one_ddp_bucket_per_dtype); keep_ddp_buckets=True leaves DDP's
    buckets as they are (plan buckets across them are then packed)."""
    if plan is None:
        return None
    if graph is None:
        raise PlanError("apply_plan needs the exported graph the plan was compiled "
                        "from (it names the gradients of each bucket)")
    if not isinstance(ddp_model.process_group, ProcessGroupHCCL):
        raise PlanError("apply_plan needs a DDP model on the hccl backend, found "
                        f"{type(ddp_model.process_group).__name__}")
    doc, text = _document(plan, "plan")
    buckets = plan_buckets(doc, graph)
    info = {p["id"]: p for p in doc["programs"]}
    for pid, _ in buckets:
        if info[pid]["ranks"] != ddp_model.process_group.size():
            raise PlanError(f"plan program '{pid}' runs on {info[pid]['ranks']} ranks, "
                            f"the DDP group has {ddp_model.process_group.size()}")
    if not keep_ddp_buckets:
        _one_ddp_bucket_per_dtype(ddp_model)
    hook = PlanHook(ddp_model, text, buckets, info)
    ddp_model.register_comm_hook(None, hook.comm_hook)
    ddp_model._hccl_plan_hook = hook  # lives as long as the model
    return hook
