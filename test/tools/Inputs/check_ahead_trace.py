"""Checks the device clock of an hccl-run --issue ahead trace against its plan.
hccl-run writes an ahead trace's collectives in the plan's start order (its
gates' order, whatever streams they ran on), so the k-th collective event of
a rank is its k-th start among the programs whose group holds it. Per rank:
  - no collective began before the device reached its start (the end of the
    compute before it in the plan);
  - each compute item began exactly when the device was free: the end of
    the compute before it or, if later, the end of every collective waited
    for since (a wait holds the device until its collective ended, and no
    longer).
Prints one line per rank; exits 1 naming the first violation.

  check_ahead_trace.py TRACE.json PLAN.json RANKS"""
import json
import sys

TOL = 0.002  # the trace's times are in us with 3 decimals

trace = json.load(open(sys.argv[1]))["traceEvents"]
plan = json.load(open(sys.argv[2]))
items = plan["plan"]["items"]
programs = {p["id"]: p for p in plan["programs"]}
ranks = int(sys.argv[3])


def member(program, rank):
    p = programs[program]
    if "groups" in p:
        return any(rank in g for g in p["groups"])
    return rank in p.get("group", range(p["ranks"]))


def fail(msg):
    print(f"check_ahead_trace: {msg}")
    sys.exit(1)


for r in range(ranks):
    ev = [e for e in trace if e.get("ph") == "X" and e["pid"] == r]
    comp = sorted((e for e in ev if e["cat"] == "compute"), key=lambda e: e["ts"])
    coll = [e for e in ev if e["cat"] == "collective"]  # in start order
    starts = [it for it in items
              if it["kind"] == "start" and member(it["program"], r)]
    if len(coll) != len(starts):
        fail(f"rank {r}: {len(coll)} collectives for {len(starts)} starts")
    end_of = {}  # start id -> its collective's end
    k = s = 0  # compute items and starts seen
    device = 0.0  # when the device is free (end of compute, held by waits)
    for it in items:
        if it["kind"] == "compute":
            c = comp[k]
            if abs(c["ts"] - device) > TOL:
                fail(f"rank {r}: compute {k} began at {c['ts']}, the device "
                     f"was free at {device}")
            device = c["ts"] + c["dur"]
            k += 1
        elif it["kind"] == "start":
            if not member(it["program"], r):
                continue
            c = coll[s]
            if c["name"] != it["program"]:
                fail(f"rank {r}: collective {s} is {c['name']}, the plan's "
                     f"start {it['id']} runs {it['program']}")
            if c["ts"] < device - TOL:
                fail(f"rank {r}: start {it['id']} began at {c['ts']}, before "
                     f"the device reached it at {device}")
            end_of[it["id"]] = c["ts"] + c["dur"]
            s += 1
        elif it["kind"] == "wait" and it["id"] in end_of:
            device = max(device, end_of[it["id"]])
    print(f"rank {r}: {k} compute items, {s} starts on the device clock")
