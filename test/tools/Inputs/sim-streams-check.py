"""hccl-sim --streams: two all-reduces of one group started at once.

Builds a plan from `hccl-plan generate`'s program (two starts, then two
waits) and checks what each stream setting means:
  --streams 1 (hccl-run's default): the second waits for the first, so
      each runs alone at the model's price and the iteration is their sum;
  --streams 2 or 0 (every one at once): they run together on the same
      links, each slower than alone, and the iteration shorter than the
      sum (their latencies overlap).
  --streams group (the compiler's timeline: one stream per communicator):
      the two all-reduces of one group still run one after another; an
      all-reduce of the 16 ranks and one of two 8-rank groups (tensor
      inside data parallel) run together.
Usage: sim-streams-check.py HCCL_SIM ONE_PROGRAM_PLAN OUT_DIR [TP_PLAN]
"""
import json
import subprocess
import sys


def run(sim, plan, streams):
    out = subprocess.run([sim, plan, "--streams", str(streams)], check=True,
                         capture_output=True, text=True).stdout
    colls, iteration = [], None
    for line in out.splitlines():
        f = line.split()
        if f and f[0].isdigit() and len(f) >= 9:
            colls.append((float(f[6]), float(f[7])))  # sim_us, model_us
        if f and f[0] == "iteration_us":
            iteration = float(f[1])
    assert len(colls) == 2 and iteration, out
    return colls, iteration


def main():
    sim, one, out = sys.argv[1:4]
    plan = json.load(open(one))
    prog = plan["programs"][0]
    ranks = list(range(prog["ranks"]))
    plan["plan"] = {"group": ranks, "items": [
        {"kind": "start", "id": 0, "program": prog["id"]},
        {"kind": "start", "id": 1, "program": prog["id"]},
        {"kind": "wait", "id": 0},
        {"kind": "wait", "id": 1}]}
    path = out + "/two.json"
    json.dump(plan, open(path, "w"))

    colls, it = run(sim, path, 1)
    for sim_us, model_us in colls:
        assert abs(sim_us - model_us) <= 0.01 * model_us, (colls, "alone")
    total = sum(s for s, _ in colls)
    assert abs(it - total) <= 0.01 * total, (it, total)
    print("streams 1: each at the model's price, iteration = their sum")

    for streams in (2, 0):
        colls, it2 = run(sim, path, streams)
        for sim_us, model_us in colls:
            assert sim_us > 1.5 * model_us, (streams, colls)
        assert it2 < it, (streams, it2, it)
        print("streams %d: together, each slower, iteration shorter" % streams)

    colls, it3 = run(sim, path, "group")
    assert abs(it3 - it) <= 0.01 * it, (it3, it)
    print("streams group, one communicator: one after another")
    if len(sys.argv) > 4:
        tp = json.load(open(sys.argv[4]))["programs"][0]
        tp["id"] = "tp"
        half = len(ranks) // 2
        tp["groups"] = [ranks[:half], ranks[half:]]
        plan["programs"].append(tp)
        plan["plan"]["items"][1]["program"] = "tp"
        path = out + "/two-groups.json"
        json.dump(plan, open(path, "w"))
        _, serial = run(sim, path, 1)
        colls, grouped = run(sim, path, "group")
        alone = sum(m for _, m in colls)
        assert abs(serial - alone) <= 0.01 * alone, (serial, alone)
        assert grouped < 0.95 * serial, (grouped, serial)
        print("streams group, two communicators: together, iteration shorter")


main()
