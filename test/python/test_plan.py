"""The compiled schedule drives DDP: apply_plan on a model exported with
tools/export/export_graph.py and compiled with --hccl-pipeline and
--comm-to-plan. The plan's buckets are the compiler's, each bucket launches
as soon as its last gradient is ready (in plan order), and the gradients are
bit-identical to DDP's own: on 2 ranks with the compiler's choices (one
addition per element), on 4 ranks in deterministic mode (the plan's mesh
programs and HCCL_DETERMINISTIC=strict both add in rank order).
"""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ranks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("HCCL_BUILD_DIR", os.path.join(ROOT, "build"))
EXPORT_DIR = os.path.join(ROOT, "tools", "export")
SHAPE = {"layers": 3, "hidden": 64, "batch": 4}
# Three buckets for this model's 6 gradients (fc.k.weight is 16 KiB).
PIPELINE = "policy=threshold threshold-bytes=20000"


def _tool(name):
    path = os.path.join(BUILD, "bin", name)
    if not os.path.exists(path):
        pytest.skip(f"{path} is not built")
    return path


def _run(cmd, stdin=None):
    r = subprocess.run(cmd, input=stdin, capture_output=True)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))}: {r.stderr.decode()}"
    return r.stdout


_compiled = {}


def compile_plan(tmp, size, pipeline=PIPELINE, shape=SHAPE, model="mlp"):
    """(plan path, graph path) for the exporter's mlp (or `model` with its
    exporter arguments) on `size` ranks."""
    key = (size, pipeline, tuple(sorted(shape.items())), str(model))
    if key not in _compiled:
        tag = f"p{size}-{len(_compiled)}"
        graph = os.path.join(tmp, f"m-{tag}.graph.json")
        plan = os.path.join(tmp, f"m-{tag}.plan.json")
        args = ([f"--{k}={v}" for k, v in shape.items()] if model == "mlp" else list(model))
        _run([sys.executable, os.path.join(EXPORT_DIR, "export_graph.py"), *(["mlp"] if model == "mlp" else []), *args,
              "--ranks", str(size), "--topology", f"host-{size}", "--threads", "1",
              "-o", graph])
        mlir = _run([_tool("hccl-translate"), "--import-graph", graph])
        lowered = _run([_tool("hccl-opt"), f"--hccl-pipeline={pipeline}"], stdin=mlir)
        _run([_tool("hccl-translate"), "--comm-to-plan", "-o", plan], stdin=lowered)
        _compiled[key] = (plan, graph)
    return _compiled[key]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return str(tmp_path_factory.mktemp("plans"))


UNUSED_MODEL = os.path.join(ROOT, "test", "tools", "Inputs", "export_models.py") + ":with_unused"
UNUSED_INPUTS = ["float32[4,16]", "int64[4]:10"]


def _model(which="mlp"):
    sys.path.insert(0, EXPORT_DIR)
    import torch
    if which == "mlp":
        import models
        return models.build("mlp", models.settings("mlp", dict(SHAPE))).module
    import custom_model
    torch.manual_seed(0)
    return custom_model.load_factory(UNUSED_MODEL)()


def _batch(which, gen):
    import torch
    if which == "mlp":
        return (torch.randn(SHAPE["batch"], SHAPE["hidden"], generator=gen),)
    return (torch.randn(4, 16, generator=gen), torch.randint(0, 10, (4,), generator=gen))


