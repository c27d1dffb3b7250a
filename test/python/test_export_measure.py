"""export_graph.py --measure-compute: each layer's backward is timed on
this host between gradient-ready events. A layer whose backward sleeps
cannot be measured shorter than its sleep (sleep never returns early), and
the graph carries the measured times instead of the priced ones."""

import json
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXPORT_DIR = os.path.join(ROOT, "tools", "export")
sys.path.insert(0, EXPORT_DIR)
from backward_recorder import measure_backward, record_backward  # noqa: E402
from device_cost import Device  # noqa: E402

SLEEP_S = 0.05


class _SlowBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        time.sleep(SLEEP_S)
        return g


class SlowMiddle(nn.Module):
    """fc0 -> fc1 (its backward sleeps) -> fc2."""

    def __init__(self):
        super().__init__()
        self.fc0 = nn.Linear(8, 8)
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc2(_SlowBackward.apply(self.fc1(self.fc0(x))))


def slow_middle():
    return SlowMiddle()


def test_the_sleeping_layer_measures_at_least_its_sleep():
    model = SlowMiddle()
    x = torch.randn(4, 8)

    def loss_fn(m):
        return m(x).sum()

    rec = record_backward(model, loss_fn, Device())
    names = [layer.module for layer in rec.layers]
    assert names == ["fc2", "fc1", "fc0"]
    times = measure_backward(model, loss_fn, rec, rounds=3)
    assert len(times) == 3
    # The sleep runs between fc2's gradients and fc1's: it is fc1's.
    assert times[1] >= SLEEP_S * 1e6
    assert all(t >= 0 for t in times)
    # Priced at the default device, these layers take microseconds.
    assert rec.layers[1].cost.time_us < SLEEP_S * 1e6


def test_the_graph_carries_the_measured_times(tmp_path):
    out = tmp_path / "slow.json"
    r = subprocess.run(
        ["/usr/bin/python3", os.path.join(EXPORT_DIR, "export_graph.py"),
         __file__ + ":slow_middle", "--input", "float32[4,8]", "--ranks", "2",
         "--measure-compute", "2", "--threads", "1", "-o", str(out)],
        capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "backward: measured" in r.stdout
    g = json.loads(out.read_text())
    compute = {op["name"]: op["time_us"] for op in g["ops"] if op["op"] == "compute"}
    assert compute["fc1.backward"] >= SLEEP_S * 1e6
    assert compute["fc2.backward"] < SLEEP_S * 1e6 or compute["fc0.backward"] < SLEEP_S * 1e6


def test_measure_compute_must_be_positive(tmp_path):
    r = subprocess.run(
        ["/usr/bin/python3", os.path.join(EXPORT_DIR, "export_graph.py"),
         __file__ + ":slow_middle", "--input", "float32[4,8]",
         "--measure-compute", "0", "-o", str(tmp_path / "x.json")],
        capture_output=True, text=True)
    assert r.returncode == 2
    assert "--measure-compute" in r.stderr
