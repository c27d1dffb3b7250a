"""Checks a comm-estimate Chrome trace: well-formed JSON, complete events
with non-negative durations, the compute stream serial, and no two events
overlapping on one lane. Prints one summary line per process."""
import json
import sys

doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"]
names = {}
lanes = {}
for e in events:
    if e["ph"] == "M":
        if e["name"] == "process_name":
            names[e["pid"]] = e["args"]["name"]
        continue
    assert e["ph"] == "X", e
    assert e["dur"] >= 0 and e["ts"] >= 0, e
    assert (e["tid"] == 0) == (e["cat"] == "compute"), e
    lanes.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
for key, spans in lanes.items():
    spans.sort()
    for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
        assert a1 <= b0 + 1e-9, (key, (a0, a1), (b0, b1))
for pid in sorted(names):
    comm = sum(len(s) for (p, t), s in lanes.items() if p == pid and t > 0)
    used = sorted(t for (p, t) in lanes if p == pid and t > 0)
    print("%s comm_events=%d lanes=%s" % (names[pid], comm, used))
