"""Exit 0 iff two graph JSON files describe the same graph (tensor order is
not significant; everything else is compared exactly)."""
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])
for g in (a, b):
    g["tensors"] = sorted(g["tensors"], key=lambda t: t["name"])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(f"differs at '{k}':\n  {a.get(k)}\n  {b.get(k)}", file=sys.stderr)
    sys.exit(1)
