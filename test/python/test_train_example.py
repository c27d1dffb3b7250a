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


def _train_ddp():
    spec = importlib.util.spec_from_file_location("train_ddp", TRAIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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
])
def test_compare_refuses_bad_pricing_options(args, message):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, COMPARE, *args], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
