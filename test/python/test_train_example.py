"""examples/train/train_ddp.py's model factories build and train a step.

compare.py exports each model through these factories and torchrun trains
them; a factory that does not build breaks both with a traceback (the gpt
factory did: TransformerConfig gained a required `batch`)."""
import importlib.util
import os

import pytest

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "..", "..", "examples", "train", "train_ddp.py")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _train_ddp():
    return _load("train_ddp", TRAIN)


@pytest.mark.parametrize("model", ["cnn", "gpt", "lm", "mlp"])
def test_factory_builds_and_takes_a_step(model):
    t = _train_ddp()
    if model == "cnn":
        pytest.importorskip("torchvision")
    net = getattr(t, model)()
    x, y = t.batch(model, rank=0, step=0, size=2)
    loss = t.loss_of(model, net, x, y)
    loss.backward()
    grads = [p.grad for p in net.parameters() if p.requires_grad]
    assert grads and all(g is not None for g in grads)
    assert torch.isfinite(loss)
    assert sorted(t.MODELS) == sorted(t.FACTORIES)


def test_lm_starts_at_a_uniform_guess():
    # GPT-2's initialisation: the first loss is about ln(vocabulary), not
    # the ~170 of torch's default N(0, 1) embedding under a tied head.
    import math
    t = _train_ddp()
    torch.manual_seed(0)
    x, y = t.batch("lm", rank=0, step=0, size=1)
    loss = t.loss_of("lm", t.lm(), x, y).item()
    assert abs(loss - math.log(t.DECODERS["lm"]["vocab"])) < 1.0, loss


def test_mlp_is_the_size_its_docs_say():
    # README and docstring: 25.2 M parameters, 101 MB of fp32 gradients.
    t = _train_ddp()
    n = sum(p.numel() for p in t.mlp().parameters())
    assert round(n / 1e6, 1) == 25.2, n


COMPARE = os.path.join(HERE, "..", "..", "examples", "train", "compare.py")


@pytest.mark.parametrize("args, message", [
    (["--ranks", "2", "4", "--link-params", __file__],
     "--link-params takes one --ranks value"),
    (["--ranks", "4", "--link-params", __file__, "--calibrate"],
     "excludes --calibrate"),
    (["--ranks", "4", "--link-params", "/nonexistent/calib.json"],
     "--link-params /nonexistent/calib.json: no such file"),
    (["--peak-tflops", "0"], "--peak-tflops and --memory-gbps must be > 0"),
    (["--measure-compute", "-1"], "--measure-compute must be >= 0"),
    (["--measure-steal", "2"], "--measure-steal needs at least 3 rounds"),
    (["--steal-bytes", "1e6"], "--steal-bytes needs --measure-steal"),
    (["--measure-steal", "5", "--steal-bytes", "8"], "--steal-bytes must be >= 16"),
])
def test_compare_refuses_bad_pricing_options(args, message):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, COMPARE, *args], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr


TRAIN_DDP = os.path.join(HERE, "..", "..", "examples", "train", "train_ddp.py")


@pytest.mark.parametrize("args, message", [
    (["--batch", "0"], "--batch must be >= 1"),
    (["--plan", "p.json", "--graph", "g.json", "--backend", "gloo"], "--plan needs --backend hccl"),
    (["--plan", "p.json"], "--plan needs --graph"),
    (["--keep-ddp-buckets"], "--keep-ddp-buckets needs --plan"),
])
def test_train_ddp_refuses_bad_options(args, message):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, TRAIN_DDP, *args], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr


def _compare():
    return _load("compare", COMPARE)


def test_allocator_retain_keeps_the_users_tunables():
    c = _compare()
    env = {}
    c.retain_freed_memory(env)
    assert env["GLIBC_TUNABLES"] == c.RETAIN_TUNABLES
    env = {"GLIBC_TUNABLES": "glibc.malloc.perturb=1"}
    c.retain_freed_memory(env)
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.perturb=1:" + c.RETAIN_TUNABLES


# Run on the main thread, whose malloc arena grows by brk into [heap]
# (other threads' arenas are anonymous mappings).
_WHERE_MALLOC_PUTS_64M = """
import ctypes
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def heap():
    for line in open("/proc/self/maps"):
        if line.rstrip().endswith("[heap]"):
            return tuple(int(x, 16) for x in line.split()[0].split("-"))
    return (0, 0)
p = libc.malloc(64 << 20)
if not p:
    raise SystemExit("malloc of 64 MiB failed")
lo, hi = heap()
libc.free(p)
print("heap" if lo <= p < hi else "mmap", "kept" if heap()[1] == hi else "trimmed")
"""


def test_allocator_retain_reaches_glibc():
    # glibc ignores a tunable it does not know or whose value is out of
    # range without a word: check what malloc does under them. By default
    # a 64 MiB block is a mapping of its own (unmapped on free, faulted in
    # again when allocated next); under `retain` it comes from the heap,
    # and freeing it does not shrink the heap.
    import subprocess
    import sys
    c = _compare()
    env = {k: v for k, v in os.environ.items()
           if k != "GLIBC_TUNABLES" and not k.startswith("MALLOC_")}

    def where(e):
        return subprocess.run([sys.executable, "-c", _WHERE_MALLOC_PUTS_64M], env=e,
                              capture_output=True, text=True, check=True).stdout.split()
    if where(env)[0] != "mmap":
        pytest.skip("this C library does not map large blocks on its own (not glibc?)")
    c.retain_freed_memory(env)
    assert where(env) == ["heap", "kept"]


