"""Writes a plan of two communicators that share ranks, and checks the trace
hccl-run wrote for it with --streams group.

  two_communicators.py make WHOLE_PLAN HALF_PLAN OUT   (programs from
      `hccl-plan generate` on p and p/2 ranks: an all-reduce of all ranks and
      one of each half (tensor inside data parallel), started together: two of
      the first, then the second, so that round-robin streams would put one
      communicator on two rows)
  two_communicators.py lanes TRACE   (each rank ran the two on different
      stream rows, and each collective of one communicator on one row)
"""
import json
import sys


def make(whole, half, out):
    plan = json.load(open(whole))
    prog = plan["programs"][0]
    tp = json.load(open(half))["programs"][0]
    ranks = list(range(prog["ranks"]))
    tp["id"] = "tp"
    tp["groups"] = [ranks[:len(ranks) // 2], ranks[len(ranks) // 2:]]
    plan["programs"].append(tp)
    plan["plan"] = {"group": ranks, "items": [
        {"kind": "start", "id": 0, "program": prog["id"]},
        {"kind": "start", "id": 1, "program": prog["id"]},
        {"kind": "start", "id": 2, "program": "tp"},
        {"kind": "wait", "id": 0}, {"kind": "wait", "id": 1},
        {"kind": "wait", "id": 2}]}
    json.dump(plan, open(out, "w"))


def lanes(trace):
    events = json.load(open(trace))
    events = events["traceEvents"] if isinstance(events, dict) else events
    rows = {}
    for e in events:
        if e.get("cat") == "collective":
            rows.setdefault(e["pid"], {}).setdefault(e["name"], set()).add(e["tid"])
    assert rows, "no collectives in the trace"
    for pid, by in rows.items():
        assert all(len(t) == 1 for t in by.values()), (pid, by)
        assert len(set().union(*by.values())) == 2, (pid, by)
    print("ranks %d: one stream row per communicator" % len(rows))


if sys.argv[1] == "make":
    make(*sys.argv[2:5])
else:
    lanes(sys.argv[2])
