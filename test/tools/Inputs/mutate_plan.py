#!/usr/bin/env python3
"""Applies small edits to the first program of a plan (tests of wrong plans).

usage: mutate_plan.py IN.json OUT.json EDIT...

Phases and ops are addressed by index (PH, OP); FIELD is peer, count, when,
repeat, dst.offset or src.offset. Edits, applied in order:
  set:PH:OP:FIELD:EXPR      the field becomes EXPR
  wrap:PH:OP:FIELD:TEMPLATE the field becomes TEMPLATE with {} -> (old)
  copy:PH:OP:FIELD:PH2:OP2:FIELD2  the field becomes another op's field
  kind:PH:OP:KIND           recv_reduce -> recv drops src
  buffer:PH:OP:dst|src:BUF  the buffer of dst or src
  del:PH:OP                 removes the op
  dup:PH:OP                 appends a copy of the op to its phase
  steps:PH:EXPR             the phase's step count
  schedule                  adds a schedule (start + wait of each program)
"""
import json
import sys


def field(op, name):
    if "." in name:
        part, key = name.split(".")
        return op[part], key
    return op, name


def main():
    src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(src) as f:
        plan = json.load(f)
    prog = plan["programs"][0]
    phases = prog["phases"]
    for e in edits:
        a = e.split(":", 4 if e.startswith(("set:", "wrap:")) else 10)
        if a[0] == "schedule":
            items = []
            for i, pp in enumerate(plan["programs"]):
                items += [{"kind": "start", "id": i, "program": pp["id"]},
                          {"kind": "wait", "id": i}]
            plan["plan"] = {"group": list(range(prog["ranks"])),
                            "items": items}
            continue
        ph = phases[int(a[1])]
        if a[0] == "steps":
            ph["steps"] = a[2]
            continue
        ops = ph["ops"]
        op = ops[int(a[2])]
        if a[0] in ("set", "wrap"):
            obj, key = field(op, a[3])
            obj[key] = a[4] if a[0] == "set" else \
                a[4].replace("{}", "(" + str(obj[key]) + ")")
        elif a[0] == "copy":
            obj, key = field(op, a[3])
            other = phases[int(a[4])]["ops"][int(a[5])]
            o2, k2 = field(other, a[6])
            obj[key] = o2[k2]
        elif a[0] == "kind":
            op["kind"] = a[3]
            if a[3] == "recv":
                op.pop("src", None)
        elif a[0] == "buffer":
            op[a[3]]["buffer"] = a[4]
        elif a[0] == "del":
            del ops[int(a[2])]
        elif a[0] == "dup":
            ops.append(json.loads(json.dumps(op)))
        else:
            sys.exit("unknown edit " + e)
    with open(dst, "w") as f:
        json.dump(plan, f, indent=1)


if __name__ == "__main__":
    main()