def _train(rank, size, plan, graph, steps, env_desc, accumulate=False, which="mlp",
           bucket_view=False, set_to_none=False, ddp_bucket_bytes=None,
           keep_ddp_buckets=False, static_graph=False):
    import copy
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from hccl_mlir.torch import apply_plan
    base = _model(which)
    runs = {}
    cap = {}
    if ddp_bucket_bytes:  # DDP's buckets (its first one too) this small
        dist._DEFAULT_FIRST_BUCKET_BYTES = ddp_bucket_bytes
        cap = {"bucket_cap_mb": ddp_bucket_bytes / 2**20}
    for mode in ("ddp", "plan"):
        model = copy.deepcopy(base)
        ddp = DDP(model, find_unused_parameters=which != "mlp",
                  gradient_as_bucket_view=bucket_view, static_graph=static_graph, **cap)
        hook = (apply_plan(ddp, plan, graph, keep_ddp_buckets=keep_ddp_buckets)
                if mode == "plan" else None)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
        gen = torch.Generator().manual_seed(7 + rank)
        grads, traces = [], []
        for _ in range(steps):
            x = _batch(which, gen)
            opt.zero_grad(set_to_none=set_to_none)
            if hook:
                hook.trace = []
            if accumulate:  # a micro-batch under no_sync() first
                with ddp.no_sync():
                    ddp(*[t * 0.5 if t.is_floating_point() else t for t in x]).pow(2).mean().backward()
            ddp(*x).pow(2).mean().backward()
            grads.append([torch.zeros_like(p) if p.grad is None else p.grad.clone()
                          for p in model.parameters()])
            if hook:
                traces.append(hook.trace)
            opt.step()
        runs[mode] = (grads, [p.detach().clone() for p in model.parameters()], traces, hook)
    (gd, pd, _, _), (gp, pp, traces, hook) = runs["ddp"], runs["plan"]
    by_index = {id(p): n for n, p in hook.ddp.module.named_parameters()}
    return {
        "grads_equal": all(torch.equal(a, b) for s1, s2 in zip(gd, gp) for a, b in zip(s1, s2)),
        "grads_max_diff": max((a - b).abs().max().item()
                              for s1, s2 in zip(gd, gp) for a, b in zip(s1, s2)),
        "params_equal": all(torch.equal(a, b) for a, b in zip(pd, pp)),
        "buckets": [(pid, [by_index[id(hook.params[i])] for i in members])
                    for pid, members in hook.buckets],
        "members": [members for _, members in hook.buckets],
        "traces": traces,
        "algorithms": hook.algorithms,
        "in_place": hook.in_place_launches,
        "in_place_buckets": [b for b, x in enumerate(hook.in_place) if x is not None],
        # DDP's buckets after its rebuild, bytes per bucket
        "ddp_buckets": hook.ddp._get_ddp_logging_data().get("rebuilt_bucket_sizes"),
        "static_graph": hook.ddp._get_ddp_logging_data().get("static_graph"),
        "env": env_desc,
    }


def _check_launches(out):
    """Every bucket launches right after the event that made it launchable:
    its own last gradient, or the launch of the bucket before it; the first
    bucket launches before the last bucket's gradients arrive (overlap)."""
    members = out["members"]
    for step, trace in enumerate(out["traces"]):
        launches = [k for k, e in enumerate(trace) if e[0] == "launch"]
        assert [trace[k][1] for k in launches] == list(range(len(members))), trace
        for k in launches:
            b = trace[k][1]
            before = trace[:k]
            assert all(("ready", i) in before for i in members[b]), (step, trace)
            prev = trace[k - 1]
            assert (prev[0] == "ready" and prev[1] in members[b]) or prev == ("launch", b - 1), \
                f"step {step}: bucket {b} launched late: {trace}"
        first_last = min(trace.index(("ready", i)) for i in members[-1])
        assert launches[0] < first_last, f"step {step}: no overlap: {trace}"


def test_plan_buckets_are_the_compilers(tmp):
    from hccl_mlir.torch import plan_buckets
    plan, graph = compile_plan(tmp, 2)
    got = [names for _, names in plan_buckets(plan, graph)]
    assert got == [["fc.2.bias.grad", "fc.2.weight.grad", "fc.1.bias.grad"],
                   ["fc.1.weight.grad", "fc.0.bias.grad"],
                   ["fc.0.weight.grad"]], got


