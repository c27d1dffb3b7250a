"""Checks an hccl-run Chrome trace: valid JSON, one process per rank, compute
and collective events with non-negative times. Given the plan too, each
rank's compute events are the plan's compute items in order, each lasting
its cost exactly and starting no earlier than the previous one ended (the
device clock: kernels back to back, never the host's late wake-ups)."""
import json
import sys

trace = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
events = trace["traceEvents"]
pids = {e["pid"] for e in events}
assert pids == set(range(ranks)), f"processes {sorted(pids)}, expected 0..{ranks - 1}"
cats = {e.get("cat") for e in events if e["ph"] == "X"}
assert {"compute", "collective"} <= cats, f"categories {cats}"
for e in events:
    if e["ph"] == "X":
        assert e["ts"] >= 0 and e["dur"] >= 0, e
if len(sys.argv) > 3:
    plan = json.load(open(sys.argv[3]))
    costs = [it["cost_us"] for it in plan["plan"]["items"] if it["kind"] == "compute"]
    assert costs, "the plan has no compute items"
    for r in range(ranks):
        comp = sorted((e for e in events if e["pid"] == r and e.get("cat") == "compute"),
                      key=lambda e: e["ts"])
        assert [round(e["dur"], 3) for e in comp] == [round(c, 3) for c in costs], \
            f"rank {r}: compute durations {[e['dur'] for e in comp]}, plan {costs}"
        for a, b in zip(comp, comp[1:]):
            assert b["ts"] >= a["ts"] + a["dur"] - 0.01, f"rank {r}: {b} overlaps {a}"
