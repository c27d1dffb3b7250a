"""Checks an hccl-run Chrome trace: valid JSON, one process per rank, compute
and collective events with non-negative times."""
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