MEASURE_STEAL = os.path.join(HERE, "..", "..", "examples", "train", "measure_steal.py")


@pytest.mark.parametrize("args, message", [
    (["--rounds", "2"], "--rounds must be >= 3"),
    (["--chunks", "0"], "--chunks >= 1"),
    (["--bytes", "8", "--chunks", "4"], "--bytes must hold at least one fp32 element per chunk"),
    (["--link-params", "/nonexistent/calib.json"], "--link-params /nonexistent/calib.json"),
])
def test_measure_steal_refuses_bad_options(args, message, tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, MEASURE_STEAL, *args, "--out", str(tmp_path / "o.json")],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_measure_steal_writes_link_parameters(tmp_path):
    # Two ranks on the hccl backend, a small model, a few rounds: the steal
    # lands in a copy of the given link parameters, which keep their keys.
    import json
    import subprocess
    if not os.path.isfile("/usr/bin/torchrun"):
        pytest.skip("torchrun (python3-torch) is not installed")
    pytest.importorskip("hccl_mlir.torch")
    base = tmp_path / "calib.json"
    base.write_text('{"reduce_gbps": 7.5, "collective_wakeup_us": 40}')
    out = tmp_path / "steal.json"
    r = subprocess.run(
        # Debian's torch 1.13 torchrun fails without --redirects and a log dir.
        ["/usr/bin/torchrun", "--redirects", "1", "--tee", "1", "--log_dir", str(tmp_path / "logs"),
         "--nproc_per_node", "2", "--master_port", str(_free_port()),
         MEASURE_STEAL, "--model", "gpt", "--rounds", "3", "--warmup", "1",
         "--bytes", "4e6", "--link-params", str(base), "--out", str(out),
         "--report", str(tmp_path / "report.json")],
        capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    got = json.loads(out.read_text())
    assert got["reduce_gbps"] == 7.5 and got["collective_wakeup_us"] == 40
    steal = got["compute_steal_us_per_mb"]
    assert isinstance(steal, float) and 0 <= steal < 1e6, steal
    assert "beside 4.0 MB of all-reduce (avg) in 4" in r.stdout, r.stdout
    # The second size compare.py fits the links with: the bytes as one call.
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["chunks"] == 4 and report["bytes"] == 4_000_000
    assert report["allreduce_whole_ms"] > 0 and report["allreduce_alone_ms"] > 0
    assert "the same bytes as one all-reduce" in r.stdout, r.stdout


def test_fit_links_recovers_both_factors_from_two_sizes():
    c = _compare()
    # measured = a * A + O + B / k, priced at a = 1, k = 1 by (A, O, B).
    a, k = 40.0, 0.5
    pts = [(A, 30.0, B, a * A + 30.0 + B / k) for A, B in [(20.0, 1e3), (20.0, 4e3)]]
    fa, fk, how = c.fit_links(pts)
    assert how == "two sizes"
    assert abs(fa - a) < 1e-9 and abs(fk - k) < 1e-12
    # One size: latency kept, bandwidth alone carries the difference.
    fa, fk, how = c.fit_links(pts[1:])
    assert (fa, how) == (1.0, "one size")
    assert abs(20.0 + 30.0 + 4e3 / fk - pts[1][3]) < 1e-9
    # Noise the fit cannot take: the larger size measured faster (1/k < 0),
    # or the smaller one below what the slope leaves for latency (a < 0).
    # The one-size fit on the larger then.
    for noisy in ([(20.0, 30.0, 1e3, 5e3), (20.0, 30.0, 4e3, 4.8e3)],
                  [(20.0, 30.0, 1e3, 100.0), (20.0, 30.0, 4e3, 5e3)]):
        fa, fk, how = c.fit_links(noisy)
        assert (fa, how) == (1.0, "one size"), noisy
        assert abs(50.0 + 4e3 / fk - noisy[1][3]) < 1e-9


def test_fit_links_refuses_a_time_below_the_latency():
    c = _compare()
    with pytest.raises(SystemExit, match="not above its latency terms"):
        c.fit_links([(20.0, 30.0, 4e3, 40.0)])


def test_priced_like_torch_prices_both_measured_sizes(tmp_path):
    # Round trip through hccl-plan: links refitted to two measured sizes
    # (a per-call cost well above the host preset's, as 4 ranks on 2 cores
    # show) price each at its measured time, within hccl-plan's rounding.
    import json
    build = os.environ.get("HCCL_BUILD_DIR", os.path.join(HERE, "..", "..", "build"))
    if not os.path.isfile(os.path.join(build, "bin", "hccl-plan")):
        pytest.skip(f"no hccl-plan under {build} (build the project first)")
    c = _compare()
    links = tmp_path / "links.json"
    links.write_text('{"compute_steal_us_per_mb": 12.5}')
    report = {"bytes": 25_200_000, "chunks": 4, "allreduce_alone_ms": 4 * 12.06,
              "allreduce_whole_ms": 21.23}
    out = c.priced_like_torch(build, str(tmp_path), 4, str(links), report)
    got = json.loads(open(out).read())
    assert got["compute_steal_us_per_mb"] == 12.5
    assert got["intra"]["latency_us"] > 100, got  # the preset's is 1 us
    algo = c._prices_us(build, 4, 25_200_000 // 4, out)[1]
    for count, ms in [(6_300_000 // 4, 12.06), (25_200_000 // 4, 21.23)]:
        us = c._prices_us(build, 4, count, out)[0][algo]
        assert abs(us / 1e3 - ms) / ms < 0.01, (count, us, ms)