def test_plan_drives_ddp_bit_identical_2_ranks(tmp):
    plan, graph = compile_plan(tmp, 2)
    out = ranks.run(_train, 2, plan, graph, 4, "default", timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert o["params_equal"], f"rank {r}: parameters differ"
        assert [names for _, names in o["buckets"]] == [
            ["fc.2.bias", "fc.2.weight", "fc.1.bias"], ["fc.1.weight", "fc.0.bias"],
            ["fc.0.weight"]], o["buckets"]
        # Once DDP has rebuilt its buckets (before step 2's forward), the
        # plan's buckets whose gradients lie in DDP's buffer in their order
        # are reduced there: in steps 3 and 4.
        assert o["in_place"] == 2 * len(o["in_place_buckets"]) == 6, (o["in_place"], o["in_place_buckets"])
        _check_launches(o)


def test_plan_with_gradient_as_bucket_view(tmp):
    # The gradients are DDP's buffer itself: reduced in place there, and
    # packed from it before DDP's buckets are final.
    plan, graph = compile_plan(tmp, 2)
    out = ranks.run(_train, 2, plan, graph, 4, "default", False, "mlp", True, timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert o["params_equal"], f"rank {r}: parameters differ"
        assert o["in_place"] == 6, o["in_place"]
        _check_launches(o)


def test_plan_with_gradient_as_bucket_view_and_fresh_gradients(tmp):
    # zero_grad(set_to_none=True), as examples/train does: every step's
    # gradients are new tensors that DDP copies into its buffer (it divides
    # on the way only without a comm hook), and the plan scales them there.
    plan, graph = compile_plan(tmp, 2)
    out = ranks.run(_train, 2, plan, graph, 4, "default", False, "mlp", True, True,
                    timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert o["params_equal"], f"rank {r}: parameters differ"
        assert o["in_place"] == 6, o["in_place"]
        _check_launches(o)


def test_plan_buckets_across_ddps_buckets_are_reduced_in_place(tmp):
    # DDP's buckets of 20 KB split the plan's one bucket of all gradients.
    # apply_plan rebuilds DDP with one bucket, so once DDP has rebuilt it
    # in ready order (before step 2) the plan's bucket lies in it and is
    # reduced there: steps 3 and 4 in place, nothing packed or copied back.
    plan, graph = compile_plan(tmp, 2, "policy=threshold threshold-bytes=1G")
    out = ranks.run(_train, 2, plan, graph, 4, "default", False, "mlp", True, False,
                    20000, timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert o["params_equal"], f"rank {r}: parameters differ"
        assert len(o["members"]) == 1, o["buckets"]
        assert "," not in o["ddp_buckets"], o["ddp_buckets"]  # one DDP bucket
        assert o["in_place"] == 2, o["in_place"]
        assert all(t[-1] == ("launch", 0) for t in o["traces"]), o["traces"]
    # keep_ddp_buckets=True: DDP keeps its 20 KB buckets, across which the
    # plan's bucket is packed in every step.
    out = ranks.run(_train, 2, plan, graph, 4, "default", False, "mlp", True, False,
                    20000, True, timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert "," in o["ddp_buckets"], o["ddp_buckets"]
        assert o["in_place"] == 0, o["in_place"]
    # static_graph=True: the rebuilt reducer is told so too, as DDP's
    # constructor tells its own.
    out = ranks.run(_train, 2, plan, graph, 4, "default", False, "mlp", True, False,
                    20000, False, True, timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert o["static_graph"] == 1, o["static_graph"]
        # (DDP tells the hook of its rebuild a step later under a static
        # graph: step 4 alone is in place.)
        assert "," not in o["ddp_buckets"] and o["in_place"] >= 1, o


def test_plan_with_no_sync_accumulation(tmp):
    # Nothing launches under no_sync(); the synchronised step reduces the
    # accumulated gradients, as DDP does.
    plan, graph = compile_plan(tmp, 2)
    out = ranks.run(_train, 2, plan, graph, 3, "default", True, timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        _check_launches(o)


def test_plan_with_unused_parameters(tmp):
    # Exported with --find-unused-parameters; DDP(find_unused_parameters=True).
    # The unused head's gradients (zeros) come from DDP's bucket.
    model = [UNUSED_MODEL, *[a for spec in UNUSED_INPUTS for a in ("--input", spec)],
             "--find-unused-parameters"]
    plan, graph = compile_plan(tmp, 2, "policy=threshold threshold-bytes=1200", model=model)
    out = ranks.run(_train, 2, plan, graph, 3, "default", False, "unused", timeout=300)
    for r, o in enumerate(out):
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert o["params_equal"], f"rank {r}: parameters differ"
        assert len(o["buckets"]) > 1, o["buckets"]
        assert "spare.weight" in o["buckets"][0][1], o["buckets"]
        _check_launches(o)  # the unused ones are ready with the first gradient


def test_plan_drives_ddp_bit_identical_4_ranks_deterministic(tmp):
    plan, graph = compile_plan(tmp, 4, PIPELINE + " algo=level0:mesh")
    out = ranks.run(_train, 4, plan, graph, 3, "strict", timeout=300,
                    env={"HCCL_DETERMINISTIC": "strict"})
    for r, o in enumerate(out):
        assert set(o["algorithms"]) == {"mesh"}, o["algorithms"]
        assert o["grads_equal"], f"rank {r}: gradients differ by {o['grads_max_diff']}"
        assert o["params_equal"], f"rank {r}: parameters differ"
        assert o["in_place"] == len(o["in_place_buckets"]) == 3, o["in_place"]  # step 3
        _check_launches(o)


def test_plan_with_compiler_choices_4_ranks(tmp):
    plan, graph = compile_plan(tmp, 4)
    out = ranks.run(_train, 4, plan, graph, 3, "default", timeout=300)
    for r, o in enumerate(out):
        assert o["grads_max_diff"] < 1e-6, f"rank {r}: gradients differ by {o['grads_max_diff']}"
        _check_launches(o)


def _misuse(rank, size, plan2, graph2, plan4, other_graph):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from hccl_mlir.torch import PlanError, apply_plan
    gloo = dist.new_group(backend="gloo")
    errors = {}

    def hooked():
        ddp = DDP(_model())

        def own_hook(_state, bucket):
            return torch.futures.Future()
        ddp.register_comm_hook(None, own_hook)
        return ddp
    cases = {
        "gloo": lambda: apply_plan(DDP(_model(), process_group=gloo), plan2, graph2),
        "ranks": lambda: apply_plan(DDP(_model()), plan4, graph2),
        "graph": lambda: apply_plan(DDP(_model()), plan2, other_graph),
        "no graph": lambda: apply_plan(DDP(_model()), plan2),
        "no schedule": lambda: apply_plan(DDP(_model()), json.dumps(
            {k: v for k, v in json.load(open(plan2)).items() if k != "plan"}), graph2),
        "missing file": lambda: apply_plan(DDP(_model()), plan2 + ".missing", graph2),
        "comm hook": lambda: apply_plan(hooked(), plan2, graph2),
    }
    for name, fn in cases.items():
        try:
            fn()
            errors[name] = None
        except PlanError as e:
            errors[name] = str(e)
    # Without a plan DDP keeps its own buckets.
    errors["none"] = apply_plan(DDP(_model()), None)
    return errors


def test_plan_misuse_raises(tmp):
    plan2, graph2 = compile_plan(tmp, 2)
    plan4, _ = compile_plan(tmp, 4)
    _, other = compile_plan(tmp, 2, shape={"layers": 2, "hidden": 64, "batch": 4})
    out = ranks.run(_misuse, 2, plan2, graph2, plan4, other, timeout=300)
    want = {"gloo": "on the hccl backend", "ranks": "runs on 4 ranks",
            "graph": "was not compiled from this graph", "no graph": "needs the exported graph",
            "no schedule": "no schedule", "missing file": "no such file",
            "comm hook": "already has a comm hook (_misuse.<locals>.hooked.<locals>.own_hook)"}
    for r, errors in enumerate(out):
        assert errors.pop("none") is None
        for name, fragment in want.items():
            assert errors[name] is not None, f"rank {r}: {name}: nothing raised"
            assert fragment in errors[name], f"rank {r}: {name}: {errors[name]}"


def _packed(rank, size, plan_path):
    """_run_plan_packed on a plan program: parts scaled into the bucket
    and all-reduced; wrong totals and dtypes raise before anything runs."""
    import torch
    import torch.distributed as dist
    from hccl_mlir.torch import Plan
    pg = dist.distributed_c10d._get_default_group()
    doc = json.load(open(plan_path))
    prog = next(p for p in doc["programs"] if p["collective"].replace("_", "") == "allreduce")
    n = prog["count"]
    plan = Plan.load(plan_path)
    cut = n // 3
    # Non-contiguous parts too: the pack reshapes them as DDP's hook did.
    a = (torch.arange(cut, dtype=torch.float32) + rank).reshape(1, -1)
    b = torch.full((2, n - cut), float(rank + 1)).t()[:, 0]
    flat = torch.empty(n)
    pg._run_plan_packed(plan, prog["id"], [a, b], flat, 0.25).wait()
    want = torch.cat([(torch.arange(cut, dtype=torch.float32) * size + sum(range(size))),
                      torch.full((n - cut,), float(sum(r + 1 for r in range(size))))]) * 0.25
    errors = {}
    for name, parts in {"total": [a], "dtype": [a.double(), b]}.items():
        try:
            pg._run_plan_packed(plan, prog["id"], parts, flat.clone(), 0.25).wait()
            errors[name] = None
        except (ValueError, TypeError) as e:
            errors[name] = str(e)
    return {"max_diff": float((flat - want).abs().max()), "errors": errors}


def test_run_plan_packed(tmp):
    plan, _ = compile_plan(tmp, 2)
    for r, o in enumerate(ranks.run(_packed, 2, plan, timeout=300)):
        assert o["max_diff"] == 0.0, f"rank {r}: packed result differs by {o['max_diff']}"
        assert "parts hold" in (o["errors"]["total"] or ""), o["errors"]
        assert "plan part 0 is Double" in (o["errors"]["dtype"] or ""), o["errors"]
