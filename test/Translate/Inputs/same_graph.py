"""Exit 0 iff two graph JSON files describe the same graph. Tensor order is
not significant, and absent `inputs` / `outputs` mean their defaults
(docs/graph-format.md); everything else is compared exactly."""
import json
import sys


def normalise(g):
    produced, read = [], []
    for op in g["ops"]:
        for t in op["inputs"]:
            if t not in produced and t not in read:
                read.append(t)
        produced.extend(op["outputs"])
    used = {t for op in g["ops"] for t in op["inputs"]}
    g.setdefault("inputs", [t for t in read if t not in produced])
    g.setdefault("outputs", [t for t in produced if t not in used])
    g["tensors"] = sorted(g["tensors"], key=lambda t: t["name"])
    return g


a, b = (normalise(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(f"differs at '{k}':\n  {str(a.get(k))[:300]}\n  "
                  f"{str(b.get(k))[:300]}", file=sys.stderr)
    sys.exit(1)
