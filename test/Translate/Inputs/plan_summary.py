"""One line per program of a plan (collective, algorithm, ranks, count,
block layout, groups) and the schedule's group, for FileCheck."""
import json
import sys

doc = json.load(open(sys.argv[1]))
for p in doc["programs"]:
    groups = p.get("groups", [p["group"]] if "group" in p else [])
    print(f"program {p['collective']} {p['algorithm']} ranks={p['ranks']} "
          f"count={p['count']} in={p.get('input_outer', 1)} "
          f"out={p.get('output_outer', 1)} groups={json.dumps(groups, separators=(',', ':'))}")
if "plan" in doc:
    print("plan group=" + json.dumps(doc["plan"]["group"], separators=(',', ':')))
